// The betting delay (orders posted during it can match) and /trades cursor paging, over HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { defaultConfig } from '../src/config.js';
import { bettingDelayMs } from '../src/api/fills.js';
import { bettingDelayFor } from '@oddex/sdk';
import { startTestExchange, type TestExchange } from './helpers/server.js';
import { E18, USDC, newWallet, signedFill, signedOrder } from './helpers/wallets.js';

describe('betting delay and trade paging', () => {
  let ex: TestExchange;
  let market: { marketHash: string; leagueId: number; sportLabel: string };
  const maker = newWallet();
  const taker = newWallet();

  beforeAll(async () => {
    ex = await startTestExchange({
      demo: true,
      chainConfirmationDelayMs: 50,
      bettingDelay: { preGameMs: 400, inPlayMs: 8000, inPlayBySportMs: { soccer: 10_000 }, inPlayByLeagueMs: { '101': 3000 } },
      rateLimits: { ...defaultConfig().rateLimits, enabled: false },
      maxOrdersPerRequest: 3,
      maxMarketsPerRequest: 2,
    });
    const markets = (await ex.get('/markets/active?type=52&pageSize=100')).body.data.markets;
    market = markets.find((m: { liveEnabled: boolean }) => !m.liveEnabled);
    for (const w of [maker, taker]) await ex.admin('POST', '/admin/faucet', { address: w.address, amount: (1000n * USDC).toString() });
  });
  afterAll(async () => ex.destroy());

  it('chooses the delay: pre-game, else the in-play league, sport or default', () => {
    const fake = (inPlay: boolean) =>
      ({ ...ex.ctx, catalogue: Object.assign(Object.create(ex.ctx.catalogue), { isInPlay: () => inPlay }) }) as typeof ex.ctx;
    const rec = (leagueId: number, sportLabel: string) => ({ ...ex.ctx.catalogue.getMarket(market.marketHash)!, leagueId, sportLabel });
    expect(bettingDelayMs(fake(false), rec(101, 'Soccer'))).toBe(400);
    expect(bettingDelayMs(fake(true), rec(101, 'Soccer'))).toBe(3000);
    expect(bettingDelayMs(fake(true), rec(102, 'Soccer'))).toBe(10_000);
    expect(bettingDelayMs(fake(true), rec(301, 'Tennis'))).toBe(8000);
  });

  it('reports the delays on /metadata, from which a client finds a market\'s by the same rule', async () => {
    const delays = (await ex.get('/metadata')).body.data.bettingDelays;
    expect(delays).toEqual({ preGameMs: 400, inPlayMs: 8000, inPlayBySportMs: { soccer: 10_000 }, inPlayByLeagueMs: { '101': 3000 } });
    expect(bettingDelayFor(delays, { leagueId: 101, sportLabel: 'Soccer' }, false)).toBe(400);
    expect(bettingDelayFor(delays, { leagueId: 101, sportLabel: 'Soccer' }, true)).toBe(3000);
    expect(bettingDelayFor(delays, { leagueId: 102, sportLabel: 'Soccer' }, true)).toBe(10_000);
    expect(bettingDelayFor(delays, { leagueId: 301, sportLabel: 'Tennis' }, true)).toBe(8000);
  });

  it('matches an order posted during the delay when it is better', async () => {
    const config = ex.ctx.config;
    const worse = await signedOrder(maker, config, { marketHash: market.marketHash, totalBetSize: 50n * USDC, percentageOdds: 50n * E18, isMakerBettingOutcomeOne: true });
    expect((await ex.post('/orders/new', { orders: [worse.body] })).body.data.inserted).toBe(1);
    const started = Date.now();
    const pending = ex.post(
      '/orders/fill/v2',
      await signedFill(taker, config, { market: market.marketHash, isTakerBettingOutcomeOne: false, stakeWei: 10n * USDC, desiredOdds: 50n * E18 }),
    );
    await sleep(100);
    const better = await signedOrder(maker, config, { marketHash: market.marketHash, totalBetSize: 50n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: true });
    expect((await ex.post('/orders/new', { orders: [better.body] })).body.data.inserted).toBe(1);
    const res = await pending;
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    // Taker odds 60% against the newer order, not 50% against the older one.
    expect(res.body.data).toMatchObject({ totalFilled: '10000000', averageOdds: '60000000000000000000' });
    const trades = (await ex.get(`/trades/orders?orderHashes=${better.hash},${worse.hash}`)).body.data.trades;
    expect(trades.map((t: { orderHash: string }) => t.orderHash)).toEqual([better.hash, better.hash]);
  });

  it('limits orders and distinct markets per request', async () => {
    const markets = (await ex.get('/markets/active?type=52&pageSize=3')).body.data.markets;
    const orders = await Promise.all(
      markets.map((m: { marketHash: string }) =>
        signedOrder(maker, ex.ctx.config, { marketHash: m.marketHash, totalBetSize: 10n * USDC, percentageOdds: 10n * E18, isMakerBettingOutcomeOne: false }),
      ),
    );
    const threeMarkets = await ex.post('/orders/new', { orders: orders.map((o) => o.body) });
    expect([threeMarkets.status, threeMarkets.body.errorCode]).toEqual([400, 'TOO_MANY_MARKETS']);
    const fourOrders = await ex.post('/orders/new', { orders: [...orders, orders[0]!].map((o) => o.body) });
    expect([fourOrders.status, fourOrders.body.errorCode, fourOrders.body.details[0].rule]).toEqual([400, 'INVALID_PARAMETER', 'maxItems']);
    expect((await ex.get(`/orders?maker=${maker.address}`)).body.data.map((o: { orderHash: string }) => o.orderHash)).not.toContain(orders[0]!.hash);
  });

  it('restricts a maker after repeated balance shortfalls; the operator sees it and lifts it', async () => {
    const m = newWallet();
    const sink = newWallet().address;
    const fund = (amount: bigint) => ex.admin('POST', '/admin/faucet', { address: m.address, amount: amount.toString() });
    const order = () =>
      signedOrder(m, ex.ctx.config, { marketHash: market.marketHash, totalBetSize: 50n * USDC, percentageOdds: 10n * E18, isMakerBettingOutcomeOne: false });
    for (let i = 0; i < 3; i++) {
      await fund(50n * USDC);
      expect((await ex.post('/orders/new', { orders: [(await order()).body] })).body.data.inserted).toBe(1);
      // The balance drops below the open order: it leaves the book, a shortfall is recorded.
      await ex.admin('POST', '/admin/chain/transfer', { from: m.address, to: sink, amount: (50n * USDC).toString() });
    }
    await fund(50n * USDC);
    const refused = await ex.post('/orders/new', { orders: [(await order()).body] });
    expect([refused.status, refused.body.errorCode]).toEqual([403, 'ACCOUNT_RESTRICTED']);
    const account = (await ex.admin('GET', `/admin/accounts/${m.address}`)).body.data;
    expect(account).toMatchObject({ address: m.address, balance: '50000000', openOrders: 0, restricted: true });
    expect(account.recentShortfalls).toHaveLength(3);
    expect(Date.parse(account.restrictedUntil) - Date.now()).toBeGreaterThan(ex.ctx.config.restriction.durationMs - 60_000);
    const lifted = (await ex.admin('POST', `/admin/accounts/${m.address}/lift-restriction`)).body.data;
    expect(lifted).toMatchObject({ restricted: false, restrictedUntil: null });
    expect((await ex.post('/orders/new', { orders: [(await order()).body] })).body.data.inserted).toBe(1);
  });

  it('pages /trades with nextKey, newest first, visiting every trade once', async () => {
    const config = ex.ctx.config;
    for (let i = 0; i < 3; i++) {
      const f = await signedFill(taker, config, { market: market.marketHash, isTakerBettingOutcomeOne: false, stakeWei: 2n * USDC, desiredOdds: 50n * E18 });
      expect((await ex.post('/orders/fill/v2', f)).status).toBe(200);
    }
    const all = (await ex.get(`/trades?bettor=${taker.address}`)).body.data;
    expect(all.count).toBe(4);
    const seen: string[] = [];
    let key = '';
    for (let page = 0; page < 10; page++) {
      const res = (await ex.get(`/trades?bettor=${taker.address}&pageSize=1${key ? `&paginationKey=${key}` : ''}`)).body.data;
      expect(res).toMatchObject({ pageSize: 1, count: 4 });
      seen.push(...res.trades.map((t: { _id: string }) => t._id));
      key = res.nextKey;
      if (!key) break;
    }
    expect(seen).toEqual(all.trades.map((t: { _id: string }) => t._id));
    expect(new Set(seen).size).toBe(4);
    const bad = await ex.get(`/trades?bettor=${taker.address}&paginationKey=nonsense`);
    expect([bad.status, bad.body.errorCode]).toEqual([400, 'INVALID_PAGINATION_KEY']);
    // A forged key longer than any this server hands out is the same error, as on /markets/active.
    const forged = await ex.get(`/trades?bettor=${taker.address}&paginationKey=${'A'.repeat(60)}`);
    expect([forged.status, forged.body.errorCode]).toEqual([400, 'INVALID_PAGINATION_KEY']);
    const unscoped = await ex.get('/trades');
    expect([unscoped.status, unscoped.body.errorCode]).toEqual([400, 'MISSING_SCOPE_FILTER']);
    const tooBig = await ex.get(`/trades?bettor=${taker.address}&pageSize=301`);
    expect([tooBig.status, tooBig.body.errorCode]).toEqual([400, 'INVALID_PARAMETER']);
  });
});
