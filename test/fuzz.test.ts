// Fuzzing every route the server lists in its own /openapi.json with generated broken requests over real HTTP:
// each must get a 4xx in the failure envelope (never a 5xx, never a hang, never another shape), the server must
// stay ready, and no refused request may change anything (API views, engine, ledger, journal, every SQLite row).
// Set FUZZ_SEED to replay a run; fast-check prints the seed and the shrunk request of any failure.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { startTestExchange } from './helpers/server.js';
import { defaultConfig } from '../src/config.js';
import { E18, USDC, newWallet, signedFill, signedOrder } from './helpers/wallets.js';
import { createApiKey, fetchToken } from './helpers/realtime.js';
import { envelopeProblem, sendBytes, sendRaw, type RawRequest } from './helpers/fuzz-http.js';
import { routeName, routesFromOpenApi, type RouteSpec } from './helpers/fuzz-routes.js';
import { brokenRequests, unroutedRequests, type FuzzCase, type FuzzPool } from './helpers/fuzz-requests.js';
import { stateSnapshot, type StateSnapshot, type Watched } from './helpers/fuzz-state.js';

const RUNS_PER_ROUTE = Number(process.env.FUZZ_RUNS ?? 90);
const UNROUTED_RUNS = 100;
const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Date.now() % 2 ** 31;

// Module-level start so the route list (and so the tests) come from the running server's OpenAPI document.
const ex = await startTestExchange({
  demo: true,
  rateLimits: { ...defaultConfig().rateLimits, enabled: false },
  // Nothing may move on its own while we compare snapshots: no confirmations, no betting delay timers.
  chainConfirmationDelayMs: 3_600_000,
  bettingDelay: { preGameMs: 0, inPlayMs: 0, inPlayBySportMs: {}, inPlayByLeagueMs: {} },
});
const openapi = await ex.get('/openapi.json');
const routes: RouteSpec[] = routesFromOpenApi(openapi.body);

let pool: FuzzPool;
let watched: Watched;
let before: StateSnapshot;
let sent = 0;
const startedAt = Date.now();
const breakersSeen = new Map<string, Set<string>>();

function describeRequest(r: RawRequest): string {
  const body = r.body === undefined ? '' : Buffer.isBuffer(r.body) ? `<${r.body.length} bytes>` : r.body;
  return `${r.method} ${r.path.slice(0, 400)}\nheaders ${JSON.stringify(r.headers)}\nbody ${body.slice(0, 400)}`;
}

/** Sends one case; throws (for fast-check to shrink) on anything but a 4xx failure envelope. */
async function expectRefused(c: FuzzCase): Promise<void> {
  sent++;
  const res = await sendRaw(ex.url, c.request);
  const problem = envelopeProblem(res.status, res.json);
  if (problem) {
    throw new Error(`${c.breaker}: ${problem}\n${describeRequest(c.request)}\n=> ${res.status} ${res.text.slice(0, 400)}`);
  }
}

async function expectReady(): Promise<void> {
  const ready = await ex.get('/health/ready');
  expect([ready.status, ready.body]).toEqual([200, { status: 'success', data: { ready: true } }]);
}

beforeAll(async () => {
  const fund = (address: string) => ex.admin('POST', '/admin/faucet', { address, amount: (1000n * USDC).toString() });
  const maker = newWallet();
  const taker = newWallet();
  await fund(maker.address);
  await fund(taker.address);
  const active = (await ex.get('/markets/active?pageSize=100')).body.data.markets as {
    marketHash: string;
    exchangeEventId: string;
    leagueId: number;
    sportId: number;
    liveEnabled: boolean;
  }[];
  const preGame = active.filter((m) => !m.liveEnabled);
  const orders = await Promise.all(
    preGame.slice(0, 3).map((m, i) =>
      signedOrder(maker, ex.ctx.config, { marketHash: m.marketHash, totalBetSize: 50n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: i % 2 === 0 }),
    ),
  );
  const posted = await ex.post('/orders/new', { orders: orders.map((o) => o.body) });
  expect(posted.body.data.inserted).toBe(3);
  const fill = await ex.post(
    '/orders/fill/v2',
    await signedFill(taker, ex.ctx.config, { market: preGame[0]!.marketHash, isTakerBettingOutcomeOne: false, stakeWei: 3n * USDC, desiredOdds: 60n * E18 }),
  );
  expect(fill.status).toBe(200);
  const apiKey = await createApiKey(ex, maker.address);
  await fetchToken(ex, apiKey); // creates the realtime signing secret now, not during the fuzz

  pool = {
    marketHashes: active.slice(0, 20).map((m) => m.marketHash),
    eventIds: [...new Set(active.map((m) => m.exchangeEventId))].slice(0, 10),
    addresses: [maker.address, taker.address, newWallet().address],
    orderHashes: orders.map((o) => o.hash),
    fillHashes: [fill.body.data.fillHash],
    leagueIds: [...new Set(active.map((m) => m.leagueId))],
    sportIds: [...new Set(active.map((m) => m.sportId))],
    baseToken: ex.ctx.config.baseTokenAddress,
    executor: ex.ctx.config.executorAddress,
    adminToken: ex.ctx.adminToken,
    apiKey,
    nowSeconds: Math.floor(Date.now() / 1000),
    maxQueryBytes: ex.ctx.config.maxQueryBytes,
    maxBodyBytes: ex.ctx.config.maxBodyBytes,
  };
  watched = { makers: [maker.address, taker.address], addresses: pool.addresses };
  before = await stateSnapshot(ex, watched);
  console.log(`fuzz seed ${seed}`);
});

afterAll(async () => {
  const pairs = [...breakersSeen.values()].reduce((n, set) => n + set.size, 0);
  console.log(`fuzzed ${sent} requests in ${Date.now() - startedAt} ms (${routes.length} routes, ${pairs} distinct route/breaker pairs)`);
  await ex.destroy();
});

describe('fuzz: every route in /openapi.json refuses broken requests with a 4xx envelope and changes nothing', () => {
  it('reads the route list from the server', () => {
    expect(routes.length).toBeGreaterThan(30);
    const names = routes.map(routeName);
    for (const expected of ['POST /orders/new', 'POST /orders/fill/v2', 'POST /orders/cancel/all', 'POST /admin/faucet', 'DELETE /admin/api-keys/{id}']) {
      expect(names).toContain(expected);
    }
  });

  for (const route of routes) {
    it(routeName(route), async () => {
      const seen = new Set<string>();
      breakersSeen.set(routeName(route), seen);
      await fc.assert(
        fc.asyncProperty(brokenRequests(route, pool), async (c) => {
          seen.add(c.breaker);
          await expectRefused(c);
        }),
        { numRuns: RUNS_PER_ROUTE, seed, endOnFailure: false },
      );
      await expectReady();
      expect(await stateSnapshot(ex, watched)).toEqual(before);
      if (route.admin) {
        // Both sides of the guard were exercised: refused for the token, and refused with the right token.
        expect([...seen].some((b) => b.startsWith('auth:'))).toBe(true);
        expect([...seen].some((b) => !b.startsWith('auth:'))).toBe(true);
      }
    });
  }

  it('paths no route serves', async () => {
    await fc.assert(fc.asyncProperty(unroutedRequests(), expectRefused), { numRuns: UNROUTED_RUNS, seed });
    await expectReady();
  });

  it('malformed HTTP on the socket gets a 4xx envelope and the server stays up', async () => {
    const framing = [
      'GET /health/ready HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab',
      'POST /orders/new HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n',
      'POST /orders/new HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n',
      'GET /health/ready HTTP/1.1\r\nHo st: x\r\n\r\n',
      'GET /health/ready HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0000b\r\n\r\n',
      'G\u0001T /health/ready HTTP/1.1\r\nHost: x\r\n\r\n',
      'GET /health/ready HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n',
      'GET /health/ready HTTP/1.1\r\nHost: x\r\nContent-Length: 1e3\r\n\r\n',
      `GET /health/ready HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      'GET /health/ready HTTP/1.1\r\nHost: x\r\n Folded: continuation\r\n\r\n',
      '\u0001\u0002\u0003\r\n\r\n',
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...framing), fc.string({ unit: 'binary-ascii', maxLength: 20 }), async (head, tail) => {
        sent++;
        const res = await sendBytes(ex.url, Buffer.from(head + tail, 'latin1'));
        const problem = envelopeProblem(res.status, res.json);
        if (problem) throw new Error(`${problem}: ${JSON.stringify(head.slice(0, 120))} => ${res.raw.slice(0, 300)}`);
      }),
      { numRuns: 40, seed },
    );
    await expectReady();
  });

  it('nothing changed after all of it', async () => {
    await expectReady();
    expect(await stateSnapshot(ex, watched)).toEqual(before);
    expect(sent).toBeGreaterThanOrEqual(routes.length * RUNS_PER_ROUTE);
  });
});
