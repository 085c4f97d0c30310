// The matching walk alone: price-time priority, what it skips, the slippage bound on the average, the dust rule, the
// cross check.
import { describe, expect, it } from 'vitest';
import { ODDS_SCALE } from '../protocol/odds.js';
import { weightedTakerOdds } from '../protocol/amounts.js';
import { bestMakerOdds, crossesBook, FillWalk, highestMakerOdds, matchFill } from './matching.js';
import { OrderStore } from './order-store.js';
import { E18, MARKET, newOrder, TOKEN } from '../../test/helpers/engine-parts.js';
import type { NewOrder } from './types.js';

const TAKER = '0xb1';
const M = MARKET;

function book(...orders: Partial<NewOrder>[]) {
  const store = new OrderStore();
  const posted = orders.map((o, i) => store.post(newOrder(o), M, 1000 + i, TOKEN));
  return { side: store.sideOf(M.marketHash, true), posted, store };
}

const walk = (b: ReturnType<typeof book>, stakeWei: bigint, minTakerOdds = 0n) =>
  matchFill(b.side, TAKER, stakeWei, minTakerOdds, 5000, new FillWalk());

describe('matchFill', () => {
  it('takes the lowest maker odds first, and the oldest order first within a level', () => {
    const b = book({ percentageOdds: 45n * E18 }, { percentageOdds: 40n * E18 }, { percentageOdds: 40n * E18 });
    const w = walk(b, 10_000n);
    expect(w.orders.map((o) => o.orderHash)).toEqual([b.posted[1]!.orderHash, b.posted[2]!.orderHash, b.posted[0]!.orderHash]);
    // At 45% the taker space rounds down: the last order keeps a wei of dust.
    expect(w.matches.map((m) => m.makerStake)).toEqual([100n, 100n, 99n]);
    expect(w.remaining).toBe(10_000n - w.matches.reduce((s, m) => s + m.takerStake, 0n));
  });

  it('skips the taker’s own, expired and inactive orders, and changes nothing', () => {
    const b = book({ maker: TAKER }, { expiry: 4 }, {}, {});
    b.posted[3]!.status = 'INACTIVE';
    const before = b.posted.map((o) => ({ ...o }));
    const w = walk(b, 150n);
    expect(w.orders).toEqual([b.posted[2]]);
    expect(w.matches[0]!.takerStake).toBe(150n);
    expect(b.posted.map((o) => ({ ...o }))).toEqual(before);
  });

  it('bounds the weighted average taker odds: a worse order fills only as far as better ones make up for it', () => {
    // Taker odds 60% (space 150) then 55% (space 122); bound 58%: 150 at 60% pays for 100 at 55% (average 58% exactly).
    const b = book({ percentageOdds: 40n * E18 }, { percentageOdds: 45n * E18 });
    const w = walk(b, 10_000n, ODDS_SCALE - 42n * E18);
    expect(w.orders).toEqual([b.posted[0], b.posted[1]]);
    expect(w.matches.map((m) => [m.takerStake, m.makerStake])).toEqual([[150n, 100n], [100n, 81n]]);
    expect(weightedTakerOdds(w.matches)).toBe(58n * E18);
    // One more wei at 55% would take the average below the bound.
    expect((150n * 60n * E18 + 101n * 55n * E18) / 251n).toBeLessThan(58n * E18);
    // Nothing better than the bound came first: an order worse than it takes nothing.
    const none = walk(b, 10_000n, ODDS_SCALE - 39n * E18);
    expect(none.matches).toEqual([]);
    expect(none.sawLiquidity).toBe(true);
    expect(walk(book(), 10n).sawLiquidity).toBe(false);
  });

  it('dust rule: a stake that buys no maker wei matches nothing, and an order with dust left is no liquidity', () => {
    // At 45%, one taker wei buys 0.81... maker wei: nothing.
    const b = book({ percentageOdds: 45n * E18 });
    expect(walk(b, 1n).matches).toEqual([]);
    b.posted[0]!.pendingFillAmount = 99n;
    expect(walk(b, 1000n).sawLiquidity).toBe(false);
  });
});

describe('best odds and the cross check', () => {
  it('reads the most and least aggressive takeable makers of a side', () => {
    const b = book({ percentageOdds: 40n * E18 }, { percentageOdds: 45n * E18 }, { percentageOdds: 50n * E18, expiry: 4 });
    expect(bestMakerOdds(b.side, 5000)).toBe(40n * E18);
    expect(highestMakerOdds(b.side, 5000)).toBe(45n * E18);
    expect(bestMakerOdds(undefined, 0)).toBeUndefined();
  });

  it('no crossed book: opposite odds may sum to 100% but not past it', () => {
    const b = book({ percentageOdds: 45n * E18 });
    expect(crossesBook(b.side, 55n * E18, 5000)).toBe(false);
    expect(crossesBook(b.side, 56n * E18, 5000)).toBe(true);
    expect(crossesBook(undefined, 99n * E18, 5000)).toBe(false);
  });
});
