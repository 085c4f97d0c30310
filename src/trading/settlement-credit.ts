// What settlement actually credits per trade once capital-efficiency refunds were paid early.
// The engine settles a bettor's positions in a market as one payment: the trades' payouts less what refunds
// already returned. That payment is split over the trades pro rata to their payouts, so each trade's credit is
// between 0 and its payout and the credits add up to the ledger payment to the wei.
import type { Engine } from '../engine/engine.js';
import type { Trade } from '../engine/types.js';
import { tradeIndexOf, type TradeIndex } from './trade-index.js';

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

/** Refund-aware settlement figures of trades, for /trades and /trades/consolidated. */
export class SettlementView {
  /** Settled trades never change again, so their credits are computed once. */
  private readonly credits = new WeakMap<Trade, bigint>();

  constructor(
    private readonly engine: Engine,
    private readonly index: TradeIndex,
  ) {}

  /** The bettor received capital-efficiency refunds in this market. */
  hasRefunds(marketHash: string, bettor: string): boolean {
    return this.engine.refundedTo(marketHash, bettor) > 0n;
  }

  /**
   * Wei that settlement credited for this trade net of its share of the bettor's refunds in the market, or
   * undefined while unsettled. The refunds were taken from the positions held when the market was reported, which
   * all settled at that moment (the earliest settleDate); a fill confirmed after the report settles on its own and
   * keeps its whole payout.
   */
  credit(t: Trade): bigint | undefined {
    if (!t.settled) return undefined;
    const cached = this.credits.get(t);
    if (cached !== undefined) return cached;
    const refunded = this.engine.refundedTo(t.marketHash, t.bettor);
    const settled = this.index.tradesOf(t.marketHash, t.bettor).filter((x) => x.settled && x.status === 'SUCCESS');
    const reportedAt = settled.reduce((min, x) => Math.min(min, x.settleDate!), Infinity);
    const pool = refunded === 0n ? [t] : settled.filter((x) => x.settleDate === reportedAt);
    if (!pool.includes(t)) {
      this.credits.set(t, t.payout ?? 0n);
    } else {
      const shares = splitSettlementCredit(pool.map((x) => x.payout ?? 0n), refunded);
      pool.forEach((x, i) => this.credits.set(x, shares[i]!));
    }
    return this.credits.get(t)!;
  }

  /** Net return as settlement paid it: credit less stake (equals payout less stake when there were no refunds). */
  settleNetReturnWei(t: Trade): bigint {
    const credit = this.credit(t);
    return credit === undefined ? 0n : credit - t.stake;
  }
}

const views = new WeakMap<Engine, SettlementView>();

/** The one settlement view of an engine (created on first use). */
export function settlementViewOf(engine: Engine): SettlementView {
  let view = views.get(engine);
  if (!view) views.set(engine, (view = new SettlementView(engine, tradeIndexOf(engine))));
  return view;
}
