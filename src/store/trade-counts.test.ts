// The listing totals (rm_trade_counts) a group commit leaves equal counting the trade rows, when one group records
// trades of the same makers and taker, gives fills their outcome, and settles trades, some confirmed only after their
// market was reported in that same group; and a maker's trades of a group cost one write of the totals, not one each.
import { describe, expect, it } from 'vitest';
import { USDC } from '../engine/test-params.js';
import { MARKET, testHash, tradingFixture } from './test-trading.js';
import type { Command } from '../engine/types.js';
import type { Db } from './db.js';

const KEY = 'lower(bettor) AS bettor, settled, status, maker, lower(base_token) AS token, lower(affiliate) AS affiliate';

/** The totals kept, and the totals counted from the rows: each non-zero, in one order. */
function totals(db: Db) {
  return {
    kept: db.prepare(`SELECT ${KEY}, n FROM rm_trade_counts WHERE n <> 0 ORDER BY 1, 2, 3, 4, 5, 6`).all(),
    counted: db.prepare(`SELECT ${KEY}, COUNT(*) AS n FROM rm_trades GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6`).all(),
  };
}

describe('listing totals of a group commit', () => {
  it('equal counting the trades after recording, executing and settling in shared groups', () => {
    const fx = tradingFixture();
    const group = (cmds: Command[]) => fx.store.commit(cmds.map((cmd) => fx.apply(cmd)));
    const confirm = (n: number): Command => ({ kind: 'confirmFill', at: fx.next(), fillHash: testHash('f', n) });

    // Three fills of 50 USDC: each takes from the makers' 40 USDC orders in turn (six trades per pair of fills).
    group([fx.fillCommand(1, 50n * USDC), fx.fillCommand(2, 50n * USDC), confirm(1)]);
    let t = totals(fx.db);
    expect(t.kept).toEqual(t.counted);
    expect((t.counted as { n: number }[]).reduce((sum, r) => sum + r.n, 0)).toBe(8);

    // The market is reported, and fill 2 is confirmed after it in the same group: its trades settle on their own.
    group([
      fx.fillCommand(3, 10n * USDC),
      { kind: 'reportMarkets', at: fx.next(), reports: [{ marketHash: MARKET.marketHash, outcome: 1 }] },
      confirm(2),
    ]);
    t = totals(fx.db);
    expect(t.kept).toEqual(t.counted);
    const settled = fx.db.prepare("SELECT COUNT(*) FROM rm_trades WHERE settled = 1 AND status = 'SUCCESS'").pluck().get();
    expect(settled).toBe(8);
  });

  it('writes the totals once per bettor and state however many of a group’s trades share them', () => {
    const fx = tradingFixture(1000n * USDC);
    // Ten fills of one taker against the first maker's order, in one group: 20 trades, two bettors.
    const entries = Array.from({ length: 10 }, (_, i) => fx.apply(fx.fillCommand(i + 1, USDC)));
    // Rows written, triggers' included.
    const changes = fx.db.prepare('SELECT total_changes()').pluck();
    const changesBefore = changes.get() as number;
    fx.store.commit(entries);
    const rowsChanged = (changes.get() as number) - changesBefore;
    // Per fill: the journal row, the fill, the order, two trades; once for the group: the read side's position and the
    // two totals (the maker's and the taker's).
    expect(rowsChanged).toBe(10 * 5 + 1 + 2);
    const t = totals(fx.db);
    expect(t.kept).toEqual(t.counted);
  });
});
