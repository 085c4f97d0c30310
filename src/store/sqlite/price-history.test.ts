// Candles are a projection of the change records: however the commands are grouped into commits, and after a commit
// that rolled back and was written again, the same rows; each interval keeps its retention per market.
import { describe, expect, it } from 'vitest';
import { E18, MARKET, TOKEN, testHash, tradingFixture } from '../../../test/helpers/trading-store-fixture.js';
import { restingOrder, USDC } from '../../../test/helpers/engine-params.js';
import type { Command } from '../../engine/types.js';
import type { JournalEntry } from '../ports.js';

const DAY = 86_400_000;
/** The start of a UTC day after the fixture's own commands. */
const D = Math.ceil(1_700_000_000_000 / DAY) * DAY + DAY;
const MAKER = '0x' + 'c1'.padStart(40, '0');

/** Orders on both sides at other odds than the fixture's, fills across minutes and days, a cancel in between. */
function commands(fx: ReturnType<typeof tradingFixture>): Command[] {
  const order = (i: number, odds: bigint, one: boolean) => ({
    ...restingOrder({ orderHash: testHash('c', i), marketHash: MARKET.marketHash, maker: MAKER, token: TOKEN, size: 200n * USDC, salt: `c${i}` }),
    percentageOdds: odds * E18,
    isMakerBettingOutcomeOne: one,
  });
  const fill = (n: number, at: number, one: boolean, stake: bigint, odds: bigint): Command => ({
    ...(fx.fillCommand(n, stake) as Extract<Command, { kind: 'fill' }>),
    at,
    isTakerBettingOutcomeOne: one,
    desiredOdds: odds * E18,
  });
  return [
    { kind: 'faucet', at: D, address: MAKER, amount: 10_000n * USDC },
    { kind: 'postOrders', at: D + 1_000, markets: [MARKET], orders: [order(1, 40n, false), order(2, 45n, true), order(3, 47n, true)] },
    fill(1, D + 5_000, true, 10n * USDC, 60n), // outcome one at 60%
    fill(2, D + 30_000, false, 20n * USDC, 55n), // outcome two at 55%: outcome one traded at 45%
    { kind: 'confirmFill', at: D + 31_000, fillHash: testHash('f', 1) },
    // The next minute opens with a better order for takers of outcome one: the first minute's best odds are not it.
    { kind: 'postOrders', at: D + 65_000, markets: [MARKET], orders: [order(4, 38n, false)] },
    fill(3, D + 70_000, true, 5n * USDC, 60n),
    fill(4, D + 3 * DAY + 10_000, false, 5n * USDC, 55n),
  ];
}

const candleRows = (fx: ReturnType<typeof tradingFixture>) => fx.db.prepare('SELECT * FROM rm_candles ORDER BY interval_s, start_s').all();

describe('price history projection', () => {
  it('writes the same candles whether commands commit one by one or in one group', () => {
    // Without the last day's fill, which prunes the first day's minutes.
    const firstDay = (fx: ReturnType<typeof tradingFixture>) => commands(fx).slice(0, -1);
    const single = tradingFixture();
    for (const cmd of firstDay(single)) single.commit(cmd);
    const grouped = tradingFixture();
    grouped.commitGroup(firstDay(grouped));
    const rows = candleRows(single) as { interval_s: number; best_two: string | null }[];
    // Each minute's best odds are the book's at its end, in the group too: 40% until the next minute's 38% order.
    expect(rows.filter((r) => r.interval_s === 60).map((r) => r.best_two)).toEqual([(40n * E18).toString(), (38n * E18).toString()]);
    expect(candleRows(grouped)).toEqual(rows);
  });

  it('forgets what a rolled-back commit staged: written again, it counts once', () => {
    const fx = tradingFixture();
    const entries: JournalEntry[] = commands(fx).map(fx.apply);
    const readModels = fx.store.readModels;
    for (const [i, e] of entries.entries()) {
      if (i % 2 === 0) {
        // Projected, then rolled back as a busy or failed commit is: nothing on disk, nothing kept in memory.
        fx.db.exec('BEGIN');
        readModels.applyGroup([e.changes]);
        fx.db.exec('ROLLBACK');
        readModels.transactionEnded(false);
      }
      fx.store.commit([e]);
    }
    const reference = tradingFixture();
    for (const cmd of commands(reference)) reference.commit(cmd);
    expect(candleRows(fx)).toEqual(candleRows(reference));
  });

  it('keeps one-minute candles two days and five-minute candles fourteen, per market', () => {
    const fx = tradingFixture();
    for (const cmd of commands(fx)) fx.commit(cmd);
    const starts = (seconds: number) => (candleRows(fx) as { interval_s: number; start_s: number }[]).filter((r) => r.interval_s === seconds).map((r) => r.start_s);
    const s = D / 1000;
    // The first day's minutes went when the fourth day's first candle came; its five minutes and hours stay.
    expect(starts(60)).toEqual([s + 3 * 86_400]);
    expect(starts(300)).toEqual([s, s + 3 * 86_400]);
    expect(starts(3600)).toEqual([s, s + 3 * 86_400]);
    expect(starts(86_400)).toEqual([s, s + 3 * 86_400]);
    const [first] = fx.store.readModels.history.candles(MARKET.marketHash, '5m', 0, s, 10);
    // 60%, 45%, then 62% (the 38% order): open, high, low and close as traded; the volume is every stake of both sides.
    const stakes = fx.db.prepare('SELECT stake FROM rm_trades WHERE bet_time < ?').pluck().all(D + 300_000) as string[];
    expect(stakes).toHaveLength(6);
    expect(first).toMatchObject({
      time: s,
      open: (60n * E18).toString(),
      high: (62n * E18).toString(),
      low: (45n * E18).toString(),
      close: (62n * E18).toString(),
      volume: stakes.reduce((sum, x) => sum + BigInt(x), 0n).toString(),
    });
  });
});
