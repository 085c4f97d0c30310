// Rate-limit windows kept in Redis (ODDEX_REDIS_URL), so every gateway process counts against the same quotas: the
// spec sets them per account and for all traffic, and adding processes must not multiply them. Fixed windows, as
// the in-process limiter's: a client's window in a scope starts at its first request and lasts the scope's window
// (a key with that expiry, on Redis's clock, which every process shares); one script per request checks both the
// bucket and the global ceiling and counts in both, or in neither when either is exhausted.
import type { Redis } from 'ioredis';
import type { RateBucket } from './buckets.js';
import type { ClientKey, RateDecision, RateLimiter, RateLimits } from './limiter.js';
import { RedisScript } from '../../store/redis-script.js';

/** KEYS: bucket, global. ARGV: bucket limit, bucket window ms, global limit, global window ms. */
const CONSUME = `
local function state(key, window)
  local ttl = redis.call('pttl', key)
  if ttl < 0 then return 0, window end
  return tonumber(redis.call('get', key)), ttl
end
local bc, bt = state(KEYS[1], tonumber(ARGV[2]))
local gc, gt = state(KEYS[2], tonumber(ARGV[4]))
if bc >= tonumber(ARGV[1]) or gc >= tonumber(ARGV[3]) then return {0, bc, bt, gc, gt} end
if bc == 0 then redis.call('set', KEYS[1], 1, 'PX', bt) else redis.call('incr', KEYS[1]) end
if gc == 0 then redis.call('set', KEYS[2], 1, 'PX', gt) else redis.call('incr', KEYS[2]) end
return {1, bc + 1, bt, gc + 1, gt}
`;
const consumeScript = new RedisScript(CONSUME);

/**
 * While Redis cannot answer (down, or slower than the connection's command timeout) requests are counted by
 * `fallback`, this process's own limiter: quotas then hold per process instead of across them, and trading never
 * stops or waits for Redis.
 */
export class RedisRateLimiter implements RateLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly limits: RateLimits,
    private readonly fallback: RateLimiter,
    private readonly onUnavailable: (err: unknown) => void = () => {},
    private readonly prefix = 'oddex',
  ) {}

  async consume(client: ClientKey, bucket: RateBucket, nowMs: number): Promise<RateDecision> {
    try {
      return await this.consumeShared(client, bucket);
    } catch (err) {
      this.onUnavailable(err);
      return this.fallback.consume(client, bucket, nowMs);
    }
  }

  /** Counts in the windows every process shares; they run on Redis's clock. */
  private async consumeShared(client: ClientKey, bucket: RateBucket): Promise<RateDecision> {
    const b = this.limits[bucket];
    const g = this.limits.global;
    // One hash tag per client: both keys on one node of a Redis cluster.
    const keys = [`${this.prefix}:rate:{${client}}:${bucket}`, `${this.prefix}:rate:{${client}}:global`];
    const reply = await consumeScript.run(this.redis, keys, [b.limit, b.windowMs, g.limit, g.windowMs]);
    const [allowed, bucketCount, bucketTtl, globalCount, globalTtl] = reply as [number, number, number, number, number];
    if (allowed === 1) return { allowed: true, scope: bucket, limit: b.limit, remaining: b.limit - bucketCount, resetMs: bucketTtl };
    const bucketFull = bucketCount >= b.limit;
    const globalFull = globalCount >= g.limit;
    // Report the scope the client must wait longest for.
    const global = globalFull && (!bucketFull || globalTtl >= bucketTtl);
    return global
      ? { allowed: false, scope: 'global', limit: g.limit, remaining: 0, resetMs: globalTtl }
      : { allowed: false, scope: bucket, limit: b.limit, remaining: 0, resetMs: bucketTtl };
  }
}
