// Capital-efficiency refunds: a bettor's escrow in a market only needs to cover its worst-case net loss (MXL)
// over the market's outcomes (one, two, void) given all its positions there. Anything held above that is refunded.
import type { Trade } from './types.js';

/** Net loss of a set of positions if the market resolves to `outcome` (negative when it is a gain). */
function lossIf(trades: readonly Trade[], outcome: 1 | 2): bigint {
  let loss = 0n;
  for (const t of trades) {
    if (t.bettingOutcomeOne === (outcome === 1)) loss -= t.counterStake;
    else loss += t.stake;
  }
  return loss;
}

/** MXL: the most the positions can lose; void returns every stake, so it is never below 0. */
export function worstCaseLoss(trades: readonly Trade[]): bigint {
  const a = lossIf(trades, 1);
  const b = lossIf(trades, 2);
  const worst = a > b ? a : b;
  return worst > 0n ? worst : 0n;
}

export interface RefundEvent {
  id: number;
  marketHash: string;
  baseToken: string;
  bettor: string;
  /** Whether the bettor was the maker in the fill that freed the capital. */
  maker: boolean;
  fillOrderHash: string;
  amount: bigint;
  createdAt: number;
}
