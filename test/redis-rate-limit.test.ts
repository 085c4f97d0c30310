import { describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { RedisRateLimiter } from '../src/api/rate-limit/redis-limiter.js';
import { InProcessRateLimiter, type RateLimits } from '../src/api/rate-limit/limiter.js';
import { redisForSuite } from './helpers/redis.js';

const LIMITS: RateLimits = {
  orderOps: { limit: 3, windowMs: 60_000 },
  orderReads: { limit: 100, windowMs: 60_000 },
  trades: { limit: 100, windowMs: 60_000 },
  base: { limit: 100, windowMs: 60_000 },
  global: { limit: 5, windowMs: 120_000 },
};

const server = redisForSuite();

let prefixes = 0;
const limiterOn = (prefix: string, fallback = new InProcessRateLimiter(LIMITS)) => new RedisRateLimiter(server().client(), LIMITS, fallback, () => {}, prefix);

describe('rate limits kept in Redis', () => {
  it('two processes count against one quota per client: the bucket, then the global ceiling, with the reset that applies', async () => {
    const prefix = `rl${++prefixes}`;
    const a = limiterOn(prefix);
    const b = limiterOn(prefix);
    const decisions = [await a.consume('1.2.3.4', 'orderOps', 0), await b.consume('1.2.3.4', 'orderOps', 0), await a.consume('1.2.3.4', 'orderOps', 0)];
    expect(decisions.map((d) => [d.allowed, d.scope, d.limit, d.remaining])).toEqual([
      [true, 'orderOps', 3, 2],
      [true, 'orderOps', 3, 1],
      [true, 'orderOps', 3, 0],
    ]);
    const refused = await b.consume('1.2.3.4', 'orderOps', 0);
    expect(refused).toMatchObject({ allowed: false, scope: 'orderOps', limit: 3, remaining: 0 });
    expect(refused.resetMs).toBeGreaterThan(59_000);
    expect(refused.resetMs).toBeLessThanOrEqual(60_000);
    // A refused request counts nowhere: two more of another bucket fit under the global ceiling of 5.
    expect((await a.consume('1.2.3.4', 'base', 0)).allowed).toBe(true);
    expect((await b.consume('1.2.3.4', 'base', 0)).allowed).toBe(true);
    const global = await a.consume('1.2.3.4', 'base', 0);
    expect(global).toMatchObject({ allowed: false, scope: 'global', limit: 5, remaining: 0 });
    expect(global.resetMs).toBeGreaterThan(119_000);
    // Another client has quotas of its own.
    expect((await b.consume(42, 'orderOps', 0)).allowed).toBe(true);
  });

  it('counts in the process while Redis does not answer, without waiting for it', async () => {
    const fallback = new InProcessRateLimiter(LIMITS);
    const down = new Redis({ port: 1, lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
    down.on('error', () => {});
    const problems: unknown[] = [];
    const limiter = new RedisRateLimiter(down, LIMITS, fallback, (err) => problems.push(err), `rl${++prefixes}`);
    const started = Date.now();
    const decisions = [];
    for (let i = 0; i < 4; i++) decisions.push(await limiter.consume('5.6.7.8', 'orderOps', 1000));
    expect(Date.now() - started).toBeLessThan(1000);
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false]);
    expect(problems).toHaveLength(4);
    down.disconnect();
  });
});
