// Migrations that rebuild a table keep its rows and what hangs on it (indexes, listing totals' triggers).
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate } from './db.js';
import { MIGRATIONS } from './migrations.js';

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

      expect(db.pragma('user_version', { simple: true })).toBe(26);
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
