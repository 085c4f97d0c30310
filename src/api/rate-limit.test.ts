// The hook on a bare Fastify app with a stub route for every pattern of the bucket table, so each bucket is
// exercised through the real hook whatever routes the exchange has registered so far.
import { afterEach, describe, expect, it } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import { installEnvelope, ok } from './envelope.js';
import { installRateLimit } from './rate-limit.js';
import { BUCKET_ROUTES } from './rate-limit/buckets.js';
import type { RateLimitConfig } from '../config.js';
import { InProcessRateLimiter, rateLimitsFromConfig, type RateLimiter } from './rate-limit/limiter.js';

const LIMITS: RateLimitConfig = {
  enabled: true,
  windowMs: 10_000,
  orderOpsPerWindow: 3,
  orderReadsPerWindow: 2,
  tradesPerWindow: 1,
  basePerWindow: 4,
  globalWindowMs: 60_000,
  globalPerWindow: 100,
  adminAuthFailuresPerWindow: 3,
};

/** The keys the operator issued (and has not revoked). */
const ISSUED = new Set(['key-a', 'key-b']);

let app: FastifyInstance;
let clock = 0;

/** The secret a sequencer's process marks the requests it injects for a gateway with. */
const MARK = 'secret-of-this-process';

async function build(limits: RateLimitConfig = LIMITS, limiter?: RateLimiter): Promise<FastifyInstance> {
  clock = 1_000_000;
  app = Fastify();
  installEnvelope(app);
  installRateLimit(app, {
    limits,
    now: () => clock,
    isIssuedKey: (k) => ISSUED.has(k),
    isForwarded: (request) => request.headers['x-oddex-forwarded'] === MARK,
    ...(limiter ? { limiter } : {}),
  });
  app.post('/needs-key', { schema: { security: [{ apiKey: [] }] } }, async () => ok('done'));
  for (const route of Object.values(BUCKET_ROUTES).flat()) {
    const [method, url] = route.split(' ') as ['GET' | 'POST', string];
    app.route({ method, url, handler: async () => ok(route) });
  }
  for (const url of ['/sports', '/health/live', '/admin/faucet', '/openapi.json', '/docs/json', '/metrics']) {
    app.get(url, async () => ok(url));
  }
  await app.ready();
  return app;
}
afterEach(async () => app?.close());

const hit = (method: 'GET' | 'POST' | 'HEAD', url: string, headers: Record<string, string> = {}, remoteAddress = '10.0.0.1') =>
  app.inject({ method, url, headers, remoteAddress, ...(method === 'POST' ? { payload: {} } : {}) });

const quota = (res: { headers: Record<string, unknown> }) => ({
  limit: res.headers['ratelimit-limit'],
  remaining: res.headers['ratelimit-remaining'],
  reset: res.headers['ratelimit-reset'],
  retryAfter: res.headers['retry-after'],
});

describe('installRateLimit', () => {
  it('does not count again what a gateway forwarded (marked with the process secret), and counts a forged mark', async () => {
    await build();
    const route = BUCKET_ROUTES.trades[0]!;
    const [method, url] = route.split(' ') as ['GET' | 'POST', string];
    for (let i = 0; i < 3; i++) expect((await hit(method, url, { 'x-oddex-forwarded': MARK })).statusCode).toBe(200);
    expect((await hit(method, url, { 'x-oddex-forwarded': 'guessed' })).statusCode).toBe(200);
    const refused = await hit(method, url, { 'x-oddex-forwarded': 'guessed' });
    expect([refused.statusCode, refused.json().errorCode]).toEqual([429, 'RATE_LIMITED']);
  });


  it.each([
    ['orderOps', 3, BUCKET_ROUTES.orderOps],
    ['orderReads', 2, BUCKET_ROUTES.orderReads],
    ['trades', 1, BUCKET_ROUTES.trades],
  ] as const)('routes of %s share one bucket of %i', async (bucket, limit, routes) => {
    await build();
    // Walk the bucket's routes round-robin: they all draw on the same counter.
    for (let i = 0; i < limit; i++) {
      const [method, url] = routes[i % routes.length]!.split(' ') as ['GET' | 'POST', string];
      const res = await hit(method, url);
      expect(res.statusCode).toBe(200);
      expect(quota(res)).toEqual({ limit: String(limit), remaining: String(limit - 1 - i), reset: '10', retryAfter: undefined });
    }
    for (const route of routes) {
      const [method, url] = route.split(' ') as ['GET' | 'POST', string];
      const res = await hit(method, url);
      expect(res.statusCode).toBe(429);
      expect(res.json()).toEqual({
        status: 'failure',
        errorCode: 'RATE_LIMITED',
        message: `the ${bucket} request limit of ${limit} is exhausted; retry after 10 s`,
      });
      expect(quota(res)).toEqual({ limit: String(limit), remaining: '0', reset: '10', retryAfter: '10' });
    }
    // Other buckets are untouched.
    expect((await hit('GET', '/sports')).statusCode).toBe(200);
  });

  it('counts HEAD on a bucketed GET in that bucket, and query strings do not change the route', async () => {
    await build();
    expect((await hit('HEAD', '/trades?bettor=0x1')).statusCode).toBe(200);
    expect((await hit('GET', '/trades/orders?orderHashes=a,b')).statusCode).toBe(429);
  });

  it('counts unknown routes (404) in base and keeps the failure envelope and quota headers', async () => {
    await build();
    for (let i = 0; i < 4; i++) {
      const res = await hit('GET', `/no/such/${i}?q=${i}`);
      expect(res.statusCode).toBe(404);
      expect(quota(res).remaining).toBe(String(3 - i));
    }
    expect((await hit('GET', '/sports')).statusCode).toBe(429);
  });

  it('keys by X-Api-Key when sent, else by address: each has its own quota', async () => {
    await build();
    expect((await hit('GET', '/trades', { 'x-api-key': 'key-a' })).statusCode).toBe(200);
    expect((await hit('GET', '/trades', { 'x-api-key': 'key-a' }, '10.0.0.9')).statusCode).toBe(429); // same key, other address
    expect((await hit('GET', '/trades', { 'x-api-key': 'key-b' })).statusCode).toBe(200);
    expect((await hit('GET', '/trades')).statusCode).toBe(200); // 10.0.0.1 without a key
    expect((await hit('GET', '/trades', {}, '10.0.0.2')).statusCode).toBe(200);
    expect((await hit('GET', '/trades', {}, '10.0.0.2')).statusCode).toBe(429);
  });

  it('counts keys that were never issued under the address: inventing keys opens no bucket', async () => {
    await build();
    // base allows 4 per address: four invented keys use the address's quota, the fifth is refused.
    for (let i = 0; i < 4; i++) expect((await hit('GET', '/sports', { 'x-api-key': `made-up-${i}` })).statusCode).toBe(200);
    const refused = await hit('GET', '/sports', { 'x-api-key': 'made-up-4' });
    expect([refused.statusCode, refused.json().errorCode]).toEqual([429, 'RATE_LIMITED']);
    expect((await hit('GET', '/sports')).statusCode).toBe(429); // the same address without a key
    expect((await hit('GET', '/sports', { 'x-api-key': 'key-a' })).statusCode).toBe(200); // an issued key has its own
  });

  it('refuses an unknown key with 401 on a route that needs one, before the body is read, and counts it', async () => {
    await build();
    const res = await app.inject({ method: 'POST', url: '/needs-key', headers: { 'x-api-key': 'made-up', 'content-type': 'application/json' }, payload: '{not json', remoteAddress: '10.0.0.1' });
    expect([res.statusCode, res.json()]).toEqual([401, { status: 'failure', errorCode: 'INVALID_API_KEY', message: 'the API key is unknown or revoked' }]);
    expect(quota(res)).toEqual({ limit: '4', remaining: '3', reset: '10', retryAfter: undefined });
    const issued = await app.inject({ method: 'POST', url: '/needs-key', headers: { 'x-api-key': 'key-b' }, payload: {}, remoteAddress: '10.0.0.1' });
    expect(issued.statusCode).toBe(200);
  });

  it('cannot be escaped by forwarding headers', async () => {
    await build();
    for (let i = 0; i < 4; i++) {
      expect((await hit('GET', '/sports', { 'x-forwarded-for': `192.0.2.${i}`, 'x-real-ip': `192.0.2.${i}` })).statusCode).toBe(200);
    }
    expect((await hit('GET', '/sports', { 'x-forwarded-for': '192.0.2.99' })).statusCode).toBe(429);
  });

  it('refuses with the global ceiling across buckets and reports it', async () => {
    await build({ ...LIMITS, globalPerWindow: 4 });
    for (const [method, url] of [['POST', '/orders/new'], ['GET', '/orders'], ['GET', '/trades'], ['GET', '/sports']] as const) {
      expect((await hit(method, url)).statusCode).toBe(200);
    }
    clock += 15_000; // bucket windows (10 s) have reset, the global one (60 s) has not
    const res = await hit('POST', '/orders/cancel/v2');
    expect(res.statusCode).toBe(429);
    expect(res.json().message).toBe('the global request ceiling of 4 is exhausted; retry after 45 s');
    expect(quota(res)).toEqual({ limit: '4', remaining: '0', reset: '45', retryAfter: '45' });
    clock += 45_000;
    expect((await hit('POST', '/orders/cancel/v2')).statusCode).toBe(200);
  });

  it('rounds the reset up to whole seconds and never below 1', async () => {
    await build();
    await hit('GET', '/trades');
    clock += 2_499; // 7.501 s left
    expect(quota(await hit('GET', '/trades'))).toEqual({ limit: '1', remaining: '0', reset: '8', retryAfter: '8' });
    clock += 7_500; // 1 ms left
    expect(quota(await hit('GET', '/trades'))).toEqual({ limit: '1', remaining: '0', reset: '1', retryAfter: '1' });
    clock += 1;
    expect(quota(await hit('GET', '/trades'))).toEqual({ limit: '1', remaining: '0', reset: '10', retryAfter: undefined });
  });

  it('never counts exempt routes nor adds quota headers to them', async () => {
    await build({ ...LIMITS, basePerWindow: 1, globalPerWindow: 1 });
    for (let i = 0; i < 5; i++) {
      for (const url of ['/health/live', '/admin/faucet', '/openapi.json', '/docs/json', '/metrics']) {
        const res = await hit('GET', url);
        expect(res.statusCode).toBe(200);
        expect(res.headers['ratelimit-limit']).toBeUndefined();
      }
    }
    expect(quota(await hit('GET', '/sports'))).toEqual({ limit: '1', remaining: '0', reset: '10', retryAfter: undefined });
  });

  it('does nothing when disabled', async () => {
    await build({ ...LIMITS, enabled: false });
    for (let i = 0; i < 3; i++) {
      const res = await hit('GET', '/trades');
      expect(res.statusCode).toBe(200);
      expect(res.headers['ratelimit-limit']).toBeUndefined();
    }
  });

  it('accepts an asynchronous limiter (a shared store)', async () => {
    const local = new InProcessRateLimiter(rateLimitsFromConfig(LIMITS));
    const remote: RateLimiter = { consume: async (c, b, now) => local.consume(c, b, now) };
    await build(LIMITS, remote);
    expect(quota(await hit('GET', '/trades'))).toEqual({ limit: '1', remaining: '0', reset: '10', retryAfter: undefined });
    expect((await hit('GET', '/trades')).statusCode).toBe(429);
  });
});
