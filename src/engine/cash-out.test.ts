// The cash-out quote alone: a position that pays the same either way, or differs by less than one wei of stake
// returns at the best price (the rounding a full cash out leaves), has nothing to cash out.
import { describe, expect, it } from 'vitest';
import { quoteHedge } from './cash-out.js';
import { OrderStore } from './order-store.js';
import { E18, MARKET, newOrder, refusalOf, TOKEN } from '../../test/helpers/engine-parts.js';

const BETTOR = '0xb1';
/** Makers backing outcome one at `percent`: the side a bettor who backs outcome two takes. */
function sideAt(percent: bigint) {
  const store = new OrderStore();
  store.post(newOrder({ percentageOdds: percent * E18, totalBetSize: 1_000_000n, isMakerBettingOutcomeOne: true }), MARKET, 1000, TOKEN);
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
});
