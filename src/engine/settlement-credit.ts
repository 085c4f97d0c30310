// What settlement actually credits per trade once capital-efficiency refunds were paid early.
// The engine settles a bettor's positions in a market as one payment: the trades' payouts less what refunds
// already returned. That payment is split over the trades pro rata to their payouts when it is made, so each trade's
// credit is between 0 and its payout and the credits add up to the ledger payment to the wei.

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
