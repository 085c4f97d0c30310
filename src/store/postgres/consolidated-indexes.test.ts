// GET /trades/consolidated?marketHash= and ?exchangeEventId= without a bettor on PostgreSQL: planned through the
// market and event indexes (migration 011), not through the (settled, bet_time, ord) index over every entry.
import type pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { noPostgres, postgresForSuite, postgresSuite } from '../../../test/helpers/postgres.js';
import { migrate } from './migrate.js';
import { openPool } from './pool.js';

describe.skipIf(noPostgres)(postgresSuite('consolidated entries by market and by event on PostgreSQL'), () => {
  const server = postgresForSuite();
  const pools: pg.Pool[] = [];
  afterEach(async () => {
    for (const p of pools.splice(0)) await p.end();
  });

  it('counts and pages a market (or its quarter-line legs) and an event through their indexes, with generic plans', async () => {
    const url = await server().createDatabase();
    const pool = openPool(url, 1, { genericPlans: true });
    pools.push(pool);
    await migrate(pool);
    // A history: 20,000 settled entries over 400 markets and events.
    await pool.query(`INSERT INTO rm_consolidated SELECT 'f' || i, 'b' || (i % 50), 'm' || (i % 400), 'market', NULL, 'e' || (i % 400),
      false, 'SUCCESS', true, i, i, i, 1, 1, 1, 1, 1, 1, 1 FROM generate_series(1, 20000) i`);
    await pool.query('ANALYZE rm_consolidated');
    const plan = async (where: string) => {
      const lines: string[] = [];
      for (const sql of [`SELECT COUNT(*) AS n FROM rm_consolidated WHERE ${where}`, `SELECT ord FROM rm_consolidated WHERE ${where} ORDER BY bet_time DESC, ord DESC LIMIT 100`]) {
        await pool.query(`PREPARE p AS ${sql}`);
        const { rows } = await pool.query<{ 'QUERY PLAN': string }>("EXPLAIN EXECUTE p('m7')");
        await pool.query('DEALLOCATE p');
        lines.push(rows.map((r) => r['QUERY PLAN']).join('\n'));
      }
      return lines;
    };
    // The clauses consolidated-page.ts writes for these filters.
    for (const p of await plan('settled = true AND (market_hash = $1 OR quarter_market_hash = $1)')) {
      expect(p).toMatch(/rm_consolidated_by_market/);
      expect(p).not.toMatch(/rm_consolidated_by_time|Seq Scan/);
    }
    for (const p of await plan('settled = true AND exchange_event_id = $1')) {
      expect(p).toMatch(/rm_consolidated_by_event/);
      expect(p).not.toMatch(/rm_consolidated_by_time|Seq Scan/);
    }
  });
});
