// Engine snapshots on PostgreSQL, as the SQLite store keeps them (sqlite/snapshots.ts): the state as of a journal
// position, checksummed, the newest `keep` kept. The writer takes a snapshot between commits, where the engine is
// exactly as the journal it wrote; `write` only encodes it, and the store's next sync writes it in the transaction
// of the journal rows it covers, so a snapshot never reaches the database ahead of them. Journal rows the oldest
// kept snapshot covers (and the read models have projected) can be archived as on SQLite: into a gzip'd file, then
// deleted with the archived-through mark in one fenced transaction, so the journal table stops growing with history.
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { decodeJson, encodeJson } from '../json-codec.js';
import type { SnapshotPort, StoredSnapshot } from '../ports.js';
import { writeArchiveFile, type ArchivedRange, type ArchivedRow } from '../journal-archive-file.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
export const ARCHIVED_THROUGH = 'journal_archived_through';
/** Journal rows read per query while archiving: the file is written a page at a time. */
const ARCHIVE_PAGE = 5000;

export interface PendingSnapshot {
  seq: number;
  takenAt: number;
  body: string;
  sha256: string;
}

export class PostgresSnapshots<T> implements SnapshotPort<T> {
  private pending: PendingSnapshot | undefined;

  constructor(
    private readonly pool: pg.Pool,
    private archived: number,
    /** Checks, inside a transaction, that this process is still the one writer (writer-fence.ts). */
    private readonly fenced: (tx: pg.ClientBase) => Promise<void>,
    /** How many snapshots to keep: older ones are the fallback when the newest is damaged. */
    private readonly keep = 2,
  ) {}

  write(seq: number, state: T, takenAt: number): void {
    const body = encodeJson(state);
    this.pending = { seq, takenAt, body, sha256: sha256(body) };
  }

  /** The snapshot written since the last sync, for the sync's transaction. */
  takePending(): PendingSnapshot | undefined {
    const p = this.pending;
    this.pending = undefined;
    return p;
  }

  /** Inside the sync's transaction. */
  async store(tx: pg.ClientBase, s: PendingSnapshot): Promise<void> {
    await tx.query({
      name: 'snapshot-put',
      text: `INSERT INTO snapshots (journal_seq, taken_at, body, sha256) VALUES ($1, $2, $3, $4)
             ON CONFLICT (journal_seq) DO UPDATE SET taken_at = EXCLUDED.taken_at, body = EXCLUDED.body, sha256 = EXCLUDED.sha256`,
      values: [s.seq, s.takenAt, s.body, s.sha256],
    });
    await tx.query({
      name: 'snapshot-trim',
      text: 'DELETE FROM snapshots WHERE journal_seq NOT IN (SELECT journal_seq FROM snapshots ORDER BY journal_seq DESC LIMIT $1)',
      values: [this.keep],
    });
  }

  /** Snapshots whose checksum holds, newest first, each read and decoded only when the one before was passed over. */
  async *valid(): AsyncGenerator<StoredSnapshot<T>> {
    const { rows } = await this.pool.query<{ seq: string }>('SELECT journal_seq AS seq FROM snapshots ORDER BY journal_seq DESC');
    for (const { seq } of rows) {
      const found = await this.pool.query<{ body: string; sha256: string }>('SELECT body, sha256 FROM snapshots WHERE journal_seq = $1', [seq]);
      const row = found.rows[0];
      if (!row || sha256(row.body) !== row.sha256) continue;
      let state: T;
      try {
        state = decodeJson<T>(row.body);
      } catch {
        continue;
      }
      yield { seq: Number(seq), state };
    }
  }

  archivedThrough(): number {
    return this.archived;
  }

  /** See SnapshotPort.archiveJournal. */
  async archiveJournal(dir: string, projectedThrough: number): Promise<ArchivedRange | undefined> {
    const { rows } = await this.pool.query<{ seq: string | null }>('SELECT min(journal_seq) AS seq FROM snapshots');
    const from = this.archived + 1;
    const to = Math.min(Number(rows[0]!.seq ?? 0), projectedThrough);
    if (to < from) return undefined;
    // No snapshot is ever written below the oldest kept one, and only this writer appends: the range is settled.
    const written = await writeArchiveFile(dir, from, to, this.journalRows(from, to));
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await this.fenced(client);
      await client.query('DELETE FROM journal WHERE seq BETWEEN $1 AND $2', [from, to]);
      await client.query(
        'INSERT INTO store_settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value',
        [ARCHIVED_THROUGH, String(to)],
      );
      await client.query('COMMIT');
      client.release();
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      client.release(true);
      throw err;
    }
    this.archived = to;
    return { from, to, ...written };
  }

  /** Journal rows `from` through `to` as they are stored, a page per query. */
  private async *journalRows(from: number, to: number): AsyncGenerator<ArchivedRow[]> {
    for (let after = from - 1; after < to; ) {
      const { rows } = await this.pool.query<{ seq: string; at_ms: string; command: string; changes: string | null }>({
        name: 'journal-archive-page',
        text: 'SELECT seq, at_ms, command, changes FROM journal WHERE seq > $1 AND seq <= $2 ORDER BY seq LIMIT $3',
        values: [after, to, ARCHIVE_PAGE],
      });
      if (rows.length === 0) return;
      yield rows.map((r) => ({ seq: Number(r.seq), at_ms: Number(r.at_ms), command: r.command, changes: r.changes }));
      after = Number(rows[rows.length - 1]!.seq);
    }
  }
}
