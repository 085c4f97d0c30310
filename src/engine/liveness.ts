// Deadlines: each open order's signed expiry and each account's heartbeat. A queued entry is live while its order
// is still open or its heartbeat still has that deadline; stale entries are skipped, and dropped once they outnumber
// the live ones, so the queue never grows with history.
// Invariants: every open order and every heartbeat has a live entry; nothing is expired before its time.
import type { ChangeLog } from './change-log.js';
import { ExpiryQueue } from './expiry-queue.js';
import { isOpen } from './order-space.js';
import type { OrderStore } from './order-store.js';
import { liveSorted, type QueuedAt } from './snapshot.js';
import type { Heartbeat, HeartbeatResult, Order } from './types.js';

export interface LivenessState {
  heartbeats: Heartbeat[];
  expiries: QueuedAt[];
}

const HEARTBEAT_KEY = 'hb:';

/** The account whose heartbeat an expiry key is, or undefined for an order's. */
export const heartbeatOf = (key: string) => (key.startsWith(HEARTBEAT_KEY) ? key.slice(HEARTBEAT_KEY.length) : undefined);

export class Liveness {
  private readonly heartbeats = new Map<string, Heartbeat>();
  /** Order expiries (key: order hash) and heartbeat deadlines (key: "hb:" + address). */
  private expiries = new ExpiryQueue();

  /** `orders`: read only, to tell live entries from stale ones. */
  constructor(private readonly orders: OrderStore) {}

  get heartbeatCount(): number {
    return this.heartbeats.size;
  }

  get queuedExpiries(): number {
    return this.expiries.size;
  }

  orderPosted(o: Pick<Order, 'orderHash' | 'apiExpiry' | 'expiry'>): void {
    this.expiries.push(Math.min(o.apiExpiry, o.expiry) * 1000, o.orderHash);
  }

  /** Sets (or with a zero timeout clears) a heartbeat: the requestor's orders are cancelled if it lapses. */
  heartbeat(log: ChangeLog, requestor: string, timeoutSeconds: number, at: number): HeartbeatResult {
    if (timeoutSeconds === 0) {
      this.heartbeats.delete(requestor);
      log.emit({ type: 'heartbeatSet', requestor, timeoutSeconds: 0, expiresAt: null });
      return { requestor, timeoutSeconds: 0, expiresAt: null };
    }
    const hb: Heartbeat = { requestor, timeoutSeconds, expiresAt: at + timeoutSeconds * 1000 };
    this.heartbeats.set(requestor, hb);
    this.expiries.push(hb.expiresAt, HEARTBEAT_KEY + requestor);
    this.compact();
    log.emit({ type: 'heartbeatSet', ...hb });
    return { ...hb };
  }

  heartbeatExpired(log: ChangeLog, requestor: string, at: number): void {
    this.heartbeats.delete(requestor);
    log.emit({ type: 'heartbeatExpired', requestor, at });
  }

  /** The earliest time at which a deadline falls due, for the runner's timer. */
  nextExpiryAt(): number | undefined {
    // Dropping stale entries changes no observable state: the queue is only an index.
    for (let next = this.expiries.nextAt(); next !== undefined; next = this.expiries.nextAt()) {
      if (this.isLive(next, this.expiries.nextKey())) return next;
      this.expiries.pop();
    }
    return undefined;
  }

  /** Takes the next live entry due at or before `at` off the queue: its key, or undefined once none is due. */
  nextDue(at: number): string | undefined {
    for (let next = this.expiries.nextAt(); next !== undefined && next <= at; next = this.expiries.nextAt()) {
      const key = this.expiries.nextKey();
      const live = this.isLive(next, key);
      this.expiries.pop();
      if (live) return key;
    }
    return undefined;
  }

  /**
   * Entries of orders that left memory (and of refreshed heartbeats) wait in the queue until their time; once they
   * outnumber the live ones the queue is rebuilt from the live ones.
   */
  compact(): void {
    if (this.expiries.size <= 2 * (this.orders.size + this.heartbeats.size) + 1024) return;
    this.expiries.retain((at, key) => this.isLive(at, key));
  }

  /** Whether a queued expiry still means something (its order is open, its heartbeat unchanged). */
  private isLive(at: number, key: string): boolean {
    const requestor = heartbeatOf(key);
    if (requestor !== undefined) return this.heartbeats.get(requestor)?.expiresAt === at;
    const o = this.orders.get(key);
    return o !== undefined && isOpen(o);
  }

  snapshot(): LivenessState {
    return {
      heartbeats: [...this.heartbeats.values()].map((h) => ({ ...h })),
      // Only live entries, in (time, key) order: the same state gives the same snapshot whatever stale entries the
      // heap carried.
      expiries: liveSorted(this.expiries.entries(), (entry) => this.isLive(entry.at, entry.key)),
    };
  }

  static from(orders: OrderStore, state: LivenessState): Liveness {
    const l = new Liveness(orders);
    for (const h of state.heartbeats) l.heartbeats.set(h.requestor, { ...h });
    // Keys as the orders' own strings: a decoded copy per entry would double every open order's hash in memory.
    l.expiries = ExpiryQueue.from(state.expiries.map((x) => ({ at: x.at, key: orders.get(x.key)?.orderHash ?? x.key })));
    return l;
  }
}
