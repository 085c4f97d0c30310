// What settlement actually credits per trade once capital-efficiency refunds were paid early.
// The engine settles a bettor's positions in a market as one payment: the trades' payouts less what refunds
// already returned. That payment is split over the trades pro rata to their payouts, so each trade's credit is
// between 0 and its payout and the credits add up to the ledger payment to the wei.
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
 * Each trade's payout and credit when a bettor's position in a market settles under `outcome` with `refunded` wei
 * already returned early: the read side records these per trade, from the trades it holds, oldest first.
 */
export function settleTrades(trades: readonly PositionTrade[], outcome: Outcome, refunded: bigint): { payout: bigint; credit: bigint }[] {
  const payouts = trades.map((t) => tradePayout(t, outcome));
  const credits = splitSettlementCredit(payouts, refunded);
  return payouts.map((payout, i) => ({ payout, credit: credits[i]! }));
}
