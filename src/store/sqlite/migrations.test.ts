// Migrations that rebuild a table keep its rows and what hangs on it (indexes, listing totals' triggers).
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate } from './db.js';
import { MIGRATIONS } from './migrations.js';
import { TradingReadModels } from './read-models.js';

const before = (version: number) => MIGRATIONS.filter((m) => m.version < version);
const entry = (fill: string, bettor: string, settled: number, ord: number) => ({
  fill_hash: fill,
  bettor,
  market_hash: '0xm',
  kind: 'market',
  quarter_market_hash: null,
  exchange_event_id: 'e1',
  maker: 0,
  status: 'SUCCESS',
  settled,
  ord,
  bet_time: 1_700_000_000 + ord,
  settle_date: null,
  outcome: null,
  betting_outcome: 1,
  total_stake: 'p1',
  weighted_odds: 'p2',
  net_return: 'p3',
  settle_net_return: 'p4',
  total_return: 'p5',
});
const INSERT = `INSERT INTO rm_consolidated VALUES (@fill_hash, @bettor, @market_hash, @kind, @quarter_market_hash,
  @exchange_event_id, @maker, @status, @settled, @ord, @bet_time, @settle_date, @outcome, @betting_outcome, @total_stake,
  @weighted_odds, @net_return, @settle_net_return, @total_return)`;

describe('migration 26: consolidated entries in a rowid table', () => {
  it('keeps every entry, its unique key, the listing index and the totals triggers', () => {
    const db = new Database(':memory:');
    try {
      migrate(db, before(26));
      db.prepare(INSERT).run(entry('0xf2', '0xB1', 0, 2));
      db.prepare(INSERT).run(entry('0xf1', '0xb1', 1, 1));
      db.exec("INSERT INTO rm_consolidated_counts VALUES ('0xb1', 0, 'SUCCESS', 0, 'market', 1), ('0xb1', 1, 'SUCCESS', 0, 'market', 1)");
      migrate(db, MIGRATIONS);

      expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS[MIGRATIONS.length - 1]!.version);
      const rows = db.prepare('SELECT rowid, fill_hash, bettor, settled, ord FROM rm_consolidated ORDER BY rowid').all();
      // Copied in listing order (bet time, then creation), so rowids follow it.
      expect(rows).toEqual([
        { rowid: 1, fill_hash: '0xf1', bettor: '0xb1', settled: 1, ord: 1 },
        { rowid: 2, fill_hash: '0xf2', bettor: '0xB1', settled: 0, ord: 2 },
      ]);
      // The key is still unique, without case in the bettor.
      expect(() => db.prepare(INSERT).run(entry('0xf1', '0xB1', 1, 9))).toThrow(/UNIQUE constraint failed/);
      // A listing by bettor reads the bettor index.
      const plan = db
        .prepare("EXPLAIN QUERY PLAN SELECT fill_hash FROM rm_consolidated WHERE bettor = '0xb1' AND settled = 0 ORDER BY bet_time DESC, ord DESC")
        .all() as { detail: string }[];
      expect(plan.map((p) => p.detail).join('\n')).toMatch(/USING INDEX rm_consolidated_by_bettor/);
      // Settling an entry and deleting one still move the listing totals.
      db.prepare("UPDATE rm_consolidated SET settled = 1 WHERE fill_hash = '0xf2'").run();
      db.prepare("DELETE FROM rm_consolidated WHERE fill_hash = '0xf1'").run();
      const counts = db.prepare('SELECT bettor, settled, n FROM rm_consolidated_counts ORDER BY settled').all();
      expect(counts).toEqual([
        { bettor: '0xb1', settled: 0, n: 0 },
        { bettor: '0xb1', settled: 1, n: 1 },
      ]);
    } finally {
      db.close();
    }
  });
});

describe('migration 27: consolidated entries by market and by event', () => {
  it('lists and counts the entries of a market (or of its quarter-line legs) and of an event through their indexes', () => {
    const db = new Database(':memory:');
    try {
      migrate(db, MIGRATIONS);
      const rm = new TradingReadModels(db);
      // The statements GET /trades/consolidated?marketHash= and ?exchangeEventId= (no bettor) run, as SQLite plans them.
      const prepared: string[] = [];
      const prepare = db.prepare.bind(db);
      db.prepare = ((sql: string) => (prepared.push(sql), prepare(sql))) as typeof db.prepare;
      const plans = (query: Parameters<typeof rm.entries.page>[0]) => {
        prepared.length = 0;
        rm.entries.page(query, 'betTime', false, 0, 100);
        return prepared.map((sql) => {
          const params = Array.from(sql.matchAll(/\?/g), () => null);
          return (prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((p) => p.detail).join('\n');
        });
      };
      const byMarket = plans({ settled: true, marketHash: '0x' + 'ab'.repeat(32) });
      const byEvent = plans({ settled: false, exchangeEventId: 'e1' });
      expect(byMarket).toHaveLength(2);
      expect(byEvent).toHaveLength(2);
      // Before: both walked the (settled, bet_time, ord) index over every entry of the exchange.
      for (const plan of [...byMarket, ...byEvent]) expect(plan).not.toMatch(/rm_consolidated_by_time|SCAN rm_consolidated/);
      for (const plan of byMarket) expect(plan).toMatch(/MULTI-INDEX OR[\s\S]*rm_consolidated_by_market[\s\S]*rm_consolidated_by_quarter_market/);
      for (const plan of byEvent) expect(plan).toMatch(/rm_consolidated_by_event/);
    } finally {
      db.close();
    }
  });
});
