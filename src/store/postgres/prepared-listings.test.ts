import type pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { noPostgres, postgresForSuite, postgresSuite } from '../../../test/helpers/postgres.js';
import { openPool } from './pool.js';
import { PreparedListings, sqlBoolean, sqlTradeStatus, type StatementRunner } from './prepared-listings.js';

/** A runner that records what it was asked, answering with no rows. */
function recorder(): StatementRunner & { asked: unknown[] } {
  const asked: unknown[] = [];
  return {
    asked,
    query: <R extends pg.QueryResultRow>(...args: unknown[]) => {
      asked.push(args.length === 1 ? args[0] : args);
      return Promise.resolve({ rows: [] as R[] } as pg.QueryResult<R>);
    },
  };
}

describe('prepared listings', () => {
  it('names each statement text once, the same name on each run, and runs texts past the bound unprepared', async () => {
    const pool = recorder();
    const unprepared = recorder();
    const listings = new PreparedListings(pool as unknown as pg.Pool, unprepared, 2);
    await listings.query('SELECT $1::int', [1]);
    await listings.query('SELECT $1::int', [2]);
    await listings.query('SELECT $1::text', ['a']);
    await listings.query('SELECT $1::bigint', [3]);
    await listings.query('SELECT $1::int', [4]);
    const named = pool.asked as { name: string; text: string; values: unknown[] }[];
    expect(named.map((q) => [q.text, q.values])).toEqual([
      ['SELECT $1::int', [1]],
      ['SELECT $1::int', [2]],
      ['SELECT $1::text', ['a']],
      ['SELECT $1::int', [4]],
    ]);
    expect(named[0]!.name).toMatch(/^listing_[0-9a-f]{24}$/);
    expect(named[1]!.name).toBe(named[0]!.name);
    expect(named[3]!.name).toBe(named[0]!.name);
    expect(named[2]!.name).not.toBe(named[0]!.name);
    // A third shape is past the bound of 2: it runs on the unprepared runner, and is not counted.
    expect(unprepared.asked).toEqual([['SELECT $1::bigint', [3]]]);
    expect(listings.shapes).toBe(2);
  });

  it('writes flags and statuses as SQL text from a fixed set', () => {
    expect([sqlBoolean(true), sqlBoolean(false)]).toEqual(['true', 'false']);
    expect((['PENDING', 'SUCCESS', 'FAILED'] as const).map(sqlTradeStatus)).toEqual(["'PENDING'", "'SUCCESS'", "'FAILED'"]);
  });
});

describe.skipIf(noPostgres)(postgresSuite('prepared listings on PostgreSQL'), () => {
  const server = postgresForSuite();
  const pools: pg.Pool[] = [];
  afterEach(async () => {
    for (const p of pools.splice(0)) await p.end();
  });

  it('plans a statement shape once per connection and reuses that plan for every value', async () => {
    const url = await server().createDatabase();
    const listingPool = openPool(url, 1, { genericPlans: true });
    const pool = openPool(url, 1);
    pools.push(listingPool, pool);
    expect((await listingPool.query<{ plan_cache_mode: string }>('SHOW plan_cache_mode')).rows[0]!.plan_cache_mode).toBe('force_generic_plan');
    expect((await pool.query<{ plan_cache_mode: string }>('SHOW plan_cache_mode')).rows[0]!.plan_cache_mode).toBe('auto');
    await pool.query('CREATE TABLE t (bettor text NOT NULL, n int NOT NULL)');
    await pool.query("INSERT INTO t SELECT 'b' || (i % 7), i FROM generate_series(1, 100) i");
    const listings = new PreparedListings(listingPool, pool);
    const text = 'SELECT count(*)::int AS n FROM t WHERE bettor = $1';
    const counts = [];
    for (let i = 0; i < 7; i++) counts.push((await listings.query<{ n: number }>(text, [`b${i}`])).rows[0]!.n);
    expect(counts).toEqual([14, 15, 15, 14, 14, 14, 14]);
    // Seven runs on the one connection: one prepared statement, its plan generic every time, never a custom one.
    const { rows } = await listingPool.query<{ statement: string; generic_plans: string; custom_plans: string }>(
      "SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements WHERE name LIKE 'listing_%'",
    );
    expect(rows.map((r) => [r.statement, Number(r.generic_plans), Number(r.custom_plans)])).toEqual([[text, 7, 0]]);
  });
});
