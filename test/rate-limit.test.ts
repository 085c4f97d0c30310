// Rate limits (spec section 8, DECISIONS: 429 with Retry-After) and request limits, against the real server.
// The server runs on a test clock, so windows are crossed by moving the clock rather than by sleeping.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from 'node:net';
import { startTestExchange, type TestExchange, type TestResponse } from './helpers/server.js';
import { defaultConfig, type RateLimitConfig } from '../src/config.js';
import { BUCKET_ROUTES } from '../src/api/rate-limit/buckets.js';

const LIMITS: RateLimitConfig = {
  enabled: true,
  windowMs: 10_000,
  orderOpsPerWindow: 4,
  orderReadsPerWindow: 3,
  tradesPerWindow: 2,
  basePerWindow: 5,
  globalWindowMs: 60_000,
  globalPerWindow: 1000,
  adminAuthFailuresPerWindow: 3,
};

const quota = (res: TestResponse) => ({
  limit: res.headers.get('ratelimit-limit'),
  remaining: res.headers.get('ratelimit-remaining'),
  reset: res.headers.get('ratelimit-reset'),
  retryAfter: res.headers.get('retry-after'),
});
const counted = (limit: number, remaining: number, reset = 10) => ({
  limit: String(limit),
  remaining: String(remaining),
  reset: String(reset),
  retryAfter: null,
});
const refusedBy = (limit: number, reset: number) => ({
  limit: String(limit),
  remaining: '0',
  reset: String(reset),
  retryAfter: String(reset),
});
const rateLimited = (what: string, limit: number, seconds: number) => ({
  status: 'failure',
  errorCode: 'RATE_LIMITED',
  message: `${what} of ${limit} is exhausted; retry after ${seconds} s`,
});

describe('rate limits', () => {
  let ex: TestExchange;
  let clock = Date.UTC(2026, 0, 1);
  // A request on a route of each bucket; bucket routes answer 400 without parameters, which still counts.
  // Only issued keys have buckets of their own: each name used below stands for a key the operator issued.
  const issued = new Map<string, string>();
  const as = async (name?: string): Promise<Record<string, string>> => {
    if (!name) return {};
    if (!issued.has(name)) {
      const res = await ex.admin('POST', '/admin/api-keys', { address: '0x0000000000000000000000000000000000000003' });
      issued.set(name, res.body.data.apiKey as string);
    }
    return { 'x-api-key': issued.get(name)! };
  };
  const base = async (apiKey?: string) => ex.get('/no/such/route?page=1', await as(apiKey));
  const trades = async (apiKey?: string, path = '/trades') => ex.get(path, await as(apiKey));
  const orderRead = async (apiKey?: string, path = '/orders') => ex.get(path, await as(apiKey));
  const orderOp = async (apiKey?: string, path = '/orders/new') => ex.post(path, {}, await as(apiKey));

  beforeAll(async () => {
    ex = await startTestExchange({ rateLimits: LIMITS }, { now: () => clock });
  });
  afterAll(async () => ex.destroy());

  it('base: counts down, refuses the 6th request with 429 RATE_LIMITED and Retry-After, recovers after the window', async () => {
    for (let i = 0; i < 5; i++) {
      const res = await base('base-key');
      expect(res.status).toBe(404);
      expect(res.body.errorCode).toBe('NOT_FOUND');
      expect(quota(res)).toEqual(counted(5, 4 - i));
    }
    clock += 3_500;
    const refused = await base('base-key');
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual(rateLimited('the base request limit', 5, 7));
    expect(quota(refused)).toEqual(refusedBy(5, 7));
    // Other base routes share the bucket.
    expect((await ex.get('/balances/0x0000000000000000000000000000000000000001', await as('base-key'))).status).toBe(429);

    clock += 6_500; // the window (10 s from the first request) has reset
    const again = await base('base-key');
    expect(again.status).toBe(404);
    expect(quota(again)).toEqual(counted(5, 4));
  });

  it('trades: GET /trades and GET /trades/orders share 2 per window (all four trades routes: buckets.test.ts)', async () => {
    const first = await trades('trades-key', '/trades');
    expect(first.status).not.toBe(429);
    expect(quota(first)).toEqual(counted(2, 1));
    expect(quota(await trades('trades-key', '/trades/orders'))).toEqual(counted(2, 0));
    for (const path of ['/trades', '/trades/orders?orderHashes=0x1']) {
      const res = await trades('trades-key', path);
      expect(res.status).toBe(429);
      expect(res.body).toEqual(rateLimited('the trades request limit', 2, 10));
      expect(quota(res)).toEqual(refusedBy(2, 10));
    }
    clock += 10_000;
    expect(quota(await trades('trades-key'))).toEqual(counted(2, 1));
  });

  it('order reads: GET /orders and GET /orders/odds/best share 3 per window', async () => {
    expect(quota(await orderRead('reads-key', '/orders'))).toEqual(counted(3, 2));
    expect(quota(await orderRead('reads-key', '/orders/odds/best'))).toEqual(counted(3, 1));
    expect(quota(await orderRead('reads-key', '/orders?maker=0x1'))).toEqual(counted(3, 0));
    const res = await orderRead('reads-key', '/orders/odds/best');
    expect(res.status).toBe(429);
    expect(res.body).toEqual(rateLimited('the orderReads request limit', 3, 10));
    expect(quota(res)).toEqual(refusedBy(3, 10));
  });

  it('order operations: new, cancel/v2, cancel/event, cancel/all and fill/v2 share 4 per window', async () => {
    const paths = ['/orders/new', '/orders/cancel/v2', '/orders/cancel/event', '/orders/cancel/all'];
    for (const [i, path] of paths.entries()) {
      const res = await orderOp('ops-key', path);
      expect(res.status).not.toBe(429);
      expect(quota(res)).toEqual(counted(4, 3 - i));
    }
    const res = await orderOp('ops-key', '/orders/fill/v2');
    expect(res.status).toBe(429);
    expect(res.body).toEqual(rateLimited('the orderOps request limit', 4, 10));
    expect(quota(res)).toEqual(refusedBy(4, 10));
  });

  it('keeps buckets independent: exhausting trades leaves base and the order buckets whole', async () => {
    await trades('indep-key');
    await trades('indep-key');
    expect((await trades('indep-key')).status).toBe(429);
    expect(quota(await base('indep-key'))).toEqual(counted(5, 4));
    expect(quota(await orderRead('indep-key'))).toEqual(counted(3, 2));
    expect(quota(await orderOp('indep-key'))).toEqual(counted(4, 3));
  });

  it('keys by API key when X-Api-Key is sent, else by address: each has its own quota', async () => {
    await trades('key-one');
    await trades('key-one');
    expect((await trades('key-one')).status).toBe(429);
    expect(quota(await trades('key-two'))).toEqual(counted(2, 1));
    // Without a key the client is its address (127.0.0.1), which has a quota of its own.
    expect(quota(await trades())).toEqual(counted(2, 1));
    expect(quota(await trades())).toEqual(counted(2, 0));
    expect((await trades()).status).toBe(429);
    expect(quota(await trades('key-three'))).toEqual(counted(2, 1));
    clock += 10_000; // leave 127.0.0.1 with a fresh window for the tests below
  });

  it('counts keys nobody issued under the address, and a revoked key too; a route that needs a key answers 401 first', async () => {
    clock += 10_000;
    for (let i = 0; i < 2; i++) expect(quota(await ex.get('/trades', { 'x-api-key': `invented-${i}` }))).toEqual(counted(2, 1 - i));
    expect((await ex.get('/trades', { 'x-api-key': 'invented-2' })).status).toBe(429);
    expect((await trades()).status).toBe(429); // the same address without a key: the same bucket

    const created = await ex.admin('POST', '/admin/api-keys', { address: '0x0000000000000000000000000000000000000004' });
    const { id, apiKey } = created.body.data as { id: string; apiKey: string };
    expect((await ex.get('/trades', { 'x-api-key': apiKey })).status).not.toBe(429);
    expect((await ex.admin('DELETE', `/admin/api-keys/${id}`)).status).toBe(200);
    expect((await ex.get('/trades', { 'x-api-key': apiKey })).status).toBe(429);

    clock += 10_000;
    // POST /heartbeat needs a key: an invented one is refused before its (malformed) body is parsed, and counted.
    const res = await ex.post('/heartbeat', '{"requestor":', { 'x-api-key': 'invented-3' });
    expect([res.status, res.body.errorCode, quota(res)]).toEqual([401, 'INVALID_API_KEY', counted(5, 4)]);
    clock += 10_000;
  });

  it('never limits health, docs, the OpenAPI document or the operator API, and sends them no quota headers', async () => {
    for (let i = 0; i < 6; i++) await base('exempt-key');
    expect((await base('exempt-key')).status).toBe(429);
    const exempt: (() => Promise<TestResponse>)[] = [
      async () => ex.get('/health/live', await as('exempt-key')),
      async () => ex.get('/health/ready', await as('exempt-key')),
      async () => ex.get('/openapi.json', await as('exempt-key')),
      async () => ex.get('/docs/json', await as('exempt-key')),
      () => ex.admin('POST', '/admin/api-keys', { address: '0x0000000000000000000000000000000000000002' }),
    ];
    for (let round = 0; round < 8; round++) {
      for (const call of exempt) {
        const res = await call();
        expect(res.status).toBe(200);
        expect(quota(res)).toEqual({ limit: null, remaining: null, reset: null, retryAfter: null });
      }
    }
  });

  it('classifies every /orders and /trades operation the server documents through the bucket table', async () => {
    const spec = (await ex.get('/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    const table = new Set(Object.values(BUCKET_ROUTES).flat());
    const documented = Object.entries(spec.paths)
      .filter(([path]) => path.startsWith('/orders') || path.startsWith('/trades'))
      .flatMap(([path, ops]) => Object.keys(ops).filter((m) => m !== 'head').map((m) => `${m.toUpperCase()} ${path}`));
    expect(documented.length).toBeGreaterThanOrEqual(9);
    for (const route of documented) expect(table).toContain(route);
  });
});

describe('failed admin authentications', () => {
  let ex: TestExchange;
  let clock = Date.UTC(2026, 0, 1);
  beforeAll(async () => {
    ex = await startTestExchange({ rateLimits: LIMITS }, { now: () => clock });
  });
  afterAll(async () => ex.destroy());

  it('are limited per address: after 3 failures even the right token waits out the window', async () => {
    const guess = (token: string) =>
      ex.post('/admin/api-keys', { address: '0x0000000000000000000000000000000000000006' }, { authorization: `Bearer ${token}` });
    for (let i = 0; i < 3; i++) expect((await guess(`guess-${i}`)).body.errorCode).toBe('UNAUTHORIZED');
    clock += 4_000;
    const refused = await guess('test-admin-token');
    expect([refused.status, refused.headers.get('retry-after'), refused.body]).toEqual([
      429,
      '6',
      { status: 'failure', errorCode: 'RATE_LIMITED', message: 'too many failed admin authentications; retry after 6 s' },
    ]);
    clock += 6_000;
    expect((await guess('test-admin-token')).status).toBe(200);
  });
});

describe('the global ceiling', () => {
  let ex: TestExchange;
  let clock = Date.UTC(2026, 0, 1);
  beforeAll(async () => {
    ex = await startTestExchange({ rateLimits: { ...LIMITS, globalPerWindow: 6 } }, { now: () => clock });
  });
  afterAll(async () => ex.destroy());

  const issue = async () => ({
    'x-api-key': (await ex.admin('POST', '/admin/api-keys', { address: '0x0000000000000000000000000000000000000005' })).body.data
      .apiKey as string,
  });

  it('counts every bucket in one ceiling per client and reports it when it refuses', async () => {
    const key = await issue();
    expect((await ex.get('/trades', key)).headers.get('ratelimit-limit')).toBe('2'); // its own bucket is reported
    await ex.get('/trades', key);
    await ex.get('/orders', key);
    await ex.post('/orders/new', {}, key);
    await ex.get('/nowhere', key);
    await ex.get('/nowhere', key);
    clock += 20_000; // every bucket window has reset; the global one (60 s) has 40 s left
    for (const call of [() => ex.get('/nowhere', key), () => ex.get('/orders', key), () => ex.post('/orders/cancel/all', {}, key)]) {
      const res = await call();
      expect(res.status).toBe(429);
      expect(res.body).toEqual(rateLimited('the global request ceiling', 6, 40));
      expect(quota(res)).toEqual(refusedBy(6, 40));
    }
    // Another client is not affected.
    expect(quota(await ex.get('/nowhere', await issue()))).toEqual(counted(5, 4));
    clock += 40_000;
    expect(quota(await ex.get('/nowhere', key))).toEqual(counted(5, 4));
  });
});

describe('request limits', () => {
  let ex: TestExchange;
  beforeAll(async () => {
    ex = await startTestExchange({
      maxBodyBytes: 1024,
      maxQueryBytes: 512,
      headersTimeoutMs: 300,
      requestTimeoutMs: 600,
      rateLimits: { ...defaultConfig().rateLimits, enabled: false },
    });
  });
  afterAll(async () => ex.destroy());

  it('refuses a body over bodyLimit with 413 BODY_TOO_LARGE', async () => {
    const res = await ex.post('/orders/new', JSON.stringify({ orders: [], pad: 'x'.repeat(1100) }));
    expect(res.status).toBe(413);
    expect(res.body).toEqual({
      status: 'failure',
      errorCode: 'BODY_TOO_LARGE',
      message: 'request body is larger than the server accepts',
    });
  });

  it('refuses a query string over maxQueryBytes with 414 QUERY_TOO_LONG, and accepts one at the limit', async () => {
    const atLimit = await ex.get('/nowhere?q=' + 'a'.repeat(510));
    expect(atLimit.status).toBe(404);
    const over = await ex.get('/nowhere?q=' + 'a'.repeat(511));
    expect(over.status).toBe(414);
    expect(over.body).toEqual({
      status: 'failure',
      errorCode: 'QUERY_TOO_LONG',
      message: 'the query string is longer than 512 bytes',
    });
  });

  /** Writes `data` on a raw socket and never sends more; resolves with what the server answered when it closes. */
  function stall(data: string): Promise<{ text: string; ms: number }> {
    return new Promise((resolve, reject) => {
      const started = Date.now();
      let text = '';
      const socket = connect(ex.port, '127.0.0.1', () => socket.write(data));
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (text += chunk));
      socket.on('close', () => resolve({ text, ms: Date.now() - started }));
      socket.on('error', reject);
      setTimeout(() => reject(new Error('the server kept a stalled socket open')), 5000).unref();
    });
  }
  const timeoutReply =
    'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: 97\r\n\r\n' +
    '{"status":"failure","errorCode":"REQUEST_TIMEOUT","message":"the request did not arrive in time"}';

  it('cuts off clients that send headers slowly, send nothing, or never finish the body, without stalling others', async () => {
    const stalled = Promise.all([
      stall('GET /health/live HTTP/1.1\r\nHost: x\r\nX-Slow: 1'), // headers never finished
      stall('GET /health/live HTTP/1.1\r\nHost: x\r\nX-Slow: 2'),
      stall(''), // connected, silent
      stall('POST /orders/new HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"orders":'),
    ]);
    // Meanwhile everyone else is served, long before the stalled clients are cut off.
    const started = Date.now();
    for (let i = 0; i < 5; i++) expect((await ex.get('/health/live')).status).toBe(200);
    const othersServedMs = Date.now() - started;
    const [slowHeaders1, slowHeaders2, silent, unfinishedBody] = await stalled;
    for (const headerStall of [slowHeaders1!, slowHeaders2!, silent!]) {
      expect(headerStall.text).toBe(timeoutReply);
      expect(headerStall.ms).toBeGreaterThanOrEqual(290); // headersTimeoutMs 300, checked every 75 ms
      expect(headerStall.ms).toBeLessThan(3000);
      expect(othersServedMs).toBeLessThan(headerStall.ms);
    }
    expect(unfinishedBody!.text).toBe(timeoutReply);
    expect(unfinishedBody!.ms).toBeGreaterThanOrEqual(590); // requestTimeoutMs 600
    expect(unfinishedBody!.ms).toBeLessThan(3500);
  });

  it('answers malformed HTTP in the failure envelope and closes', async () => {
    const { text } = await stall('THIS IS NOT HTTP\r\n\r\n');
    expect(text).toBe(
      'HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: 81\r\n\r\n' +
        '{"status":"failure","errorCode":"BAD_REQUEST","message":"malformed HTTP request"}',
    );
  });
});

describe('deeply nested JSON bodies', () => {
  let ex: TestExchange;
  beforeAll(async () => {
    ex = await startTestExchange({ rateLimits: { ...defaultConfig().rateLimits, enabled: false } });
  });
  afterAll(async () => ex.destroy());

  const nested = (depth: number, inner = '') => '['.repeat(depth) + inner + ']'.repeat(depth);

  it('refuses a 1 MB body of nested arrays with 400 MALFORMED_JSON before parsing it, without stalling others', async () => {
    // 499,990 levels inside {"orders": ...}: parsing it alone took 0.5-0.9 s of the event loop.
    const body = `{"orders":${nested(499_990)}}`;
    expect(body.length).toBeLessThan(1_048_576);
    const started = Date.now();
    const [deep, live] = await Promise.all([ex.post('/orders/new', body), ex.get('/health/live')]);
    expect(deep.status).toBe(400);
    expect(deep.body).toEqual({
      status: 'failure',
      errorCode: 'MALFORMED_JSON',
      message: 'request body nests objects and arrays deeper than 32 levels',
    });
    expect(live.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(400);
  });

  it('parses bodies nested up to 32 levels (schema errors as before), and brackets inside strings do not count', async () => {
    const at = await ex.post('/orders/new', `{"orders":${nested(31)}}`);
    expect(at.status).toBe(400);
    expect(at.body.errorCode).toBe('INVALID_PARAMETER');
    const over = await ex.post('/orders/new', `{"orders":${nested(32)}}`);
    expect(over.body.errorCode).toBe('MALFORMED_JSON');
    const quoted = await ex.post('/orders/new', JSON.stringify({ orders: [{ marketHash: '['.repeat(100) + '\\"[' }] }));
    expect(quoted.status).toBe(400);
    expect(quoted.body.errorCode).toBe('INVALID_PARAMETER');
    // Prototype poisoning is still refused by the parser behind the check.
    expect((await ex.post('/orders/new', '{"__proto__":{"x":1},"orders":[]}')).body.errorCode).toBe('MALFORMED_JSON');
    expect((await ex.post('/orders/new', '{"orders":')).body.errorCode).toBe('MALFORMED_JSON');
    expect((await ex.post('/orders/new', '')).body.errorCode).toBe('MALFORMED_JSON');
  });
});
