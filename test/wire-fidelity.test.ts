// What clients written for the public exchange API read, checked over HTTP and with the official `centrifuge`
// client: best odds without null odds, ce_refunds only for its bettor, the in-play rule of markets not enabled for
// in-play betting, and the ODDEX_COMPAT=sx preset signed with viem using the public exchange's own domain values.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PrivateKeyAccount } from 'viem';
import type { PublicationContext, SubscribedContext, Subscription, UnsubscribedContext } from 'centrifuge';
import { ConfigError, loadConfig, type Config } from '../src/config.js';
import { startTestExchange, type TestExchange } from './helpers/server.js';
import { centrifugeClient, createApiKey, fetchToken, waitFor, wsUrl } from './helpers/realtime.js';
import { E18, USDC, newWallet, signedCancel, signedFill, signedOrder } from './helpers/wallets.js';
import { betTestConfig, createSoccerLeague, fillAndConfirm, fund, fundedWallet, postOrder, type TestCatalogue } from './helpers/bets.js';

type Rest = Record<string, unknown>;

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

function record(sub: Subscription) {
  const pubs: PublicationContext[] = [];
  const subscribed: SubscribedContext[] = [];
  const unsubscribed: UnsubscribedContext[] = [];
  sub.on('publication', (p) => pubs.push(p));
  sub.on('subscribed', (s) => subscribed.push(s));
  sub.on('unsubscribed', (u) => unsubscribed.push(u));
  sub.subscribe();
  return { pubs, subscribed, unsubscribed };
}

async function connectAs(ex: TestExchange, address: string) {
  const key = await createApiKey(ex, address);
  const c = centrifugeClient(wsUrl(ex), { getToken: () => fetchToken(ex, key) });
  cleanup.push(() => c.disconnect());
  c.connect();
  await c.ready(5000);
  return c;
}

async function admin(ex: TestExchange, path: string, body: unknown) {
  const res = await ex.admin('POST', path, body);
  expect([path, res.status]).toEqual([path, 200]);
  return res.body.data;
}

async function newFixture(ex: TestExchange, cat: TestCatalogue): Promise<string> {
  const fixture = await admin(ex, '/admin/fixtures', {
    leagueId: cat.leagueId,
    teamOneId: cat.teamOneId,
    teamTwoId: cat.teamTwoId,
    gameTime: Math.floor(Date.now() / 1000) + 3600,
  });
  return fixture.eventId as string;
}

async function newMarket(ex: TestExchange, exchangeEventId: string, market: { type: number; line?: number; liveEnabled?: boolean }): Promise<string> {
  const [created] = await admin(ex, '/admin/markets', { exchangeEventId, ...market });
  return created.marketHash as string;
}

describe('wire fidelity', () => {
  let ex: TestExchange;
  let cat: TestCatalogue;
  const PRE_GAME_DELAY_MS = 300;

  beforeAll(async () => {
    ex = await startTestExchange({
      ...betTestConfig(),
      bettingDelay: { preGameMs: PRE_GAME_DELAY_MS, inPlayMs: 0, inPlayBySportMs: {}, inPlayByLeagueMs: {} },
    });
    cat = await createSoccerLeague(ex);
  });
  afterAll(async () => ex.destroy());

  const funded = () => fundedWallet(ex);

  it('best odds leave out a side without orders and a market without orders, by market hashes and by league', async () => {
    const event = await newFixture(ex, cat);
    const oneSided = await newMarket(ex, event, { type: 52 });
    const empty = await newMarket(ex, event, { type: 2, line: 2.5 });
    const maker = await funded();
    await postOrder(ex, maker, { marketHash: oneSided, totalBetSize: 20n * USDC, percentageOdds: 45n * E18, isMakerBettingOutcomeOne: false });

    const token = ex.ctx.config.baseTokenAddress;
    const byHashes = await ex.get(`/orders/odds/best?marketHashes=${oneSided},${empty}&baseToken=${token}`);
    const expected = [{ marketHash: oneSided, baseToken: token, outcomeTwo: { percentageOdds: '45000000000000000000', updatedAt: expect.any(Number) } }];
    expect(byHashes.body).toEqual({ status: 'success', data: { bestOdds: expected } });
    const byLeague = await ex.get(`/orders/odds/best?leagueIds=${cat.leagueId}&baseToken=${token}`);
    expect(byLeague.body.data.bestOdds).toEqual(expected);
    expect((await ex.get(`/orders/odds/best?marketHashes=${empty}&baseToken=${token}`)).body.data).toEqual({ bestOdds: [] });

    // Both sides once the other one has an order; every percentageOdds converts with BigInt.
    await postOrder(ex, maker, { marketHash: oneSided, totalBetSize: 20n * USDC, percentageOdds: 50n * E18, isMakerBettingOutcomeOne: true });
    const both = (await ex.get(`/orders/odds/best?marketHashes=${oneSided}&baseToken=${token}`)).body.data.bestOdds;
    expect(both).toEqual([
      {
        marketHash: oneSided,
        baseToken: token,
        outcomeOne: { percentageOdds: '50000000000000000000', updatedAt: expect.any(Number) },
        outcomeTwo: { percentageOdds: '45000000000000000000', updatedAt: expect.any(Number) },
      },
    ]);
    for (const side of [both[0].outcomeOne, both[0].outcomeTwo]) expect(BigInt(side.percentageOdds)).toBeGreaterThan(0n);
  });

  it('the OpenAPI document states each of these choices on the routes concerned', async () => {
    const paths = (await ex.get('/openapi.json')).body.paths as Record<string, Record<string, { description?: string }>>;
    const described = (path: string, method: string) => paths[path]?.[method]?.description ?? '';
    expect(described('/orders', 'get')).toMatch(/status.*updateTime/s);
    expect(described('/orders/new', 'post')).toMatch(/MARKET_NOT_LIVE_ENABLED/);
    expect(described('/orders/fill/v2', 'post')).toMatch(/MARKET_NOT_LIVE_ENABLED/);
    expect(described('/orders/odds/best', 'get')).toMatch(/no percentageOdds is ever null.*sportId, leagueId/s);
    expect(described('/trades', 'get')).toMatch(/one trade object per publication/);
    expect(described('/trades/consolidated', 'get')).toMatch(/base-token units, never wei/);
    expect(described('/heartbeat', 'post')).toMatch(/ISO 8601 time of the deactivation/);
    expect(described('/trades/portfolio/refunds', 'get')).toMatch(/Without maker=true only taker refunds.*totalRefunded/s);
    expect(described('/metadata', 'get')).toMatch(/ODDEX_COMPAT=sx/);
    expect(described('/admin/fixtures/{exchangeEventId}/status', 'post')).toMatch(/resting orders are cancelled/);
  });

  it('ce_refunds:{bettor} is readable only by a connection authenticated as that bettor (103 otherwise)', async () => {
    const me = newWallet().address;
    const other = newWallet().address;
    const c = await connectAs(ex, me);
    const foreign = record(c.newSubscription(`ce_refunds:${other}`));
    const own = record(c.newSubscription(`ce_refunds:${me.toLowerCase()}`));
    await waitFor(() => foreign.unsubscribed.length && own.subscribed.length, 5000, 'subscribe replies');
    expect(foreign.unsubscribed[0]!.code).toBe(103);
    expect(foreign.subscribed).toEqual([]);
    expect(own.unsubscribed).toEqual([]);

    // The owner receives groups with the spec's totalRefunded (number).
    ex.ctx.bus.emit('refunds', { bettor: me, groups: [{ marketHash: '0x' + 'ab'.repeat(32), baseToken: ex.ctx.config.baseTokenAddress, totalRefunded: 2.5, events: [] }] });
    await waitFor(() => own.pubs.length, 5000, 'refund publication');
    expect(own.pubs[0]!.data).toEqual([{ marketHash: '0x' + 'ab'.repeat(32), baseToken: ex.ctx.config.baseTokenAddress, totalRefunded: 2.5, events: [] }]);
  });

  describe('a market not enabled for in-play betting (liveEnabled false)', () => {
    let event: string;
    let preGameOnly: string;
    let inPlay: string;
    let maker: PrivateKeyAccount;
    let taker: PrivateKeyAccount;
    const restingOrders: string[] = [];
    let liveOrder: string;

    beforeAll(async () => {
      event = await newFixture(ex, cat);
      preGameOnly = await newMarket(ex, event, { type: 52, liveEnabled: false });
      inPlay = await newMarket(ex, event, { type: 2, line: 2.5, liveEnabled: true });
      maker = await funded();
      taker = await funded();
    });

    it('takes orders and fills before kick-off; at kick-off its resting orders are cancelled, a fill in its delay is refused', async () => {
      for (const [odds, one] of [[40n, true], [45n, false]] as const) {
        restingOrders.push(await postOrder(ex, maker, { marketHash: preGameOnly, totalBetSize: 30n * USDC, percentageOdds: odds * E18, isMakerBettingOutcomeOne: one }));
      }
      // PERSIST: it stays on its live-enabled market through kick-off (a LAPSE order would be cancelled there).
      liveOrder = await postOrder(ex, maker, { marketHash: inPlay, totalBetSize: 30n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: true, persistence: 'PERSIST' });
      // Pre-game the market trades: 6 USDC at taker odds 60% take 4 USDC of the first order.
      await fillAndConfirm(ex, taker, { market: preGameOnly, isTakerBettingOutcomeOne: false, stakeWei: 6n * USDC, desiredOdds: 60n * E18 });

      const watcher = await connectAs(ex, newWallet().address);
      const book = record(watcher.newSubscription(`order_book:market_${preGameOnly}`));
      await waitFor(() => book.subscribed.length, 5000, 'book subscription');

      // A fill waiting out its pre-game delay when the fixture goes live.
      const started = Date.now();
      const inDelay = ex.post('/orders/fill/v2', await signedFill(taker, ex.ctx.config, { market: preGameOnly, isTakerBettingOutcomeOne: false, stakeWei: 3n * USDC, desiredOdds: 60n * E18 }));
      await new Promise((r) => setTimeout(r, 50));
      const live = await ex.admin('POST', `/admin/fixtures/${event}/status`, { status: 2 });
      expect([live.status, live.body.data.status]).toEqual([200, 2]);
      const refused = await inDelay;
      expect(Date.now() - started).toBeGreaterThanOrEqual(PRE_GAME_DELAY_MS);
      expect([refused.status, refused.body.status, refused.body.errorCode]).toEqual([400, 'failure', 'MARKET_NOT_LIVE_ENABLED']);

      // Cancelled before the status call answered; the in-play market keeps its PERSIST order.
      const orders: Rest[] = (await ex.get(`/orders?orderHashes=${[...restingOrders, liveOrder].join(',')}`)).body.data;
      expect(orders.map((o) => [o.orderHash, o.orderStatus, o.fillAmount])).toEqual([
        [restingOrders[0], 'CANCELLED', '4000000'],
        [restingOrders[1], 'CANCELLED', '0'],
        [liveOrder, 'ACTIVE', '0'],
      ]);
      expect((await ex.get(`/orders?marketHashes=${preGameOnly}`)).body.data).toEqual([]);
      const balance = (await ex.get(`/balances/${maker.address}`)).body.data;
      expect(balance).toMatchObject({ openExposure: '30000000', escrowed: '4000000' });
      // The book channel tells its clients the orders left (status INACTIVE), in one publication.
      await waitFor(() => book.pubs.length, 5000, 'cancel publication');
      expect(book.pubs.map((p) => (p.data as Rest[]).map((o) => [o.orderHash, o.status, o.orderStatus]))).toEqual([
        [
          [restingOrders[0], 'INACTIVE', 'CANCELLED'],
          [restingOrders[1], 'INACTIVE', 'CANCELLED'],
        ],
      ]);
      const bestOdds = (await ex.get(`/orders/odds/best?marketHashes=${preGameOnly},${inPlay}&baseToken=${ex.ctx.config.baseTokenAddress}`)).body.data.bestOdds;
      expect(bestOdds.map((b: Rest) => b.marketHash)).toEqual([inPlay]);
    });

    it('while live refuses its orders and fills with MARKET_NOT_LIVE_ENABLED and changes nothing; the live-enabled market trades', async () => {
      const order = await signedOrder(maker, ex.ctx.config, { marketHash: preGameOnly, totalBetSize: 20n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: true });
      const posted = await ex.post('/orders/new', { orders: [order.body] });
      expect([posted.status, posted.body.data]).toEqual([200, { orders: [order.hash], statuses: { [order.hash]: 'INVALID_MARKET' }, inserted: 0 }]);
      expect((await ex.get(`/orders?orderHashes=${order.hash}`)).body.data).toEqual([]);
      // In one batch with an order on the live-enabled market, a maker's other orders are posted.
      const other = await signedOrder(maker, ex.ctx.config, { marketHash: inPlay, totalBetSize: 20n * USDC, percentageOdds: 45n * E18, isMakerBettingOutcomeOne: true });
      const batch = await ex.post('/orders/new', { orders: [other.body, order.body] });
      expect([batch.status, batch.body.data.statuses, batch.body.data.inserted]).toEqual([200, { [other.hash]: 'OK', [order.hash]: 'INVALID_MARKET' }, 1]);
      expect((await ex.get(`/orders?orderHashes=${other.hash}`)).body.data.map((o: Rest) => o.orderHash)).toEqual([other.hash]);
      // A replace is all or nothing: it says why.
      const replaced = await ex.post('/orders/replace', { cancel: await signedCancel(maker, ex.ctx.config, 'v2', { orderHashes: [other.hash] }), orders: [order.body] });
      expect([replaced.status, replaced.body.errorCode]).toEqual([400, 'MARKET_NOT_LIVE_ENABLED']);

      const fill = await ex.post('/orders/fill/v2', await signedFill(taker, ex.ctx.config, { market: preGameOnly, isTakerBettingOutcomeOne: false, stakeWei: 3n * USDC, desiredOdds: 60n * E18 }));
      expect([fill.status, fill.body.status, fill.body.errorCode]).toEqual([400, 'failure', 'MARKET_NOT_LIVE_ENABLED']);

      // The live-enabled market of the same fixture takes orders (above) and fills (in-play delay 0 here).
      await fillAndConfirm(ex, taker, { market: inPlay, isTakerBettingOutcomeOne: false, stakeWei: 3n * USDC, desiredOdds: 60n * E18 });
      const filled = (await ex.get(`/orders?orderHashes=${liveOrder}`)).body.data[0];
      expect(filled).toMatchObject({ fillAmount: '2000000', orderStatus: 'ACTIVE' });
    });
  });
});

describe('kick-off interrupted before the cancel', () => {
  it('cancels the orders still resting on a live market not enabled for in-play betting when the exchange starts', async () => {
    let ex = await startTestExchange(betTestConfig());
    cleanup.push(() => ex.destroy());
    const cat = await createSoccerLeague(ex);
    const event = await newFixture(ex, cat);
    const market = await newMarket(ex, event, { type: 52, liveEnabled: false });
    const maker = await fundedWallet(ex);
    const hash = await postOrder(ex, maker, { marketHash: market, totalBetSize: 20n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: true });
    // A data dir written before the fixture status was an engine command: the status reached the catalogue's table,
    // the stop came before the cancel was journaled.
    ex.ctx.db!.prepare('UPDATE fixtures SET status = 2 WHERE exchange_event_id = ?').run(event);
    expect((await ex.get(`/orders?orderHashes=${hash}`)).body.data[0].orderStatus).toBe('ACTIVE');
    ex = await ex.restart();
    const order = await waitForOrder(ex, hash, 'CANCELLED');
    expect(order.orderStatus).toBe('CANCELLED');
    expect((await ex.get(`/balances/${maker.address}`)).body.data.openExposure).toBe('0');
  });
});

async function waitForOrder(ex: TestExchange, hash: string, status: string): Promise<Rest> {
  for (let i = 0; i < 100; i++) {
    const order: Rest = (await ex.get(`/orders?orderHashes=${hash}`)).body.data[0];
    if (order.orderStatus === status) return order;
    await new Promise((r) => setTimeout(r, 20));
  }
  return (await ex.get(`/orders?orderHashes=${hash}`)).body.data[0];
}

/** The public exchange's signing values, written here from its API docs and public clients, not read from src. */
const SX = {
  // The public exchange's parlay domain name is not published: the preset keeps Oddex's.
  domainNames: { fill: 'SX Bet', cancelV2: 'CancelOrderV2SportX', cancelEvent: 'CancelOrderEventsSportX', cancelAll: 'CancelAllOrdersSportX', parlayRequest: 'ParlayRequestOddex' },
  domainVersion: '6.0',
  chainId: 4162,
  executorAddress: '0x52adf738AAD93c31f798a30b2C74D658e1E9a562',
  eip712FillHasher: '0x845a2Da2D70fEDe8474b1C8518200798c60aC364',
};

describe('ODDEX_COMPAT=sx', () => {
  it('sets the public exchange’s domain names, fill domain version, chain id, executor and fill hasher; explicit settings win', () => {
    const preset = loadConfig({ ODDEX_COMPAT: 'sx' });
    expect({
      domainNames: preset.domainNames,
      domainVersion: preset.domainVersion,
      chainId: preset.chainId,
      executorAddress: preset.executorAddress,
      eip712FillHasher: preset.eip712FillHasher,
    }).toEqual(SX);
    expect(loadConfig({}, ['--compat', 'SX']).domainNames).toEqual(SX.domainNames);
    const testnet = loadConfig({ ODDEX_COMPAT: 'sx', ODDEX_CHAIN_ID: '79479957' });
    expect([testnet.chainId, testnet.domainVersion]).toEqual([79479957, '6.0']);
    expect(() => loadConfig({ ODDEX_COMPAT: 'nope' })).toThrow(ConfigError);
    expect(() => loadConfig({ ODDEX_COMPAT: 'nope' })).toThrow(/ODDEX_COMPAT.*sx/);
    // Without the preset nothing of it leaks into the defaults.
    expect(loadConfig({}).domainNames.fill).toBe('Oddex');
  });

  it('accepts an order, a fill and cancels signed by viem with the public exchange’s domains', async () => {
    const preset = loadConfig({ ODDEX_COMPAT: 'sx' });
    const ex = await startTestExchange({
      ...betTestConfig(),
      domainNames: preset.domainNames,
      domainVersion: preset.domainVersion,
      chainId: preset.chainId,
      executorAddress: preset.executorAddress,
      eip712FillHasher: preset.eip712FillHasher,
    });
    cleanup.push(() => ex.destroy());
    const metadata = (await ex.get('/metadata')).body.data;
    expect(metadata).toMatchObject({
      chainId: 4162,
      domainNames: SX.domainNames,
      domainVersion: '6.0',
      executorAddress: SX.executorAddress,
      EIP712FillHasher: SX.eip712FillHasher,
    });

    // A bot's own constants: the literal values above, not the exchange's configuration object.
    const bot: Config = { ...ex.ctx.config, ...SX, domainNames: { ...SX.domainNames } };
    const cat = await createSoccerLeague(ex);
    const event = await newFixture(ex, cat);
    const market = await newMarket(ex, event, { type: 52 });
    const maker = newWallet();
    const taker = newWallet();
    await fund(ex, maker, 100n * USDC);
    await fund(ex, taker, 100n * USDC);

    const orders = [await signedOrder(maker, bot, { marketHash: market, totalBetSize: 20n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: true })];
    orders.push(await signedOrder(maker, bot, { marketHash: market, totalBetSize: 20n * USDC, percentageOdds: 35n * E18, isMakerBettingOutcomeOne: false }));
    orders.push(await signedOrder(maker, bot, { marketHash: market, totalBetSize: 20n * USDC, percentageOdds: 30n * E18, isMakerBettingOutcomeOne: false }));
    const posted = await ex.post('/orders/new', { orders: orders.map((o) => o.body) });
    expect(posted.body.data).toEqual({ orders: orders.map((o) => o.hash), statuses: Object.fromEntries(orders.map((o) => [o.hash, 'OK'])), inserted: 3 });

    // The fill domain: "SX Bet", version 6.0, chain 4162, the fill hasher as verifying contract.
    const fill = await ex.post('/orders/fill/v2', await signedFill(taker, bot, { market, isTakerBettingOutcomeOne: false, stakeWei: 3n * USDC, desiredOdds: 60n * E18 }));
    expect([fill.status, fill.body.data]).toEqual([200, { fillHash: expect.any(String), isPartialFill: false, totalFilled: '3000000', averageOdds: '60000000000000000000' }]);
    // The exchange's default domain no longer verifies.
    const oddexDomain: Config = { ...bot, domainNames: { ...bot.domainNames, fill: 'Oddex' }, domainVersion: '1.0' };
    const wrong = await ex.post('/orders/fill/v2', await signedFill(taker, oddexDomain, { market, isTakerBettingOutcomeOne: false, stakeWei: 3n * USDC, desiredOdds: 60n * E18 }));
    expect([wrong.status, wrong.body.errorCode]).toEqual([403, 'TAKER_SIGNATURE_MISMATCH']);

    const v2 = await ex.post('/orders/cancel/v2', await signedCancel(maker, bot, 'v2', { orderHashes: [orders[1]!.hash] }));
    expect([v2.status, v2.body.data.cancelledCount]).toEqual([200, 1]);
    const all = await ex.post('/orders/cancel/all', await signedCancel(maker, bot, 'all'));
    expect([all.status, all.body.data.cancelledCount]).toEqual([200, 2]);
    const left: Rest[] = (await ex.get(`/orders?orderHashes=${orders.map((o) => o.hash).join(',')}`)).body.data;
    expect(left.map((o) => o.orderStatus)).toEqual(['CANCELLED', 'CANCELLED', 'CANCELLED']);
  });
});
