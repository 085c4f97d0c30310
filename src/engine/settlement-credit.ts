// What settlement actually credits per trade once capital-efficiency refunds were paid early.
// The engine settles a bettor's positions in a market as one payment: the trades' payouts less what refunds
// already returned. That payment is split over the trades pro rata to their payouts, so each trade's credit is
// between 0 and its payout and the credits add up to the ledger payment to the wei. The fee on a position's winnings
// is split over its trades the same way first.
import { tradePayout, type PositionTrade } from './refunds.js';
import type { Outcome } from './types.js';

/**
 * Splits `total - refunded` over payouts pro rata (largest remainder): each share is floor(payout * credit / total);
 * the wei left over go one each to the largest remainders, ties to the earlier trade.
 */
export function splitSettlementCredit(payouts: readonly bigint[], refunded: bigint): bigint[] {
  const total = payouts.reduce((s, p) => s + p, 0n);
  const credit = total - refunded;
  if (refunded === 0n) return [...payouts];
  if (credit < 0n) throw new Error('refunds exceed the settlement payouts');
  if (total === 0n) return payouts.map(() => 0n);
  const shares = payouts.map((p) => (p * credit) / total);
  let left = credit - shares.reduce((s, x) => s + x, 0n);
  const byRemainder = payouts
    .map((p, i) => ({ i, rem: (p * credit) % total }))
    .sort((a, b) => (a.rem === b.rem ? a.i - b.i : a.rem > b.rem ? -1 : 1));
  for (const { i } of byRemainder) {
    if (left === 0n) break;
    shares[i]! += 1n;
    left--;
  }
  return shares;
}

/**
 * Each trade's payout, fee and credit when a bettor's position in a market settles under `outcome` with `refunded`
 * wei already returned early and `fee` taken on its winnings: the read side records these per trade, from the trades
 * it holds, oldest first. The fee is split pro rata to the payouts (losing trades pay none; no share exceeds its
 * payout), then the refunds pro rata to what is left of each payout, so the credits add up to payout - refunded - fee.
 */
export function settleTrades(
  trades: readonly PositionTrade[],
  outcome: Outcome,
  refunded: bigint,
  fee = 0n,
): { payout: bigint; credit: bigint; fee: bigint }[] {
  const payouts = trades.map((t) => tradePayout(t, outcome));
  // What each trade keeps of its payout after the fee: (total - fee) split pro rata, each share within its payout.
  const kept = splitSettlementCredit(payouts, fee);
  const credits = splitSettlementCredit(kept, refunded);
  return payouts.map((payout, i) => ({ payout, credit: credits[i]!, fee: payout - kept[i]! }));
}
