// The operator's routes with bodies their schemas accept but with values at the edges (huge numbers, bounds, long
// strings): each answers a success or a 4xx failure envelope, never a 5xx or a hang, and whatever they stored
// leaves every public read route answering. Unlike fuzz.test.ts these requests may change the catalogue.
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { startTestExchange } from './helpers/server.js';
import { defaultConfig } from '../src/config.js';
import { newWallet } from './helpers/wallets.js';
import { sendRaw } from './helpers/fuzz-http.js';
import { routeName, routesFromOpenApi } from './helpers/fuzz-routes.js';
import { edgeAdminRequests, type FuzzPool } from './helpers/fuzz-requests.js';

const RUNS_PER_ROUTE = Number(process.env.FUZZ_RUNS ?? 60);
const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Date.now() % 2 ** 31;

const ex = await startTestExchange({
  demo: true,
  rateLimits: { ...defaultConfig().rateLimits, enabled: false },
  bettingDelay: { preGameMs: 0, inPlayMs: 0, inPlayBySportMs: {}, inPlayByLeagueMs: {} },
});
const routes = routesFromOpenApi((await ex.get('/openapi.json')).body).filter((r) => r.admin && r.method !== 'GET');
const active = (await ex.get('/markets/active?pageSize=100')).body.data.markets as {
  marketHash: string;
  exchangeEventId: string;
  leagueId: number;
  sportId: number;
  teamOneId?: number;
}[];
const sportIds = [...new Set(active.map((m) => m.sportId))];
const teamIds = (await Promise.all(sportIds.map(async (id) => (await ex.get(`/teams?sportId=${id}`)).body.data ?? [])))
  .flat()
  .map((t: { id: number }) => t.id);
const pool: FuzzPool = {
  marketHashes: active.slice(0, 20).map((m) => m.marketHash),
  eventIds: [...new Set(active.map((m) => m.exchangeEventId))].slice(0, 10),
  addresses: [newWallet().address, newWallet().address],
  orderHashes: [],
  fillHashes: [],
  leagueIds: [...new Set(active.map((m) => m.leagueId))],
  sportIds,
  teamIds,
  baseToken: ex.ctx.config.baseTokenAddress,
  executor: ex.ctx.config.executorAddress,
  adminToken: ex.ctx.adminToken,
  apiKey: '',
  nowSeconds: Math.floor(Date.now() / 1000),
  maxQueryBytes: ex.ctx.config.maxQueryBytes,
  maxBodyBytes: ex.ctx.config.maxBodyBytes,
};
console.log(`admin fuzz seed ${seed}`);
afterAll(async () => ex.destroy());

/** Public reads over everything the catalogue holds: each must still answer 200. */
async function publicReadsAnswer(): Promise<void> {
  const leagues = ((await ex.get('/leagues/active')).body.data as { leagueId: number }[]).map((l) => l.leagueId);
  const paths = [
    '/sports',
    '/leagues/active',
    '/markets/active?pageSize=100',
    '/markets/popular',
    '/metadata',
    `/live-scores?exchangeEventIds=${pool.eventIds.join(',')}`,
    ...[...new Set([...leagues, ...pool.leagueIds])].map((id) => `/fixture/active?leagueId=${id}`),
    ...pool.sportIds.map((id) => `/teams?sportId=${id}`),
  ];
  for (const path of paths) {
    const res = await ex.get(path);
    expect([path, res.status]).toEqual([path, 200]);
  }
}

describe('fuzz: admin routes with bodies at the edges of their schemas', () => {
  it('covers the operator routes that take input', () => {
    expect(routes.map(routeName)).toEqual(expect.arrayContaining(['POST /admin/fixtures', 'POST /admin/markets', 'POST /admin/live-scores']));
  });

  for (const route of routes) {
    it(routeName(route), async () => {
      await fc.assert(
        fc.asyncProperty(edgeAdminRequests(route, pool), async (c) => {
          const res = await sendRaw(ex.url, c.request);
          const body = res.json as { status?: string; errorCode?: string } | undefined;
          const fine =
            (res.status === 200 && body?.status === 'success') ||
            (res.status >= 400 && res.status < 500 && body?.status === 'failure' && typeof body.errorCode === 'string');
          if (!fine) throw new Error(`${c.request.method} ${c.request.path}\nbody ${String(c.request.body).slice(0, 400)}\n=> ${res.status} ${res.text.slice(0, 300)}`);
        }),
        { numRuns: RUNS_PER_ROUTE, seed, endOnFailure: true },
      );
      await publicReadsAnswer();
    });
  }

  it('a fixture far in the future is refused and leaves its league readable', async () => {
    const res = await ex.admin('POST', '/admin/fixtures', {
      leagueId: pool.leagueIds[0],
      teamOneId: teamIds[0],
      teamTwoId: teamIds[1],
      gameTime: 9e15,
    });
    expect([res.status, res.body.errorCode, res.body.details?.[0]?.field]).toEqual([400, 'INVALID_PARAMETER', 'gameTime']);
    await publicReadsAnswer();
  });
});
