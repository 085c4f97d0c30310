// Each account's shortfalls and posting restriction (rm_restrictions, written by the projector): the operator's view
// of an account. Read models projected before the table existed are seeded from the engine once (`seed`).
import type pg from 'pg';
import type { AsyncQueries, RestrictionQueries } from '../../ports.js';
import type { AccountRestriction } from '../../../engine/types.js';
import { int, jsonRows, type Queryable } from '../trade-state.js';

/** Set once the restrictions of read models projected before rm_restrictions existed were seeded from the engine. */
const RESTRICTIONS_SEEDED = 'restrictions.seeded';

export class PostgresRestrictionReads implements AsyncQueries<RestrictionQueries> {
  constructor(private readonly db: Queryable) {}

  async restrictionOf(address: string): Promise<AccountRestriction | undefined> {
    const { rows } = await this.db.query<{ address: string; restricted_until: string | null; shortfalls: string[] }>(
      'SELECT address, restricted_until, shortfalls FROM rm_restrictions WHERE address = $1',
      [address],
    );
    const r = rows[0];
    return r && { address: r.address, restrictedUntil: r.restricted_until === null ? null : int(r.restricted_until), shortfalls: r.shortfalls.map(int) };
  }
}

/**
 * Writes the engine's restrictions, once, in one transaction with the mark that says so, while the read models and
 * the engine stand at the same journal position (start-up, after the read models caught up). Returns whether it was
 * the first time.
 */
export async function seedRestrictions(pool: pg.Pool, restrictions: () => AccountRestriction[]): Promise<boolean> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const marked = await client.query("INSERT INTO store_settings (key, value) VALUES ($1, '1') ON CONFLICT (key) DO NOTHING", [RESTRICTIONS_SEEDED]);
    if (marked.rowCount === 1) {
      const rows = restrictions().map((r) => ({ address: r.address, restricted_until: r.restrictedUntil, shortfalls: r.shortfalls }));
      if (rows.length > 0) {
        await client.query(
          `INSERT INTO rm_restrictions (address, restricted_until, shortfalls)
           SELECT address, restricted_until, ARRAY(SELECT jsonb_array_elements_text(shortfalls)::bigint)
           FROM jsonb_to_recordset($1::jsonb) AS x(address text, restricted_until bigint, shortfalls jsonb)
           ON CONFLICT (address) DO NOTHING`,
          [jsonRows(rows)],
        );
      }
    }
    await client.query('COMMIT');
    return marked.rowCount === 1;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}
