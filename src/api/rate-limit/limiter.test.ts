import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { InProcessRateLimiter, rateLimitsFromConfig, type RateDecision, type RateLimits } from './limiter.js';
import { RATE_BUCKETS, type RateBucket } from './buckets.js';
import { defaultConfig } from '../../config.js';

const LIMITS: RateLimits = {
  orderOps: { limit: 3, windowMs: 1000 },
  orderReads: { limit: 3, windowMs: 1000 },
  trades: { limit: 2, windowMs: 1000 },
  base: { limit: 4, windowMs: 1000 },
  global: { limit: 6, windowMs: 5000 },
};

const allowed = (limit: number, remaining: number, resetMs: number, scope: RateDecision['scope']): RateDecision => ({
  allowed: true,
  scope,
  limit,
  remaining,
  resetMs,
});
const refused = (limit: number, resetMs: number, scope: RateDecision['scope']): RateDecision => ({
  allowed: false,
  scope,
  limit,
  remaining: 0,
  resetMs,
});

describe('InProcessRateLimiter', () => {
  it('maps the configured limits onto the buckets of spec section 8', () => {
    expect(rateLimitsFromConfig(defaultConfig().rateLimits)).toEqual({
      orderOps: { limit: 5500, windowMs: 60_000 },
      orderReads: { limit: 5500, windowMs: 60_000 },
      trades: { limit: 200, windowMs: 60_000 },
      base: { limit: 500, windowMs: 60_000 },
      global: { limit: 35_000, windowMs: 600_000 },
    });
  });

  it('allows a bucket up to its limit, refuses the next, and starts afresh when the window resets', () => {
    const l = new InProcessRateLimiter(LIMITS);
    expect(l.consume('c', 'trades', 10_000)).toEqual(allowed(2, 1, 1000, 'trades'));
    expect(l.consume('c', 'trades', 10_400)).toEqual(allowed(2, 0, 600, 'trades'));
    expect(l.consume('c', 'trades', 10_999)).toEqual(refused(2, 1, 'trades'));
    // The window started at the first request (10_000) and resets at 11_000.
    expect(l.consume('c', 'trades', 11_000)).toEqual(allowed(2, 1, 1000, 'trades'));
  });

  it('keeps buckets independent: exhausting trades leaves base and order buckets whole', () => {
    const l = new InProcessRateLimiter(LIMITS);
    l.consume('c', 'trades', 0);
    l.consume('c', 'trades', 0);
    expect(l.consume('c', 'trades', 0).allowed).toBe(false);
    expect(l.consume('c', 'base', 0)).toEqual(allowed(4, 3, 1000, 'base'));
    expect(l.consume('c', 'orderOps', 0)).toEqual(allowed(3, 2, 1000, 'orderOps'));
    expect(l.consume('c', 'orderReads', 0)).toEqual(allowed(3, 2, 1000, 'orderReads'));
  });

  it('keeps clients independent', () => {
    const l = new InProcessRateLimiter(LIMITS);
    l.consume('a', 'trades', 0);
    l.consume('a', 'trades', 0);
    expect(l.consume('a', 'trades', 0).allowed).toBe(false);
    expect(l.consume(42, 'trades', 0)).toEqual(allowed(2, 1, 1000, 'trades'));
    expect(l.consume('b', 'trades', 0)).toEqual(allowed(2, 1, 1000, 'trades'));
  });

  it('counts every bucket in the global ceiling and reports the global scope when it refuses', () => {
    const l = new InProcessRateLimiter(LIMITS);
    for (const b of ['orderOps', 'orderOps', 'orderReads', 'orderReads', 'trades', 'base'] as RateBucket[]) {
      expect(l.consume('c', b, 100).allowed).toBe(true);
    }
    // Each bucket still has room, the global ceiling (6 per 5 s, window from t=100) does not.
    expect(l.consume('c', 'base', 1100)).toEqual(refused(6, 4000, 'global'));
    expect(l.consume('c', 'orderOps', 1100)).toEqual(refused(6, 4000, 'global'));
    expect(l.consume('c', 'base', 5100)).toEqual(allowed(4, 3, 1000, 'base'));
  });

  it('does not count a refused request in either scope', () => {
    const l = new InProcessRateLimiter({ ...LIMITS, global: { limit: 3, windowMs: 5000 } });
    l.consume('c', 'trades', 0);
    l.consume('c', 'trades', 0);
    for (let i = 0; i < 10; i++) expect(l.consume('c', 'trades', 0).allowed).toBe(false);
    // Ten refusals later the global ceiling still has its third request.
    expect(l.consume('c', 'base', 0)).toEqual(allowed(4, 3, 1000, 'base'));
    expect(l.consume('c', 'base', 0)).toEqual(refused(3, 5000, 'global'));
  });

  it('reports the scope the client must wait longer for when both are exhausted', () => {
    const l = new InProcessRateLimiter({ ...LIMITS, trades: { limit: 2, windowMs: 9000 }, global: { limit: 2, windowMs: 5000 } });
    l.consume('c', 'trades', 0);
    l.consume('c', 'trades', 0);
    expect(l.consume('c', 'trades', 1000)).toEqual(refused(2, 8000, 'trades'));
    expect(l.consume('c', 'base', 1000)).toEqual(refused(2, 4000, 'global'));
  });

  it('forgets clients whose windows have all reset, a couple per request, without a full scan', () => {
    const l = new InProcessRateLimiter(LIMITS);
    for (let i = 0; i < 100; i++) l.consume(`ip-${i}`, 'base', 0);
    expect(l.size).toBe(100);
    for (let i = 0; i < 200; i++) l.consume('late', 'base', 4999); // global windows run to 5000: nothing expired
    expect(l.size).toBe(101);
    for (let i = 0; i < 10; i++) l.consume('later', 'base', 6000);
    expect(l.size).toBe(82); // 10 requests inspected 20 expired entries and dropped them; 'later' was added
    for (let i = 0; i < 50; i++) l.consume('later', 'base', 6000);
    expect(l.size).toBe(2);
    // Their counts are gone with them: an old client starts a fresh window.
    expect(l.consume('ip-0', 'base', 6000)).toEqual(allowed(4, 3, 1000, 'base'));
  });

  it('stays within maxClients under a flood of new keys, forgetting the oldest-tracked first', () => {
    const l = new InProcessRateLimiter(LIMITS, { maxClients: 160 });
    l.consume('first', 'trades', 0);
    l.consume('first', 'trades', 0);
    for (let i = 0; i < 10_000; i++) {
      l.consume(i, 'base', 1); // all live: nothing to sweep
      expect(l.size).toBeLessThanOrEqual(160);
    }
    // 'first' was forgotten, so it starts afresh.
    expect(l.consume('first', 'trades', 2)).toEqual(allowed(2, 1, 1000, 'trades'));
  });

  it('agrees with a naive model that counts accepted timestamps in each window', () => {
    const op = fc.record({
      client: fc.constantFrom('a', 'b', 7),
      bucket: fc.constantFrom(...RATE_BUCKETS),
      dt: fc.integer({ min: 0, max: 700 }),
    });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 300 }), (ops) => {
        const l = new InProcessRateLimiter(LIMITS);
        const model = new NaiveLimiter(LIMITS);
        let now = 1_000_000;
        for (const o of ops) {
          now += o.dt;
          expect(l.consume(o.client, o.bucket, now)).toEqual(model.consume(String(o.client), o.bucket, now));
        }
      }),
      { numRuns: 300 },
    );
  });
});

/** Windows start at a client's first request after the previous one ended; counts are recomputed from a log. */
class NaiveLimiter {
  private readonly start = new Map<string, number>();
  private readonly accepted = new Map<string, number[]>();
  constructor(private readonly limits: RateLimits) {}

  consume(client: string, bucket: RateBucket, now: number): RateDecision {
    const scopes = [bucket, 'global'] as const;
    const state = scopes.map((scope) => {
      const id = `${client}/${scope}`;
      const { limit, windowMs } = this.limits[scope];
      let start = this.start.get(id);
      if (start === undefined || now >= start + windowMs) this.start.set(id, (start = now));
      const used = (this.accepted.get(id) ?? []).filter((t) => t >= start).length;
      return { id, scope, limit, used, resetMs: start + windowMs - now };
    });
    const full = state.filter((s) => s.used >= s.limit).sort((x, y) => y.resetMs - x.resetMs || (x.scope === 'global' ? -1 : 1));
    const [first] = full;
    if (first) return { allowed: false, scope: first.scope, limit: first.limit, remaining: 0, resetMs: first.resetMs };
    for (const s of state) this.accepted.set(s.id, [...(this.accepted.get(s.id) ?? []), now]);
    const own = state[0]!;
    return { allowed: true, scope: own.scope, limit: own.limit, remaining: own.limit - own.used - 1, resetMs: own.resetMs };
  }
}
