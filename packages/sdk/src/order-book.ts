// A market's order book kept locally: the REST snapshot (GET /orders) plus the order_book channel's
// publications, which carry the changed orders. Missed publications are recovered from the server's
// history; when history no longer covers the gap, the book is rebuilt from a new snapshot and `rebuilt` says so.
import type { SubscribedContext } from 'centrifuge';
import { Emitter } from './emitter.js';
import { parseOrder } from './parse.js';
import type { OddexRealtime } from './realtime.js';
import type { Order } from './types.js';

export interface OrderBookEvents {
  /** Orders that changed (added, filled, removed) after the book was first loaded. */
  update: (changed: Order[]) => void;
  /**
   * Continuity was lost (reconnect past the history, server restart), or a snapshot that failed was read again:
   * the book was reloaded from a snapshot.
   */
  rebuilt: (info: { reason: string }) => void;
  error: (err: unknown) => void;
}

const OPEN = new Set(['ACTIVE', 'INACTIVE']);
const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 10_000;

/** Whether `next` is a later state of the same order than `current` (publications may overlap the snapshot). */
function isNewer(current: Order, next: Order): boolean {
  const a = Date.parse(current.updatedAt);
  const b = Date.parse(next.updatedAt);
  if (a !== b) return b > a;
  if (OPEN.has(current.orderStatus) !== OPEN.has(next.orderStatus)) return !OPEN.has(next.orderStatus);
  return next.fillAmount + next.pendingFillAmount >= current.fillAmount + current.pendingFillAmount;
}

export class LocalOrderBook extends Emitter<OrderBookEvents> {
  readonly channel: string;
  private readonly book = new Map<string, Order>();
  /** Publications that arrived while a snapshot was loading. */
  private buffered: Order[] | undefined;
  /** Snapshot loads started so far: only the latest one's snapshot is kept (a resubscribe may start another). */
  private loads = 0;
  private firstLoad: { resolve: () => void; reject: (e: unknown) => void } | undefined;
  /** A failed snapshot is read again after this long (doubling up to RETRY_MAX_MS); set while one is waiting. */
  private retry: { timer: ReturnType<typeof setTimeout> | undefined; delayMs: number } = { timer: undefined, delayMs: RETRY_MIN_MS };
  private stopped = false;

  constructor(
    readonly marketHash: string,
    private readonly realtime: OddexRealtime,
    private readonly loadSnapshot: (marketHash: string) => Promise<Order[]>,
  ) {
    super();
    this.channel = `order_book:market_${marketHash.toLowerCase()}`;
  }

  /** Subscribes and resolves once the first snapshot is in. */
  start(): Promise<void> {
    const loaded = new Promise<void>((resolve, reject) => (this.firstLoad = { resolve, reject }));
    this.realtime.subscribe(this.channel, {
      onSubscribed: (ctx) => this.onSubscribed(ctx),
      onPublication: (data) => this.onPublication(data),
      onError: (err) => this.emit('error', err),
    });
    return loaded;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.retry.timer);
    this.realtime.unsubscribe(this.channel);
  }

  /** Open orders (ACTIVE and INACTIVE), oldest first. */
  orders(): Order[] {
    return [...this.book.values()].sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt) || a.orderHash.localeCompare(b.orderHash));
  }

  /** Best (lowest) maker odds among active orders of makers on this side, i.e. the best taker odds on the other. */
  bestMakerOdds(isMakerBettingOutcomeOne: boolean): bigint | undefined {
    let best: bigint | undefined;
    for (const o of this.book.values()) {
      if (o.orderStatus !== 'ACTIVE' || o.isMakerBettingOutcomeOne !== isMakerBettingOutcomeOne) continue;
      if (o.fillAmount + o.pendingFillAmount >= o.totalBetSize) continue;
      if (best === undefined || o.percentageOdds < best) best = o.percentageOdds;
    }
    return best;
  }

  private onSubscribed(ctx: SubscribedContext): void {
    if (ctx.wasRecovering && ctx.recovered) return; // the missed publications follow as publication events
    void this.reload(ctx.wasRecovering ? 'history no longer covers the gap' : undefined);
  }

  private async reload(lostReason: string | undefined): Promise<void> {
    const load = ++this.loads;
    clearTimeout(this.retry.timer);
    this.retry.timer = undefined;
    // Publications buffered for an earlier load still in flight are kept: they may be newer than its snapshot.
    this.buffered ??= [];
    try {
      const snapshot = await this.loadSnapshot(this.marketHash);
      if (load !== this.loads || this.stopped) return; // a later load's snapshot is newer
      this.book.clear();
      for (const o of snapshot) if (OPEN.has(o.orderStatus)) this.book.set(o.orderHash, o);
      const pending = this.buffered;
      this.buffered = undefined;
      for (const o of pending) this.apply(o);
      this.retry.delayMs = RETRY_MIN_MS;
      if (lostReason) this.emit('rebuilt', { reason: lostReason });
      this.firstLoad?.resolve();
    } catch (err) {
      if (load !== this.loads || this.stopped) return;
      // Without a snapshot the book is not known: publications stay buffered (applied to an empty book they would
      // pass for the whole of it) and the snapshot is read again, until it is in or the book is stopped.
      this.emit('error', err);
      this.firstLoad?.reject(err);
      const delayMs = this.retry.delayMs;
      this.retry.delayMs = Math.min(delayMs * 2, RETRY_MAX_MS);
      this.retry.timer = setTimeout(() => void this.reload(lostReason ?? 'the snapshot could not be read'), delayMs);
    }
    this.firstLoad = undefined;
  }

  private onPublication(data: unknown): void {
    const changed = (Array.isArray(data) ? data : [data]).map((w: Record<string, unknown>) =>
      parseOrder({ ...w, orderStatus: w.orderStatus ?? w.status }),
    );
    if (this.buffered) {
      this.buffered.push(...changed);
      return;
    }
    for (const o of changed) this.apply(o);
    this.emit('update', changed);
  }

  private apply(o: Order): void {
    const current = this.book.get(o.orderHash);
    if (current && !isNewer(current, o)) return;
    if (OPEN.has(o.orderStatus)) this.book.set(o.orderHash, o);
    else this.book.delete(o.orderHash);
  }
}
