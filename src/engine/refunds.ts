// Capital-efficiency refunds: a bettor's escrow in a market only needs to cover its worst-case net loss (MXL)
// over the market's outcomes (one, two, void) given all its positions there. Anything held above that is refunded.
// The two per-outcome losses are running sums, so adding a trade costs O(1) whatever the position's history.
import type { Trade } from './types.js';

/**
 * What settlement needs of a confirmed trade. Positions keep only this (not the whole trade, whose hashes and
 * labels the read side holds), so a market's unsettled history costs little memory per trade.
 */
export type PositionTrade = Pick<Trade, 'id' | 'fillHash' | 'stake' | 'counterStake' | 'bettingOutcomeOne'>;

export const positionTrade = (t: PositionTrade): PositionTrade => ({
  id: t.id,
  fillHash: t.fillHash,
  stake: t.stake,
  counterStake: t.counterStake,
  bettingOutcomeOne: t.bettingOutcomeOne,
});

/** A bettor's confirmed, unsettled trades in one market and their net loss under each outcome. */
export class Position {
  readonly trades: PositionTrade[] = [];
  /** Net loss if outcome one wins (negative when it is a gain). */
  private lossIfOne = 0n;
  private lossIfTwo = 0n;

  add(t: PositionTrade): void {
    this.trades.push(positionTrade(t));
    if (t.bettingOutcomeOne) {
      this.lossIfOne -= t.counterStake;
      this.lossIfTwo += t.stake;
    } else {
      this.lossIfOne += t.stake;
      this.lossIfTwo -= t.counterStake;
    }
  }

  /** MXL: the most the positions can lose; void returns every stake, so it is never below 0. */
  worstCaseLoss(): bigint {
    const worst = this.lossIfOne > this.lossIfTwo ? this.lossIfOne : this.lossIfTwo;
    return worst > 0n ? worst : 0n;
  }
}
