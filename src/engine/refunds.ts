// Capital-efficiency refunds: a bettor's escrow in a market only needs to cover its worst-case net loss (MXL)
// over the market's outcomes (one, two, void) given all its positions there. Anything held above that is refunded.
// A position is four running sums, so adding a trade costs O(1) and a position's memory does not grow with its
// trades: settlement needs only the totals, and the read side splits them per trade from the trades it recorded.
import type { Outcome, Trade } from './types.js';

/** What a position needs of a confirmed trade. */
export type PositionTrade = Pick<Trade, 'stake' | 'counterStake' | 'bettingOutcomeOne'>;

/** A position's sums, as snapshots carry them. */
export interface PositionTotals {
  /** Stakes and counterparty stakes of the trades backing outcome one... */
  stakeOne: bigint;
  counterOne: bigint;
  /** ...and of those backing outcome two. */
  stakeTwo: bigint;
  counterTwo: bigint;
}

/** What one trade pays under an outcome: its stake back on void, stake plus the counterparty's on a win, else 0. */
export function tradePayout(t: PositionTrade, outcome: Outcome): bigint {
  if (outcome === 0) return t.stake;
  return (outcome === 1) === t.bettingOutcomeOne ? t.stake + t.counterStake : 0n;
}

/** A bettor's confirmed, unsettled trades in one market, as sums. */
export class Position implements PositionTotals {
  stakeOne = 0n;
  counterOne = 0n;
  stakeTwo = 0n;
  counterTwo = 0n;

  addTotals(t: PositionTotals): void {
    this.stakeOne += t.stakeOne;
    this.counterOne += t.counterOne;
    this.stakeTwo += t.stakeTwo;
    this.counterTwo += t.counterTwo;
  }

  add(t: PositionTrade): void {
    if (t.bettingOutcomeOne) {
      this.stakeOne += t.stake;
      this.counterOne += t.counterStake;
    } else {
      this.stakeTwo += t.stake;
      this.counterTwo += t.counterStake;
    }
  }

  totals(): PositionTotals {
    return { stakeOne: this.stakeOne, counterOne: this.counterOne, stakeTwo: this.stakeTwo, counterTwo: this.counterTwo };
  }

  /** Every stake: what escrow took for the position (before refunds). */
  stakes(): bigint {
    return this.stakeOne + this.stakeTwo;
  }

  /** What the position's trades pay together under an outcome (the sum of tradePayout over them). */
  payout(outcome: Outcome): bigint {
    if (outcome === 0) return this.stakes();
    return outcome === 1 ? this.stakeOne + this.counterOne : this.stakeTwo + this.counterTwo;
  }

  /** MXL: the most the positions can lose; void returns every stake, so it is never below 0. */
  worstCaseLoss(): bigint {
    const stakes = this.stakes();
    const lossIfOne = stakes - this.payout(1);
    const lossIfTwo = stakes - this.payout(2);
    const worst = lossIfOne > lossIfTwo ? lossIfOne : lossIfTwo;
    return worst > 0n ? worst : 0n;
  }
}
