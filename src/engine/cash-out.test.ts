// The cash-out quote alone: a position that pays the same either way, or differs by less than one wei of stake
// returns at the best price (the rounding a full cash out leaves), has nothing to cash out.
import { describe, expect, it } from 'vitest';
import { quoteHedge } from './cash-out.js';
import { OrderStore } from './order-store.js';
import { E18, MARKET, newOrder, refusalOf, TOKEN } from '../../test/helpers/engine-parts.js';

const BETTOR = '0xb1';
/** Makers backing outcome one at `percent`: the side a bettor who backs outcome two takes. */
function sideAt(percent: bigint, totalBetSize = 1_000_000n, oddsScale = E18) {
  const store = new OrderStore();
  store.post(newOrder({ percentageOdds: percent * oddsScale, totalBetSize, isMakerBettingOutcomeOne: true }), MARKET, 1000, TOKEN);
  return store.sideOf(MARKET.marketHash, true);
}

describe('quoteHedge', () => {
  it('answers NOTHING_TO_CASH_OUT for an even position and for a rounding residue, and quotes a real imbalance', () => {
    const side = sideAt(90n);
    // Owed one wei more if outcome one wins: at 90%, a wei of stake would return ten, so nothing can hedge one.
    const residue = { stakeOne: 10n, counterOne: 1n, stakeTwo: 0n, counterTwo: 10n };
    expect(refusalOf(() => quoteHedge(residue, side, BETTOR, 5000))).toBe('NOTHING_TO_CASH_OUT');
    expect(refusalOf(() => quoteHedge({ stakeOne: 5n, counterOne: 5n, stakeTwo: 5n, counterTwo: 5n }, side, BETTOR, 5000))).toBe('NOTHING_TO_CASH_OUT');
    // Owed 1,000 more if one wins: taking two at taker odds 10% for 100 returns the 1,000.
    const real = quoteHedge({ stakeOne: 1000n, counterOne: 1000n, stakeTwo: 0n, counterTwo: 1000n }, side, BETTOR, 5000);
    expect([real.isTakerBettingOutcomeOne, real.stakeWei]).toEqual([false, 100n]);
  });

  it('quotes a hedge whose last, partly taken level rounds its return a few wei short: no bigger stake would stay within it', () => {
    // 10 USDC backing outcome one at taker odds 65% is owed 15.384615; makers offer 20 USDC on outcome one at 60.875%.
    const side = sideAt(60_875n, 20_000_000n, 10n ** 15n);
    const quote = quoteHedge({ stakeOne: 10_000_000n, counterOne: 5_384_615n, stakeTwo: 0n, counterTwo: 0n }, side, BETTOR, 5000);
    // 6,019,230 at taker odds 39.125% returns 15,384,613: 2 wei short, and one more wei of stake would return 2.56 more.
    expect([quote.isTakerBettingOutcomeOne, quote.stakeWei, quote.desiredOdds]).toEqual([false, 6_019_230n, 39_125n * 10n ** 15n]);
  });

  it('still refuses a hedge the book is short of by more than rounding', () => {
    const side = sideAt(60_875n, 9_000_000n, 10n ** 15n);
    expect(refusalOf(() => quoteHedge({ stakeOne: 10_000_000n, counterOne: 5_384_615n, stakeTwo: 0n, counterTwo: 0n }, side, BETTOR, 5000))).toBe('INSUFFICIENT_SPACE');
  });

  it('quotes, when asked for a partial quote, the part of the hedge a short book covers, and what it leaves uncovered', () => {
    const side = sideAt(60_875n, 9_000_000n, 10n ** 15n);
    const position = { stakeOne: 10_000_000n, counterOne: 5_384_615n, stakeTwo: 0n, counterTwo: 0n };
    // The whole 9 USDC order: 5,784,394 at taker odds 39.125% returns 14,784,393 (its maker's 8,999,999) of the
    // 15,384,615 the hedge needs; owed 14,784,393 whatever the result (15,784,394 staked on a void), 8,999,999 above
    // the stake; 600,222 of the return is left to hedge.
    expect(quoteHedge(position, side, BETTOR, 5000, 0n, true)).toEqual({
      isTakerBettingOutcomeOne: false,
      stakeWei: 5_784_394n,
      desiredOdds: 39_125n * 10n ** 15n,
      value: 8_999_999n,
      paidNow: 14_784_393n,
      uncovered: 600_222n,
    });
    // A book covering it all gives the whole quote, nothing partial about it; an empty one, the refusal.
    expect(quoteHedge(position, sideAt(60_875n, 20_000_000n, 10n ** 15n), BETTOR, 5000, 0n, true).uncovered).toBeUndefined();
    expect(refusalOf(() => quoteHedge(position, undefined, BETTOR, 5000, 0n, true))).toBe('INSUFFICIENT_SPACE');
  });
});
