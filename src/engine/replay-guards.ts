// What refuses a replay before it reaches the books: fills already accepted (by salt or hash), orders that closed
// and left memory, and cancels already processed. Each window is bounded; what falls out of it is checked against
// the read side before a command reaches the engine (Sequencer.submit).
// Invariants: a fill salt or hash, an order hash and a (maker, cancel salt) pass at most once while remembered; a
// cancel signed at or before the newest forgotten one is refused for good, whatever the clock does next.
import { CancelSalts } from './cancel-salts.js';
import { DomainError } from './errors.js';
import { ExpiryQueue } from './expiry-queue.js';
import { Fifo } from './fifo.js';
import { OrderedKeySet } from './ordered-key-set.js';
import { liveSorted, type QueuedAt } from './snapshot.js';
import type { EngineParams, Order } from './types.js';

/**
 * A fill is checked against the read side right before the engine applies it (Sequencer.submit), so the window
 * only has to hold fills applied but not yet in the read side: the batches waiting for their commit. 10k is far
 * above that; 100k cost about 27 MB of heap that grew with the first 100k fills.
 */
const DEFAULT_RECENT_FILL_WINDOW = 10_000;
const DEFAULT_RECENT_CLOSED_ORDER_WINDOW = 20_000;

type GuardParams = Pick<EngineParams, 'recentFillWindow' | 'recentClosedOrderWindow' | 'cancelMaxSkewSeconds'>;

export interface ReplayGuardsState {
  recentFills: [string, string][];
  fillCount: number;
  closedOrders: string[];
  closedOrderExpiries: QueuedAt[];
  cancelSalts: [string, number][];
  forgottenCancelsUpTo: number | null;
}

export class ReplayGuards {
  /** The most recent fills' salts and hashes, oldest first. */
  private readonly recentFillSalts = new Map<string, string>();
  private readonly recentFillHashes = new Set<string>();
  /** recentFillSalts' keys, oldest first: what the window drops next. */
  private readonly recentFillOrder = new Fifo<string>();
  /** Every fill ever accepted. */
  fillCount = 0;
  /**
   * Orders that closed and left memory, oldest first, until their signed expiry (an expired order is refused as
   * such) and at most the most recent window of them.
   */
  private readonly closedOrders = new OrderedKeySet();
  private closedOrderExpiries = new ExpiryQueue();
  /** Cancels' salts per maker, with their signed timestamps (ms), kept while a replay could still pass the check. */
  private cancelSalts = new CancelSalts();
  /** Newest signed timestamp (ms) among forgotten cancel salts. */
  private forgottenCancelsUpTo = -Infinity;

  constructor(private readonly params: GuardParams) {}

  // ---- fills

  isFillKnown(fillSalt: string, fillHash: string): boolean {
    return this.recentFillSalts.has(fillSalt) || this.recentFillHashes.has(fillHash);
  }

  rememberFill(fillHash: string, fillSalt: string): void {
    this.fillCount++;
    this.recentFillSalts.set(fillSalt, fillHash);
    this.recentFillHashes.add(fillHash);
    this.recentFillOrder.push(fillSalt);
    if (this.recentFillSalts.size <= (this.params.recentFillWindow ?? DEFAULT_RECENT_FILL_WINDOW)) return;
    const oldestSalt = this.recentFillOrder.shift()!;
    this.recentFillHashes.delete(this.recentFillSalts.get(oldestSalt)!);
    this.recentFillSalts.delete(oldestSalt);
  }

  get recentFillCount(): number {
    return this.recentFillHashes.size;
  }

  // ---- closed orders

  isClosedOrder(orderHash: string): boolean {
    return this.closedOrders.has(orderHash);
  }

  /** An order that left memory: a repost is refused until its signed expiry. */
  orderClosed(o: Pick<Order, 'orderHash' | 'apiExpiry' | 'expiry'>): void {
    this.closedOrders.add(o.orderHash);
    this.closedOrderExpiries.push(Math.min(o.apiExpiry, o.expiry) * 1000, o.orderHash);
    this.trimClosedOrders();
  }

  /** Past their expiry, closed orders are refused as expired: they need no guard. */
  forgetExpiredClosedOrders(at: number): void {
    const queue = this.closedOrderExpiries;
    for (let next = queue.nextAt(); next !== undefined && next <= at; next = queue.nextAt()) {
      this.closedOrders.delete(queue.nextKey());
      queue.pop();
    }
  }

  get closedOrderCount(): number {
    return this.closedOrders.size;
  }

  get queuedClosedOrderExpiries(): number {
    return this.closedOrderExpiries.size;
  }

  /** Keeps the window of closed orders (and their expiry entries) bounded. */
  private trimClosedOrders(): void {
    const window = this.params.recentClosedOrderWindow ?? DEFAULT_RECENT_CLOSED_ORDER_WINDOW;
    while (this.closedOrders.size > window) this.closedOrders.deleteOldest();
    if (this.closedOrderExpiries.size > 2 * this.closedOrders.size + 1024) {
      this.closedOrderExpiries.retain((_at, key) => this.closedOrders.has(key));
    }
  }

  // ---- cancels

  /** Refuses a stale or replayed cancel. Changes nothing, so a refused command leaves the guards as they were. */
  checkCancel(maker: string, salt: string, timestamp: number, at: number): void {
    const skewMs = this.params.cancelMaxSkewSeconds * 1000;
    const signedMs = timestamp * 1000;
    if (Math.abs(signedMs - at) > skewMs || signedMs <= this.forgottenCancelsUpTo) {
      throw new DomainError('STALE_TIMESTAMP', `timestamp must be within ${this.params.cancelMaxSkewSeconds} s of server time`);
    }
    if (this.cancelSalts.has(maker, salt)) {
      throw new DomainError('CANCEL_REQUEST_ALREADY_PROCESSED');
    }
  }

  /** An applied cancel's salt, kept while its timestamp could still pass checkCancel. */
  rememberCancel(maker: string, salt: string, timestamp: number, at: number): void {
    // A salt whose signed timestamp is older than the skew can no longer pass the check: forget it, and raise the
    // floor so its timestamp stays refused whatever the clock does next.
    const skewMs = this.params.cancelMaxSkewSeconds * 1000;
    for (let signed = this.cancelSalts.oldestTime(); signed !== undefined; signed = this.cancelSalts.oldestTime()) {
      if (signed >= at - skewMs) break;
      this.cancelSalts.forgetOldest();
      if (signed > this.forgottenCancelsUpTo) this.forgottenCancelsUpTo = signed;
    }
    this.cancelSalts.add(maker, salt, timestamp * 1000);
  }

  snapshot(): ReplayGuardsState {
    return {
      recentFills: [...this.recentFillSalts],
      fillCount: this.fillCount,
      closedOrders: [...this.closedOrders.values()],
      closedOrderExpiries: liveSorted(this.closedOrderExpiries.entries(), (entry) => this.closedOrders.has(entry.key)),
      cancelSalts: this.cancelSalts.entries(),
      forgottenCancelsUpTo: Number.isFinite(this.forgottenCancelsUpTo) ? this.forgottenCancelsUpTo : null,
    };
  }

  static from(params: GuardParams, state: ReplayGuardsState): ReplayGuards {
    const g = new ReplayGuards(params);
    for (const [salt, hash] of state.recentFills) {
      g.recentFillSalts.set(salt, hash);
      g.recentFillHashes.add(hash);
      g.recentFillOrder.push(salt);
    }
    g.fillCount = state.fillCount;
    for (const h of state.closedOrders) g.closedOrders.add(h);
    g.closedOrderExpiries = ExpiryQueue.from(state.closedOrderExpiries);
    g.trimClosedOrders();
    g.cancelSalts = CancelSalts.from(state.cancelSalts);
    g.forgottenCancelsUpTo = state.forgottenCancelsUpTo ?? -Infinity;
    return g;
  }
}
