// The listing totals a group commit leaves (rm_trade_counts, rm_consolidated_counts) equal counting the rows, when
// one group records trades of the same makers and taker, gives fills their outcome and settles trades, some confirmed
// only after their market was reported in that same group; and a group writes each bettor's totals once, however
// many of its trades and entries share them.
import { describe, expect, it } from 'vitest';
import { USDC } from '../../../test/helpers/engine-params.js';
import { MARKET, testHash, tradingFixture } from '../../../test/helpers/trading-store-fixture.js';
import type { Command } from '../../engine/types.js';
import type { Db } from './db.js';

const TRADE_KEY = 'lower(bettor), settled, status, maker, lower(base_token), lower(affiliate)';
const ENTRY_KEY = 'lower(bettor), settled, status, maker, kind';

/** The non-zero totals kept in `table`, and those counted from the rows of `rows`, in one order. */
function totals(db: Db, table: string, rows: string, key: string) {
  return {
    kept: db.prepare(`SELECT ${key}, n FROM ${table} WHERE n <> 0 ORDER BY 1, 2, 3, 4, 5`).raw().all(),
    counted: db.prepare(`SELECT ${key}, COUNT(*) FROM ${rows} GROUP BY ${key} ORDER BY 1, 2, 3, 4, 5`).raw().all(),
  };
}

function expectTotalsMatchRows(db: Db): void {
  const trades = totals(db, 'rm_trade_counts', 'rm_trades', TRADE_KEY);
  expect(trades.kept).toEqual(trades.counted);
  const entries = totals(db, 'rm_consolidated_counts', 'rm_consolidated', ENTRY_KEY);
  expect(entries.kept).toEqual(entries.counted);
}

/** Statements of each kind that write a totals table. */
const totalsWrites = (statements: readonly string[]) => ({
  trades: statements.filter((s) => s.startsWith('INSERT INTO rm_trade_counts')).length,
  entries: statements.filter((s) => s.startsWith('INSERT INTO rm_consolidated_counts')).length,
});

describe('listing totals of a group commit', () => {
  it('equal counting the rows after recording, executing and settling in shared groups', () => {
    const fx = tradingFixture();
    const confirm = (n: number): Command => ({ kind: 'confirmFill', at: fx.next(), fillHash: testHash('f', n) });

    // Fills of 50 USDC take from the makers' 40 USDC orders in turn.
    fx.commitGroup([fx.fillCommand(1, 50n * USDC), fx.fillCommand(2, 50n * USDC), confirm(1)]);
    expectTotalsMatchRows(fx.db);
    expect(fx.db.prepare('SELECT COUNT(*) FROM rm_trades').pluck().get()).toBe(8);
    expect(fx.db.prepare('SELECT COUNT(*) FROM rm_consolidated').pluck().get()).toBe(3);

    // In one group: fill 2 is confirmed (its entries listed), the market is reported (settling fill 1's trades and
    // entries, written before, and fill 2's, written in this group), and fill 3 is confirmed after the report: its
    // trades and entries settle on their own.
    fx.commitGroup([
      fx.fillCommand(3, 10n * USDC),
      confirm(2),
      { kind: 'reportMarkets', at: fx.next(), reports: [{ marketHash: MARKET.marketHash, outcome: 1 }] },
      confirm(3),
    ]);
    expectTotalsMatchRows(fx.db);
    expect(fx.db.prepare("SELECT COUNT(*) FROM rm_trades WHERE settled = 1 AND status = 'SUCCESS'").pluck().get()).toBe(10);
    expect(fx.db.prepare('SELECT COUNT(*) FROM rm_consolidated WHERE settled = 1').pluck().get()).toBe(8);
  });

  it('writes each bettor’s totals once per group however many trades and entries share them', () => {
    const fx = tradingFixture(1000n * USDC);
    // Ten fills of one taker against the first maker's order: 20 trades of two bettors.
    const fills = Array.from({ length: 10 }, (_, i) => fx.fillCommand(i + 1, USDC));
    expect(totalsWrites(fx.commitGroup(fills))).toEqual({ trades: 2, entries: 0 });
    expectTotalsMatchRows(fx.db);
    // Their confirmations: each bettor's trades leave PENDING for SUCCESS, and 20 entries are listed under two totals.
    const confirmations = fills.map((_, i): Command => ({ kind: 'confirmFill', at: fx.next(), fillHash: testHash('f', i + 1) }));
    expect(totalsWrites(fx.commitGroup(confirmations))).toEqual({ trades: 4, entries: 2 });
    expectTotalsMatchRows(fx.db);
    expect(fx.db.prepare('SELECT COUNT(*) FROM rm_consolidated').pluck().get()).toBe(20);
  });
});
