// Every change of an order's amounts or status goes through here, so its maker's exposure, the book, the open-order
// index, the deadlines and the change records stay in step with it.
// Invariants: an order is on its book exactly while open (ACTIVE or INACTIVE); it is ACTIVE only with more than dust
// left to match (the dust rule), INACTIVE while pending fills hold the rest, FILLED once filled with none pending;
// its maker's exposure moves by exactly the change of orderExposure; a closed order with no fill pending leaves
// memory and is remembered by the replay guards.
import type { ChangeLog } from './change-log.js';
import type { Commitments } from './commitments.js';
import type { Liveness } from './liveness.js';
import { NO_PENDING_FILLS } from './order-pack.js';
import { hasFillableSpace, isOpen, orderExposure } from './order-space.js';
import type { OrderStore } from './order-store.js';
import { stateOf } from './order-views.js';
import type { ReplayGuards } from './replay-guards.js';
import type { CancelResult, Order, OrderCancelReason, OrderStatus } from './types.js';

export class OrderLifecycle {
  /** Hashes a cancel saw, cleared per use. */
  private readonly seenScratch = new Set<string>();

  constructor(
    private readonly orders: OrderStore,
    private readonly commitments: Commitments,
    private readonly guards: ReplayGuards,
    private readonly liveness: Liveness,
    private readonly log: ChangeLog,
  ) {}

  /** Closes an open order (or marks a closed one) with `status`. */
  setStatus(o: Order, status: OrderStatus, at: number): void {
    const wasOpen = isOpen(o);
    const exposureBefore = orderExposure(o);
    o.status = status;
    this.updated(o, wasOpen, exposureBefore, at);
  }

  /** Cancels an open order, saying why (its records and the read side carry the reason). */
  private cancelOne(o: Order, reason: OrderCancelReason, at: number): void {
    o.cancelReason = reason;
    this.setStatus(o, 'CANCELLED', at);
  }

  /** A fill reserves `makerStake` of an open order until the chain executes it. */
  reserve(o: Order, fillHash: string, makerStake: bigint, at: number): void {
    const exposureBefore = orderExposure(o);
    o.pendingFillAmount += makerStake;
    if (o.pendingFills === NO_PENDING_FILLS) o.pendingFills = new Map();
    o.pendingFills.set(fillHash, makerStake);
    if (!hasFillableSpace(o)) o.status = 'INACTIVE';
    this.updated(o, true, exposureBefore, at);
  }

  /** The chain executed (`funded`) or failed a fill: its reservation becomes filled, or free again. */
  release(o: Order, fillHash: string, makerStake: bigint, funded: boolean, at: number): void {
    const wasOpen = isOpen(o);
    const exposureBefore = orderExposure(o);
    o.pendingFillAmount -= makerStake;
    // The last pending fill takes the map with it: deleting a Map's last entry allocates it a fresh empty table.
    if (o.pendingFills.size === 1 && o.pendingFills.has(fillHash)) o.pendingFills = NO_PENDING_FILLS;
    else o.pendingFills.delete(fillHash);
    if (funded) o.fillAmount += makerStake;
    if (wasOpen) {
      const exhausted = !hasFillableSpace(o);
      if (exhausted && o.pendingFillAmount === 0n) o.status = 'FILLED';
      else o.status = exhausted ? 'INACTIVE' : 'ACTIVE';
    }
    this.updated(o, wasOpen, exposureBefore, at);
  }

  /** A maker's cancel: each of its open orders with free space is cancelled, the rest say why not. */
  cancel(maker: string, orderHashes: readonly string[], at: number): CancelResult {
    const result: CancelResult = { cancelledCount: 0, orders: [], notCancelled: [] };
    const seen = this.seenScratch;
    // Clearing a Set allocates a new table: only when the last use filled it.
    if (seen.size > 0) seen.clear();
    for (const hash of orderHashes) {
      const o = this.orders.get(hash);
      if (seen.has(hash)) continue;
      if (orderHashes.length > 1) seen.add(hash);
      const refused = whyNotCancellable(o, maker);
      if (o === undefined || refused !== undefined) {
        result.notCancelled.push({ orderHash: hash, reason: refused ?? 'not_found_or_inactive' });
      } else {
        this.cancelOne(o, 'maker_cancel', at);
        result.cancelledCount++;
        result.orders.push({
          orderHash: hash,
          pendingFills: o.pendingFills.size === 0 ? [] : [...o.pendingFills].map(([fillHash, amount]) => ({ fillHash, pendingFillAmount: amount.toString() })),
        });
      }
    }
    return result;
  }

  /** The orders among `orderHashes` that cancel() would cancel now (each once). Changes nothing. */
  cancellable(maker: string, orderHashes: readonly string[]): Order[] {
    const found = new Map<string, Order>();
    for (const hash of orderHashes) {
      const o = this.orders.get(hash);
      if (o !== undefined && whyNotCancellable(o, maker) === undefined) found.set(hash, o);
    }
    return [...found.values()];
  }

  /** Every open order of a maker is cancelled (its heartbeat lapsed). */
  cancelAllOf(maker: string, at: number): void {
    for (const o of this.orders.openOf(maker)) this.cancelOne(o, 'heartbeat_expired', at);
  }

  /** Every open order of a market leaves its book as CANCELLED (pending fills still settle). */
  cancelBook(marketHash: string, reason: OrderCancelReason, at: number, keep?: (o: Order) => boolean): void {
    const book = this.orders.book(marketHash);
    for (const side of book ? [book.outcomeOne, book.outcomeTwo] : []) {
      for (const o of side.snapshot()) if (!keep?.(o)) this.cancelOne(o, reason, at);
    }
  }

  /**
   * When a balance no longer covers the open orders, the newest orders leave the book until it does. That is a
   * shortfall, which repeated earns a restriction, unless the account's own bet as a taker spent the balance
   * (`byOwnBet`): a maker that also takes is not punished for it.
   */
  enforceExposure(address: string, at: number, byOwnBet = false): void {
    const commitments = this.commitments;
    if (commitments.freeBalance(address) >= 0n) return;
    const orders = this.orders.openOf(address);
    let removed = 0;
    for (let i = orders.length - 1; i >= 0 && commitments.freeBalance(address) < 0n; i--) {
      this.cancelOne(orders[i]!, 'insufficient_balance', at);
      removed++;
    }
    if (removed > 0 && !byOwnBet) commitments.recordShortfall(this.log, address, at);
  }

  /** Every mutation ends here, given whether the order was open and what it committed before. */
  private updated(o: Order, wasOpen: boolean, exposureBefore: bigint, at: number): void {
    o.updatedAt = at;
    const exposureAfter = orderExposure(o);
    if (exposureAfter !== exposureBefore) this.commitments.addExposure(o.maker, exposureAfter - exposureBefore);
    const open = isOpen(o);
    if (wasOpen && !open) this.orders.closed(o);
    this.log.emit({ type: 'orderChanged', orderHash: o.orderHash, marketHash: o.marketHash, maker: o.maker, state: stateOf(o) });
    this.log.touch(o.maker);
    // A closed order with no fill pending has nothing left for trading: it leaves memory (the read side keeps it).
    if (open || o.pendingFillAmount !== 0n) return;
    this.orders.evict(o);
    this.guards.orderClosed(o);
    this.liveness.compact();
  }
}

/** Why a maker's cancel leaves an order as it is, or undefined when it cancels it. */
function whyNotCancellable(o: Order | undefined, maker: string): CancelResult['notCancelled'][number]['reason'] | undefined {
  if (!o || o.maker !== maker) return 'not_found_or_inactive';
  if (o.status === 'CANCELLED' && o.pendingFillAmount > 0n) return 'already_pending_cancel';
  if (!isOpen(o)) return 'not_found_or_inactive';
  // Every bit of the order is matched by fills still waiting on the chain: nothing is left to cancel.
  if (o.status === 'INACTIVE') return 'order_locked';
  return undefined;
}
