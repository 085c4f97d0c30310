// The catalogue's market and fixture statuses as the engine's change records set them, written in the journal's
// transaction on PostgreSQL (as store/sqlite/catalogue-status.ts does on SQLite): the stored catalogue never
// disagrees with the journal, whatever point a crash hits. The catalogue itself only follows in memory.
import type pg from 'pg';
import type { Change, ChangeOf } from '../../engine/changes.js';
import { reportedDate } from '../catalogue-records.js';
import { decodeJson } from '../json-codec.js';

export type CatalogueStatusChange = ChangeOf<'marketStatusChanged' | 'marketReported' | 'fixtureStatusChanged'>;

/** The changes of these records that set a catalogue status (few: operator actions, kick-offs, reports). */
export function catalogueStatusChanges(changes: readonly Change[]): CatalogueStatusChange[] {
  return changes.filter(
    (c): c is CatalogueStatusChange => c.type === 'marketStatusChanged' || c.type === 'marketReported' || c.type === 'fixtureStatusChanged',
  );
}

/** Runs inside the caller's transaction, in the changes' order. */
export async function applyCatalogueStatus(client: pg.PoolClient, changes: readonly CatalogueStatusChange[]): Promise<void> {
  for (const c of changes) {
    if (c.type === 'marketStatusChanged') {
      await client.query("UPDATE markets SET status = $1 WHERE market_hash = $2 AND status <> 'SETTLED'", [c.status, c.marketHash]);
    } else if (c.type === 'fixtureStatusChanged') {
      await client.query('UPDATE fixtures SET status = $1 WHERE exchange_event_id = $2', [c.status, c.exchangeEventId]);
    } else {
      await client.query(
        `UPDATE markets SET status = 'SETTLED', outcome = $1, reported_date = $2,
           team_one_score = coalesce($3, team_one_score), team_two_score = coalesce($4, team_two_score)
         WHERE market_hash = $5`,
        [c.outcome, reportedDate(c.at), c.teamOneScore ?? null, c.teamTwoScore ?? null, c.marketHash],
      );
    }
  }
}

/** The journal rows that set a catalogue status, found by the server in the changes' text without decoding the rest. */
const SETS_CATALOGUE_STATUS = `(changes LIKE '%"type":"marketStatusChanged"%' OR changes LIKE '%"type":"marketReported"%' OR changes LIKE '%"type":"fixtureStatusChanged"%')`;

/**
 * For a process that holds the catalogue without writing the journal (a gateway): the catalogue statuses set after
 * position `after`, in journal order, up to the journal's end as it is now (`through`, where the next call starts).
 * The writer commits its groups one after another in position order, so nothing below `through` commits later.
 */
export async function catalogueStatusesAfter(db: pg.Pool, after: number): Promise<{ through: number; changes: CatalogueStatusChange[] }> {
  const through = Math.max(after, await journalEnd(db));
  if (through === after) return { through, changes: [] };
  const { rows } = await db.query<{ changes: string }>({
    name: 'journal-catalogue-statuses',
    text: `SELECT changes FROM journal WHERE seq > $1 AND seq <= $2 AND ${SETS_CATALOGUE_STATUS} ORDER BY seq`,
    values: [after, through],
  });
  return { through, changes: rows.flatMap((r) => catalogueStatusChanges(decodeJson<Change[]>(r.changes))) };
}

/** The position of the journal's last row (0 when empty). */
export async function journalEnd(db: pg.Pool): Promise<number> {
  const { rows } = await db.query<{ seq: string | null }>('SELECT max(seq) AS seq FROM journal');
  return Number(rows[0]?.seq ?? 0);
}
