// The checks of a replace (a cancel and new orders in one step, all or nothing): every refusal is found before
// anything changes. What the cancel would free (its orders' exposure, their places on the books) is counted, then
// each new order is checked as posting would check it after the orders before it, so the real cancel and post that
// follow cannot fail. Reads only.
import { DomainError } from './errors.js';
import { highestMakerOdds, wouldCross } from './matching.js';
import { hasFillableSpace } from './order-space.js';
import type { OrderLifecycle } from './order-lifecycle.js';
import type { OrderStore } from './order-store.js';
import type { ReplayGuards } from './replay-guards.js';
import type { Command, MarketRef } from './types.js';

export interface ReplaceCheckParts {
  orders: OrderStore;
  guards: ReplayGuards;
  lifecycle: OrderLifecycle;
  /** Wallet balance not yet committed to open orders or pending taker stakes. */
  freeBalance(address: string): bigint;
  /** Whether a market takes new orders now. */
  takesOrders(market: MarketRef | undefined): boolean;
}

export function checkReplacement(parts: ReplaceCheckParts, cmd: Extract<Command, { kind: 'replaceOrders' }>): void {
  const { orders, guards, lifecycle } = parts;
  const { maker, at } = cmd;
  const cancelled = lifecycle.cancellable(maker, cmd.orderHashes);
  const leaving = new Set(cancelled.map((o) => o.orderHash));
  let free = parts.freeBalance(maker);
  for (const o of cancelled) free += o.totalBetSize - o.fillAmount - o.pendingFillAmount;
  const marketByHash = new Map(cmd.markets.map((m) => [m.marketHash, m]));
  const seen = new Set<string>();
  /** Per book side (market and outcome): the highest odds of the new orders checked so far. */
  const posted = new Map<string, bigint>();
  cmd.orders.forEach((n, i) => {
    const what = `orders[${i}] (${n.orderHash})`;
    if (n.maker !== maker) throw new DomainError('MAKER_SIGNATURE_MISMATCH', `${what} is not signed by the cancelling maker ${maker}`);
    if (!parts.takesOrders(marketByHash.get(n.marketHash))) throw new DomainError('MARKET_NOT_TRADEABLE', `${what}: its market takes no orders`);
    if (seen.has(n.orderHash) || orders.has(n.orderHash) || guards.isClosedOrder(n.orderHash)) {
      throw new DomainError('ORDERS_ALREADY_EXIST', `${what} was already posted`);
    }
    seen.add(n.orderHash);
    if (free < n.totalBetSize) throw new DomainError('INSUFFICIENT_BALANCE', `${what}: ${maker} cannot cover the new orders once the cancel is done`);
    free -= n.totalBetSize;
    const opposite = `${n.marketHash}:${!n.isMakerBettingOutcomeOne}`;
    const onBook = highestMakerOdds(orders.sideOf(n.marketHash, !n.isMakerBettingOutcomeOne), at, leaving);
    const batch = posted.get(opposite);
    const best = onBook === undefined || (batch !== undefined && batch > onBook) ? batch : onBook;
    if (wouldCross(best, n.percentageOdds)) throw new DomainError('ORDER_WOULD_CROSS', `${what} would cross the opposite side of its book`);
    const same = `${n.marketHash}:${n.isMakerBettingOutcomeOne}`;
    const prior = posted.get(same);
    if (hasFillableSpace({ totalBetSize: n.totalBetSize, fillAmount: 0n, pendingFillAmount: 0n, percentageOdds: n.percentageOdds }) && (prior === undefined || n.percentageOdds > prior)) {
      posted.set(same, n.percentageOdds);
    }
  });
}
