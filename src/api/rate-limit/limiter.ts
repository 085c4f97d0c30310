// Per-client request counters behind an interface, so a shared store (Redis) can replace the in-process one.
import type { RateLimitConfig } from '../../config.js';
import { RATE_BUCKETS, type RateBucket } from './buckets.js';

/** Who is counted: a fingerprint of the API key (number) or the client address (string). Opaque to limiters. */
export type ClientKey = string | number;

export interface RateScope {
  limit: number;
  windowMs: number;
}

export type RateLimits = Record<RateBucket | 'global', RateScope>;

/** The outcome of one request, for the scope the client should be told about. */
export interface RateDecision {
  allowed: boolean;
  /** The request's own bucket; the global ceiling when that is what refused it. */
  scope: RateBucket | 'global';
  limit: number;
  remaining: number;
  /** Milliseconds until the reported scope's window resets (> 0). */
  resetMs: number;
}

export interface RateLimiter {
  /**
   * Counts one request of `client` in `bucket` and in the global ceiling, unless either is exhausted
   * (a refused request counts in neither). May be asynchronous for a shared store.
   */
  consume(client: ClientKey, bucket: RateBucket, nowMs: number): RateDecision | Promise<RateDecision>;
}

export function rateLimitsFromConfig(c: RateLimitConfig): RateLimits {
  return {
    orderOps: { limit: c.orderOpsPerWindow, windowMs: c.windowMs },
    orderReads: { limit: c.orderReadsPerWindow, windowMs: c.windowMs },
    trades: { limit: c.tradesPerWindow, windowMs: c.windowMs },
    base: { limit: c.basePerWindow, windowMs: c.windowMs },
    global: { limit: c.globalPerWindow, windowMs: c.globalWindowMs },
  };
}

const GLOBAL = RATE_BUCKETS.length; // slot of the global ceiling, after the buckets
const SLOT: Record<RateBucket, number> = Object.fromEntries(RATE_BUCKETS.map((b, i) => [b, i])) as Record<
  RateBucket,
  number
>;
/** Entries the incremental sweep inspects per request (at most one is added per request). */
const SWEEP_PER_CALL = 2;
const SCOPE_OF_SLOT: readonly (RateBucket | 'global')[] = [...RATE_BUCKETS, 'global'];

/** One client's fixed windows, one slot per bucket plus the global one. Windows start at the client's first request. */
class ClientWindows {
  readonly count: number[];
  readonly resetAt: number[];
  /** When every window has reset, so the entry carries no information and can be dropped. */
  expiresAt = 0;
  constructor(slots: number) {
    this.count = new Array<number>(slots).fill(0);
    this.resetAt = new Array<number>(slots).fill(0);
  }
}

export interface InProcessLimiterOptions {
  /** Most clients tracked at once; past it the oldest-tracked are forgotten (memory stays bounded under key floods). */
  maxClients?: number;
}

/**
 * Fixed-window counters in one Map keyed by client: one lookup per request, and for a known client no
 * allocation but the decision. Expired entries are swept incrementally, a couple per request.
 */
export class InProcessRateLimiter implements RateLimiter {
  private readonly clients = new Map<ClientKey, ClientWindows>();
  private readonly limit: number[];
  private readonly windowMs: number[];
  private readonly maxClients: number;
  /** Where the incremental sweep resumes; Map iterators survive inserts and deletes. */
  private cursor: IterableIterator<ClientKey> | undefined;

  constructor(limits: RateLimits, options: InProcessLimiterOptions = {}) {
    this.limit = SCOPE_OF_SLOT.map((s) => limits[s].limit);
    this.windowMs = SCOPE_OF_SLOT.map((s) => limits[s].windowMs);
    this.maxClients = Math.max(1, options.maxClients ?? 100_000);
  }

  /** Clients currently tracked (tests and metrics). */
  get size(): number {
    return this.clients.size;
  }

  consume(client: ClientKey, bucket: RateBucket, nowMs: number): RateDecision {
    this.sweepSome(nowMs);
    let w = this.clients.get(client);
    if (w === undefined) {
      if (this.clients.size >= this.maxClients) this.makeRoom(nowMs);
      w = new ClientWindows(GLOBAL + 1);
      this.clients.set(client, w);
    }
    const slot = SLOT[bucket];
    this.roll(w, slot, nowMs);
    this.roll(w, GLOBAL, nowMs);

    const bucketFull = w.count[slot]! >= this.limit[slot]!;
    const globalFull = w.count[GLOBAL]! >= this.limit[GLOBAL]!;
    if (bucketFull || globalFull) {
      // Report the scope the client must wait longest for.
      const refusing = globalFull && (!bucketFull || w.resetAt[GLOBAL]! >= w.resetAt[slot]!) ? GLOBAL : slot;
      return this.decision(false, refusing, w, nowMs);
    }
    w.count[slot]!++;
    w.count[GLOBAL]!++;
    return this.decision(true, slot, w, nowMs);
  }

  private decision(allowed: boolean, slot: number, w: ClientWindows, nowMs: number): RateDecision {
    const limit = this.limit[slot]!;
    return {
      allowed,
      scope: SCOPE_OF_SLOT[slot]!,
      limit,
      remaining: allowed ? limit - w.count[slot]! : 0,
      resetMs: w.resetAt[slot]! - nowMs,
    };
  }

  /** Starts a new window in `slot` once the previous one has reset. */
  private roll(w: ClientWindows, slot: number, nowMs: number): void {
    if (nowMs < w.resetAt[slot]!) return;
    w.count[slot] = 0;
    const resetAt = nowMs + this.windowMs[slot]!;
    w.resetAt[slot] = resetAt;
    if (resetAt > w.expiresAt) w.expiresAt = resetAt;
  }

  /**
   * Examines the next few clients and drops those whose windows have all reset: every call inspects more
   * entries than it can add, so expired clients go without a pause scanning the whole Map.
   */
  private sweepSome(nowMs: number): void {
    for (let n = 0; n < SWEEP_PER_CALL; n++) {
      const next = (this.cursor ??= this.clients.keys()).next();
      if (next.done) {
        this.cursor = undefined;
        return;
      }
      if (this.clients.get(next.value)!.expiresAt <= nowMs) this.clients.delete(next.value);
    }
  }

  /** Drops every client whose windows have all reset. */
  private sweep(nowMs: number): void {
    for (const [client, w] of this.clients) if (w.expiresAt <= nowMs) this.clients.delete(client);
  }

  /**
   * Full: sweep, then forget the oldest-tracked clients (Map order is insertion order) until a sixteenth
   * is free, so a flood of new keys costs O(1) amortised per key instead of a scan per key.
   * A forgotten client starts afresh.
   */
  private makeRoom(nowMs: number): void {
    this.sweep(nowMs);
    const target = this.maxClients - Math.max(1, Math.floor(this.maxClients / 16));
    for (const client of this.clients.keys()) {
      if (this.clients.size <= target) break;
      this.clients.delete(client);
    }
  }
}

/** One count per key and window on this machinery: its `base` bucket, with the global ceiling set equal so it never refuses on its own. */
export function quota(limit: number, windowMs: number): InProcessRateLimiter {
  const scope = { limit, windowMs };
  return new InProcessRateLimiter({ orderOps: scope, orderReads: scope, trades: scope, base: scope, global: scope });
}
