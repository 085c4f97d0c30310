// Realtime end to end with the real trading engine: viem-signed orders, fills and cancels over HTTP, observed by
// the real `centrifuge` client on every channel they touch, compared object for object with what REST returns.
// Also recovery across a forced disconnect and a restart, and the recommended usage of spec section 6
// (subscribe, read the REST snapshot, apply publications) racing a live stream of posts, fills and cancels.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Centrifuge, PublicationContext, SubscribedContext, Subscription } from 'centrifuge';
import { defaultConfig, type Config } from '../src/config.js';
import { CloseCode } from '../src/realtime/protocol.js';
import type { MemoryBroker } from '../src/realtime/broker.js';
import { startTestExchange, type TestExchange } from './helpers/server.js';
import { centrifugeClient, createApiKey, fetchToken, freePort, sleep, waitFor, wsUrl } from './helpers/realtime.js';
import { E18, USDC, newWallet, signedCancel, signedFill } from './helpers/wallets.js';
import { fillAndConfirm, fund, fundedWallet, postOrder } from './helpers/bets.js';

type Rest = Record<string, unknown>;
interface MarketInfo {
  marketHash: string;
  exchangeEventId: string;
}

const exchangeConfig = (): Partial<Config> => ({
  demo: true,
  chainConfirmationDelayMs: 100,
  bettingDelay: { preGameMs: 0, inPlayMs: 0, inPlayBySportMs: {}, inPlayByLeagueMs: {} },
  rateLimits: { ...defaultConfig().rateLimits, enabled: false },
});

/** The order fields of DECISIONS.md, on GET /orders and on the order channels alike. */
const ORDER_FIELDS = [
  'orderHash', 'marketHash', 'maker', 'totalBetSize', 'percentageOdds', 'fillAmount', 'pendingFillAmount', 'baseToken',
  'executor', 'expiry', 'apiExpiry', 'salt', 'isMakerBettingOutcomeOne', 'signature', 'exchangeEventId', 'orderStatus',
  'createdAt', 'updatedAt',
  // Additive: what the order does at kick-off.
  'persistence',
].sort();
const CLOSED_ORDER = new Set(['CANCELLED', 'FILLED', 'EXPIRED']);
/** A GET /orders object as the order channels carry it: plus status (ACTIVE on the book, else INACTIVE) and updateTime (ms). */
const asPublished = (o: Rest): Rest => ({
  ...o,
  status: CLOSED_ORDER.has(o.orderStatus as string) ? 'INACTIVE' : 'ACTIVE',
  updateTime: Date.parse(o.updatedAt as string),
});

function record(sub: Subscription) {
  const pubs: PublicationContext[] = [];
  const subscribed: SubscribedContext[] = [];
  sub.on('publication', (p) => pubs.push(p));
  sub.on('subscribed', (s) => subscribed.push(s));
  /** Every item of every publication, oldest first (a publication is an array of items or one item). */
  const items = () => pubs.flatMap((p) => (Array.isArray(p.data) ? (p.data as Rest[]) : [p.data as Rest]));
  return { sub, pubs, subscribed, items };
}

/** The last published version of each item, by key. */
function latestBy(items: Rest[], key: string): Map<unknown, Rest> {
  const out = new Map<unknown, Rest>();
  for (const item of items) out.set(item[key], item);
  return out;
}


const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

/** A centrifuge client authenticated as `address` (through an API key and the token endpoint). */
async function connectAs(ex: TestExchange, address: string, extra: Parameters<typeof centrifugeClient>[1] = {}) {
  const key = await createApiKey(ex, address);
  const c = centrifugeClient(wsUrl(ex), { getToken: () => fetchToken(ex, key), ...extra });
  cleanup.push(() => c.disconnect());
  c.connect();
  await c.ready(5000);
  return c;
}

async function subscribed(c: Centrifuge, ...channels: string[]) {
  const recs = channels.map((ch) => record(c.newSubscription(ch, { positioned: true, recoverable: true })));
  for (const r of recs) r.sub.subscribe();
  await Promise.all(recs.map((r) => r.sub.ready(5000)));
  return recs;
}

const getOrder = async (ex: TestExchange, orderHash: string): Promise<Rest> => {
  const res = await ex.get(`/orders?orderHashes=${orderHash}`);
  expect(res.status).toBe(200);
  return res.body.data[0];
};

describe('realtime with the real trading engine', () => {
  let ex: TestExchange;
  /** Pre-game moneyline markets, one per event, so that no two tests share a book or an event channel. */
  let markets: MarketInfo[];
  let quarterLine: MarketInfo;
  let nextMarket = 0;
  const freshMarket = () => markets[nextMarket++]!;
  /** A fresh address per connection, so a test can drop exactly its own connection. */
  const watcher = () => newWallet().address;

  beforeAll(async () => {
    ex = await startTestExchange(exchangeConfig());
    const active: (MarketInfo & { liveEnabled: boolean; type: number; isQuarterLineMarket: boolean })[] = [];
    for (let key = ''; ; ) {
      const page = (await ex.get(`/markets/active?pageSize=100${key ? `&paginationKey=${key}` : ''}`)).body.data;
      active.push(...page.markets);
      if (!page.nextKey) break;
      key = page.nextKey;
    }
    const preGame = active.filter((m) => !m.liveEnabled);
    const byEvent = new Map<string, MarketInfo>();
    for (const m of preGame.filter((m) => m.type === 52)) if (!byEvent.has(m.exchangeEventId)) byEvent.set(m.exchangeEventId, m);
    markets = [...byEvent.values()];
    expect(markets.length).toBeGreaterThanOrEqual(6);
    quarterLine = preGame.find((m) => m.isQuarterLineMarket && !byEvent.has(m.exchangeEventId)) ?? preGame.find((m) => m.isQuarterLineMarket)!;
    expect(quarterLine).toBeDefined();
  });
  afterAll(async () => ex.destroy());

  const funded = () => fundedWallet(ex);

  it('an order posted over HTTP reaches order_book:market_ and order_book:event_ exactly as GET /orders shows it', async () => {
    const market = freshMarket();
    const c = await connectAs(ex, watcher());
    const [book, event] = await subscribed(c, `order_book:market_${market.marketHash}`, `order_book:event_${market.exchangeEventId}`);
    const maker = await funded();

    const hash = await postOrder(ex, maker, { marketHash: market.marketHash, totalBetSize: 25n * USDC, percentageOdds: 45n * E18, isMakerBettingOutcomeOne: true });
    await waitFor(() => book!.pubs.length && event!.pubs.length);
    const rest = await getOrder(ex, hash);
    expect(Object.keys(rest).sort()).toEqual(ORDER_FIELDS);
    expect(rest).toMatchObject({ orderHash: hash, maker: maker.address, totalBetSize: '25000000', fillAmount: '0', pendingFillAmount: '0', orderStatus: 'ACTIVE' });
    const published = asPublished(rest);
    expect(published).toMatchObject({ status: 'ACTIVE', updateTime: expect.any(Number) });
    expect(book!.pubs.map((p) => [p.offset, p.data])).toEqual([[1, [published]]]);
    expect(event!.pubs.map((p) => [p.offset, p.data])).toEqual([[1, [published]]]);
  });

  it('a fill reaches the maker’s active_orders, recent_trades, recent_trades_consolidated and best_odds; a cancel reaches the book', async () => {
    const market = freshMarket().marketHash;
    const maker = await funded();
    const taker = await funded();
    const own = await connectAs(ex, maker.address);
    const [mine, book] = await subscribed(own, `active_orders:${maker.address}`, `order_book:market_${market}`);
    const other = await connectAs(ex, watcher());
    const [trades, consolidated, best] = await subscribed(other, 'recent_trades:global', 'recent_trades_consolidated:global', 'best_odds:global');
    const bestOf = () => best!.items().filter((b) => b.marketHash === market);

    const hash = await postOrder(ex, maker, { marketHash: market, totalBetSize: 100n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: true });
    await waitFor(() => bestOf().length === 1, 5000, 'best odds after the post');
    const restBest = (await ex.get(`/orders/odds/best?marketHashes=${market}&baseToken=${ex.ctx.config.baseTokenAddress}`)).body.data.bestOdds[0];
    const [listed] = (await ex.get(`/markets/find?marketHashes=${market}`)).body.data;
    expect(bestOf()).toEqual([
      {
        marketHash: market,
        baseToken: ex.ctx.config.baseTokenAddress,
        isMakerBettingOutcomeOne: true,
        percentageOdds: '40000000000000000000',
        updatedAt: restBest.outcomeOne.updatedAt,
        sportId: listed.sportId,
        leagueId: listed.leagueId,
      },
    ]);
    expect(listed.sportId).toBeGreaterThan(0);
    expect(listed.leagueId).toBeGreaterThan(0);
    expect(Array.isArray(best!.pubs[0]!.data)).toBe(true);

    // 30 USDC on outcome two at taker odds 60% takes 20 USDC of the maker's space.
    const fillHash = await fillAndConfirm(ex, taker, { market, isTakerBettingOutcomeOne: false, stakeWei: 30n * USDC, desiredOdds: 60n * E18 });

    // active_orders: posted, then the pending fill, then the confirmed fill; the last one is what REST shows.
    await waitFor(() => mine!.items().some((o) => o.fillAmount === '20000000'), 5000, 'confirmed fill on active_orders');
    expect(mine!.items().map((o) => [o.orderHash, o.fillAmount, o.pendingFillAmount, o.orderStatus, o.status])).toEqual([
      [hash, '0', '0', 'ACTIVE', 'ACTIVE'],
      [hash, '0', '20000000', 'ACTIVE', 'ACTIVE'],
      [hash, '20000000', '0', 'ACTIVE', 'ACTIVE'],
    ]);
    const updateTimes = mine!.items().map((o) => o.updateTime as number);
    expect(updateTimes).toEqual([...updateTimes].sort((a, b) => a - b));
    expect(mine!.items().at(-1)).toEqual(asPublished(await getOrder(ex, hash)));

    // recent_trades: a maker and a taker trade, PENDING then SUCCESS, each last version equal to its GET /trades item.
    const restTrades: Rest[] = (await ex.get(`/trades?marketHashes=${market}`)).body.data.trades;
    expect(restTrades).toHaveLength(2);
    await waitFor(() => trades!.items().filter((t) => t.fillHash === fillHash && t.tradeStatus === 'SUCCESS').length === 2);
    // One trade object per publication, as clients read ctx.data.fillHash.
    for (const p of trades!.pubs) expect(Array.isArray(p.data)).toBe(false);
    expect(trades!.pubs.filter((p) => (p.data as Rest).fillHash === fillHash)).toHaveLength(4);
    const ofFill = trades!.items().filter((t) => t.fillHash === fillHash);
    expect(ofFill.map((t) => [t.maker, t.tradeStatus]).sort()).toEqual([
      [false, 'PENDING'],
      [false, 'SUCCESS'],
      [true, 'PENDING'],
      [true, 'SUCCESS'],
    ]);
    const lastTrades = latestBy(ofFill, '_id');
    for (const t of restTrades) expect(lastTrades.get(t._id)).toEqual(t);
    for (const t of lastTrades.values()) {
      expect(t.isQuarterLineLeg).toBe(false);
      expect(t).not.toHaveProperty('quarterLineParentMarketHash');
    }

    // recent_trades_consolidated: one entry per bettor, equal to GET /trades/consolidated.
    await waitFor(() => consolidated!.items().filter((e) => e.fillHash === fillHash).length >= 2, 5000, 'consolidated entries');
    for (const p of consolidated!.pubs) expect(Array.isArray(p.data)).toBe(false);
    const lastEntries = latestBy(consolidated!.items().filter((e) => e.fillHash === fillHash), 'bettor');
    expect([...lastEntries.keys()].sort()).toEqual([maker.address, taker.address].sort());
    for (const w of [maker, taker]) {
      const rest: Rest[] = (await ex.get(`/trades/consolidated?bettor=${w.address}&settled=false&page=0&perPage=100&sortAsc=true`)).body.data.trades;
      expect(rest).toHaveLength(1);
      expect(lastEntries.get(w.address)).toEqual(rest[0]);
      expect(rest[0]).toMatchObject({ isQuarterLineParent: false, isQuarterLineLeg: false, quarterLineFillHash: null });
    }

    // A cancel reaches the book as INACTIVE. The side it empties is not published on best_odds (no null odds), and
    // the market leaves GET /orders/odds/best.
    const before = book!.pubs.length;
    const cancel = await ex.post('/orders/cancel/v2', await signedCancel(maker, ex.ctx.config, 'v2', { orderHashes: [hash] }));
    expect(cancel.body.data.cancelledCount).toBe(1);
    await waitFor(() => book!.pubs.length > before, 5000, 'cancel publication');
    const cancelled = await getOrder(ex, hash);
    expect(cancelled).toMatchObject({ orderStatus: 'CANCELLED', fillAmount: '20000000' });
    expect(book!.pubs.at(-1)!.data).toEqual([asPublished(cancelled)]);
    expect((book!.pubs.at(-1)!.data as Rest[])[0]!.status).toBe('INACTIVE');
    await sleep(100);
    expect(bestOf()).toHaveLength(1);
    for (const item of best!.items()) expect(() => BigInt(item.percentageOdds as string)).not.toThrow();
    const emptied = await ex.get(`/orders/odds/best?marketHashes=${market}&baseToken=${ex.ctx.config.baseTokenAddress}`);
    expect(emptied.body.data).toEqual({ bestOdds: [] });
    expect(book!.pubs.map((p) => p.offset)).toEqual(book!.pubs.map((_, i) => i + 1));
  });

  it('a cash out\'s hedge trade reaches recent_trades:global carrying what the cash out paid, as GET /trades lists it', async () => {
    const market = freshMarket().marketHash;
    const [maker, taker, hedger] = [await funded(), await funded(), await funded()];
    const c = await connectAs(ex, watcher());
    const [trades] = await subscribed(c, 'recent_trades:global');
    // The taker backs outcome one with 30 against 20; the hedger then offers outcome one at 80%: 10 at 20% hedges it.
    await postOrder(ex, maker, { marketHash: market, totalBetSize: 20n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: false });
    await fillAndConfirm(ex, taker, { market, isTakerBettingOutcomeOne: true, stakeWei: 30n * USDC, desiredOdds: 60n * E18 });
    await postOrder(ex, hedger, { marketHash: market, totalBetSize: 100n * USDC, percentageOdds: 80n * E18, isMakerBettingOutcomeOne: true });
    const fillHash = await fillAndConfirm(ex, taker, { market, isTakerBettingOutcomeOne: false, stakeWei: 10n * USDC, desiredOdds: 20n * E18, cashOutTarget: market });
    const confirmed = () => trades!.items().filter((t) => t.fillHash === fillHash && t.tradeStatus === 'SUCCESS');
    await waitFor(() => confirmed().length === 2, 5000, 'the hedge confirmed on recent_trades');
    // Owed 50 either way, 40 staked: 40 paid at once (no cash-out fee configured here); the maker's trade carries nothing.
    const [mine] = confirmed().filter((t) => t.bettor === taker.address);
    expect(mine).toMatchObject({ cashOutAmount: (40n * USDC).toString(), cashOutFee: '0' });
    expect(confirmed().find((t) => t.bettor === hedger.address)!.cashOutAmount).toBeUndefined();
    const rest: Rest[] = (await ex.get(`/trades?bettor=${taker.address}`)).body.data.trades;
    expect(rest.find((t) => t.fillHash === fillHash)).toEqual(mine);
  });

  it('a quarter-line fill publishes two leg trades carrying quarterLineParentMarketHash, as GET /trades lists them', async () => {
    const parent = quarterLine.marketHash;
    const maker = await funded();
    const taker = await funded();
    const c = await connectAs(ex, watcher());
    const [trades, consolidated] = await subscribed(c, 'recent_trades:global', 'recent_trades_consolidated:global');

    await postOrder(ex, maker, { marketHash: parent, totalBetSize: 20n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: false });
    const fillHash = await fillAndConfirm(ex, taker, { market: parent, isTakerBettingOutcomeOne: true, stakeWei: 10_000_001n, desiredOdds: 60n * E18 });
    await waitFor(() => trades!.items().filter((t) => t.fillHash === fillHash && t.tradeStatus === 'SUCCESS').length === 4);

    const takerLegs = [...latestBy(trades!.items().filter((t) => t.fillHash === fillHash), '_id').values()].filter((t) => t.bettor === taker.address);
    // The odd wei of the stake goes to the lower leg.
    expect(takerLegs.map((t) => t.stake).sort()).toEqual(['5000000', '5000001']);
    for (const t of takerLegs) expect(t).toMatchObject({ isQuarterLineLeg: true, quarterLineParentMarketHash: parent, tradeStatus: 'SUCCESS' });
    const legMarkets = takerLegs.map((t) => t.marketHash as string);
    expect(new Set(legMarkets).size).toBe(2);
    expect(legMarkets).not.toContain(parent);
    const rest: Rest[] = (await ex.get(`/trades?bettor=${taker.address}`)).body.data.trades;
    expect(rest).toHaveLength(2);
    expect(Object.fromEntries(takerLegs.map((t) => [t._id, t]))).toEqual(Object.fromEntries(rest.map((t) => [t._id, t])));

    // The consolidated channel carries the parent and both legs of the taker's bet.
    await waitFor(() => consolidated!.items().filter((e) => e.bettor === taker.address).length >= 3, 5000, 'consolidated quarter line');
    const entries = [...latestBy(consolidated!.items().filter((e) => e.bettor === taker.address), 'marketHash').values()];
    expect(entries.map((e) => [e.marketHash === parent, e.isQuarterLineParent, e.isQuarterLineLeg]).sort()).toEqual([
      [false, false, true],
      [false, false, true],
      [true, true, false],
    ]);
  });

  it('a commit whose publications cannot be prepared is never a silent gap: subscribers resubscribe with recovered:false', async () => {
    const market = freshMarket().marketHash;
    const maker = await funded();
    const c = await connectAs(ex, watcher(), { minReconnectDelay: 50, maxReconnectDelay: 50 });
    const codes: number[] = [];
    c.on('connecting', (d) => codes.push(d.code));
    const [book] = await subscribed(c, `order_book:market_${market}`);
    const post = (odds: bigint) => postOrder(ex, maker, { marketHash: market, totalBetSize: 10n * USDC, percentageOdds: odds * E18, isMakerBettingOutcomeOne: false });
    await post(30n);
    await waitFor(() => book!.pubs.length === 1);

    // The next group's preparation fails (as a read of the database may).
    const publisher = ex.ctx.publisher;
    const prepare = publisher.prepare.bind(publisher);
    let failures = 0;
    publisher.prepare = (entries) => (failures++ === 0 ? Promise.reject(new Error('database unreachable')) : prepare(entries));
    cleanup.push(() => (publisher.prepare = prepare));
    const lost = await post(31n);
    await waitFor(() => book!.subscribed.length === 2, 5000, 'resubscribe');
    expect(codes).toContain(CloseCode.insufficientState);
    expect(book!.subscribed[1]).toMatchObject({ wasRecovering: true, recovered: false });
    expect(book!.subscribed[1]!.streamPosition!.epoch).not.toBe(book!.subscribed[0]!.streamPosition!.epoch);
    expect(book!.pubs.length).toBe(1); // the lost publication was never delivered
    // Not recovered: the snapshot has the order, and the new stream goes on from its start.
    const snapshot: Rest[] = (await ex.get(`/orders?marketHashes=${market}`)).body.data;
    expect(snapshot.map((o) => o.orderHash)).toContain(lost);
    const live = await post(32n);
    await waitFor(() => book!.pubs.length === 2, 5000, 'live publication');
    expect(book!.pubs[1]!.offset).toBe(1);
    expect((book!.pubs[1]!.data as Rest[]).map((o) => o.orderHash)).toEqual([live]);
  });

  it('recovers exactly the publications missed while the server had closed the connection with 3001', async () => {
    const market = freshMarket().marketHash;
    const maker = await funded();
    // A fixed, long reconnect delay: the orders below are posted while the client is certainly away.
    const me = watcher();
    const c = await connectAs(ex, me, { minReconnectDelay: 1500, maxReconnectDelay: 1500 });
    const codes: number[] = [];
    c.on('connecting', (d) => codes.push(d.code));
    const [book] = await subscribed(c, `order_book:market_${market}`);
    const post = (odds: bigint) => postOrder(ex, maker, { marketHash: market, totalBetSize: 10n * USDC, percentageOdds: odds * E18, isMakerBettingOutcomeOne: false });

    const first = await post(30n);
    await waitFor(() => book!.pubs.length === 1);
    expect(ex.ctx.realtime!.disconnect(CloseCode.shutdown, 'shutdown', (conn) => conn.user === me)).toBe(1);
    const missed = [await post(31n), await post(32n)];
    const cancel = await ex.post('/orders/cancel/v2', await signedCancel(maker, ex.ctx.config, 'v2', { orderHashes: [first] }));
    expect(cancel.body.data.cancelledCount).toBe(1);
    expect([book!.subscribed.length, book!.pubs.length]).toEqual([1, 1]); // still away

    await waitFor(() => book!.subscribed.length === 2, 5000, 'resubscribe');
    expect(codes).toContain(CloseCode.shutdown);
    expect(book!.subscribed[1]).toMatchObject({ wasRecovering: true, recovered: true });
    expect(book!.subscribed[1]!.streamPosition!.epoch).toBe(book!.subscribed[0]!.streamPosition!.epoch);
    await waitFor(() => book!.pubs.length === 4, 5000, 'recovered publications');
    const live = await post(33n);
    await waitFor(() => book!.pubs.length === 5, 5000, 'live publication');
    await sleep(50);
    expect(book!.pubs.map((p) => p.offset)).toEqual([1, 2, 3, 4, 5]);
    expect(book!.pubs.map((p) => (p.data as Rest[]).map((o) => [o.orderHash, o.orderStatus]))).toEqual([
      [[first, 'ACTIVE']],
      [[missed[0], 'ACTIVE']],
      [[missed[1], 'ACTIVE']],
      [[first, 'CANCELLED']],
      [[live, 'ACTIVE']],
    ]);
    for (const p of book!.pubs.slice(1, 4)) expect(p.data).toEqual([asPublished(await getOrder(ex, (p.data as Rest[])[0]!.orderHash as string))]);
  });

  it('the recommended usage (subscribe, read the REST snapshot, apply publications) ends with the book REST shows', async () => {
    const market = freshMarket().marketHash;
    const makers = [await funded(), await funded()];
    const taker = await funded();
    const me = watcher();
    const c = await connectAs(ex, me);
    const book = record(c.newSubscription(`order_book:market_${market}`, { positioned: true, recoverable: true }));

    // The stream: posts from two makers, fills that partly and fully consume orders, cancels; one op at a time,
    // each checked, while the client subscribes, reads its snapshot and is once forced to reconnect.
    const STEPS = 24;
    let done = 0;
    const posted: string[] = [];
    const stream = (async () => {
      for (let i = 0; i < STEPS; i++) {
        const maker = makers[i % 2]!;
        posted.push(
          await postOrder(ex, maker, {
            marketHash: market,
            totalBetSize: 10n * USDC,
            percentageOdds: (i % 3 === 0 ? 25n : 50n) * E18,
            isMakerBettingOutcomeOne: true,
          }),
        );
        if (i % 3 === 2) {
          // Taker odds 50% or better: the 25% orders go first (a third of the stake in maker space), then the oldest
          // at 50% (one to one). Amounts divide exactly, so no order is left with unfillable dust.
          const fill = await ex.post('/orders/fill/v2', await signedFill(taker, ex.ctx.config, { market, isTakerBettingOutcomeOne: false, stakeWei: 9n * USDC, desiredOdds: 50n * E18 }));
          expect([fill.status, fill.body.data?.totalFilled, fill.body.errorCode]).toEqual([200, '9000000', undefined]);
        }
        if (i % 4 === 3) {
          const victim = posted[i - 1]!;
          const owner = makers[(i - 1) % 2]!;
          const res = await ex.post('/orders/cancel/v2', await signedCancel(owner, ex.ctx.config, 'v2', { orderHashes: [victim] }));
          expect(res.status).toBe(200);
        }
        done++;
        await sleep(5);
      }
    })();

    await waitFor(() => done >= 2, 10_000, 'stream under way');
    book.sub.subscribe();
    await book.sub.ready(5000);
    const snapshot: Rest[] = (await ex.get(`/orders?marketHashes=${market}&perPage=1000`)).body.data;
    const doneAtSnapshot = done;
    expect(snapshot.length).toBeGreaterThan(0);

    // Mid-stream the server drops the connection; the client recovers the gap.
    await waitFor(() => done >= doneAtSnapshot + 4, 10_000, 'more of the stream');
    expect(ex.ctx.realtime!.disconnect(CloseCode.shutdown, 'shutdown', (conn) => conn.user === me)).toBe(1);
    await stream;
    expect(doneAtSnapshot).toBeLessThan(STEPS - 4);
    await sleep(300); // the last fills confirm on the chain
    const channel = `order_book:market_${market}`;
    const top = (await ex.ctx.realtime!.broker.history(channel, { limit: 0 })).offset;
    await waitFor(() => book.pubs.at(-1)?.offset === top, 5000, 'every publication');
    expect(book.subscribed.length).toBe(2);
    expect(book.subscribed[1]).toMatchObject({ wasRecovering: true, recovered: true });
    // Contiguous offsets from the subscription on: nothing missed, nothing twice.
    const from = book.subscribed[0]!.streamPosition!.offset;
    expect(book.pubs.map((p) => p.offset)).toEqual(Array.from({ length: top - from }, (_, i) => from + i + 1));

    // The client tracks the book by `status`, as clients of the public API do.
    const view = new Map<string, Rest>(snapshot.map((o) => [o.orderHash as string, asPublished(o)]));
    for (const p of book.pubs) {
      for (const o of p.data as Rest[]) {
        if (o.status === 'INACTIVE') view.delete(o.orderHash as string);
        else view.set(o.orderHash as string, o);
      }
    }
    const rest: Rest[] = (await ex.get(`/orders?marketHashes=${market}&perPage=1000`)).body.data;
    const sorted = (orders: Iterable<Rest>) => [...orders].sort((a, b) => String(a.orderHash).localeCompare(String(b.orderHash)));
    expect(sorted(view.values())).toEqual(sorted(rest.map(asPublished)));
    // The stream really changed the book: fills consumed and cancels removed orders.
    expect(rest.length).toBeLessThan(STEPS);
    expect(rest.some((o) => o.fillAmount !== '0')).toBe(true);
    const statuses = new Set(book.pubs.flatMap((p) => (p.data as Rest[]).map((o) => o.orderStatus)));
    expect([...statuses].sort()).toEqual(expect.arrayContaining(['ACTIVE', 'CANCELLED', 'FILLED']));
  });

  it('markets:global publishes a market reported through POST /admin/markets/:hash/report as /markets/find shows it', async () => {
    const market = freshMarket().marketHash;
    const c = await connectAs(ex, watcher());
    const [feed] = await subscribed(c, 'markets:global');
    const report = await ex.admin('POST', `/admin/markets/${market}/report`, { outcome: 1, teamOneScore: 2, teamTwoScore: 0 });
    expect(report.status).toBe(200);
    await waitFor(() => feed!.items().some((m) => m.marketHash === market), 5000, 'market publication');
    const found: Rest[] = (await ex.get(`/markets/find?marketHashes=${market}`)).body.data;
    expect(found[0]).toMatchObject({ marketHash: market, outcome: 1, teamOneScore: 2, teamTwoScore: 0, reportedDate: expect.any(String) });
    expect(feed!.items().filter((m) => m.marketHash === market)).toEqual(found);
  });
});

describe('realtime across a restart of the real engine', () => {
  it('tells the client recovered:false (new epoch); the REST snapshot still holds what was posted before', async () => {
    const port = await freePort();
    let ex = await startTestExchange({ ...exchangeConfig(), port });
    cleanup.push(() => ex.destroy());
    const active = (await ex.get('/markets/active?pageSize=100&type=52')).body.data.markets.filter((m: { liveEnabled: boolean }) => !m.liveEnabled);
    const market: string = active[0].marketHash;
    const maker = newWallet();
    await fund(ex, maker, 100n * USDC);
    // Same port after the restart; the API key and the token secret live in the data dir.
    const c = await connectAs(ex, maker.address);
    const [book] = await subscribed(c, `order_book:market_${market}`);
    const hash = await postOrder(ex, maker, { marketHash: market, totalBetSize: 10n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: true });
    await waitFor(() => book!.pubs.length === 1);

    ex = await ex.restart();
    await waitFor(() => book!.subscribed.length === 2, 8000, 'resubscribe after restart');
    expect(book!.subscribed[1]).toMatchObject({ wasRecovering: true, recovered: false });
    expect(book!.subscribed[1]!.streamPosition!.epoch).not.toBe(book!.subscribed[0]!.streamPosition!.epoch);
    // Not recovered: the client re-reads the snapshot, which the journal replay kept.
    const snapshot: Rest[] = (await ex.get(`/orders?marketHashes=${market}`)).body.data;
    expect(snapshot.map(asPublished)).toEqual(book!.pubs[0]!.data);
    expect(snapshot.map((o) => o.orderHash)).toEqual([hash]);
  });
});

describe('realtime recovery of a book nobody else follows', () => {
  // The server's clock runs `skewMs` ahead of the real one, so the test can let a minute pass without waiting for it.
  let skewMs = 0;
  let ex: TestExchange;
  beforeAll(async () => {
    ex = await startTestExchange(exchangeConfig(), { now: () => Date.now() + skewMs });
  });
  afterAll(async () => ex.destroy());

  /**
   * The only subscriber of a new market's book is dropped before anything is published on it; three orders are
   * posted `awayMs` after it left; it comes back and must recover exactly those three.
   */
  async function dropQuietBookThenPost(marketHash: string, awayMs: number) {
    const maker = await fundedWallet(ex);
    const me = newWallet().address;
    const c = await connectAs(ex, me, { minReconnectDelay: 2000, maxReconnectDelay: 2000 });
    const [book] = await subscribed(c, `order_book:market_${marketHash}`);
    expect(book!.subscribed[0]).toMatchObject({ positioned: true, recoverable: true, streamPosition: { offset: 0 } });
    expect(ex.ctx.realtime!.disconnect(CloseCode.shutdown, 'shutdown', (conn) => conn.user === me)).toBe(1);
    skewMs += awayMs;
    (ex.ctx.realtime!.broker as MemoryBroker).sweep(); // what the broker's timer does meanwhile
    const posted: string[] = [];
    for (const odds of [30n, 31n, 32n]) {
      posted.push(await postOrder(ex, maker, { marketHash, totalBetSize: 10n * USDC, percentageOdds: odds * E18, isMakerBettingOutcomeOne: false }));
    }
    expect(book!.subscribed).toHaveLength(1); // still away

    await waitFor(() => book!.subscribed.length === 2, 8000, 'resubscribe');
    expect(book!.subscribed[1]).toMatchObject({ wasRecovering: true, recovered: true });
    expect(book!.subscribed[1]!.streamPosition!.epoch).toBe(book!.subscribed[0]!.streamPosition!.epoch);
    await waitFor(() => book!.pubs.length === 3, 5000, 'recovered publications');
    await sleep(50);
    expect(book!.pubs.map((p) => p.offset)).toEqual([1, 2, 3]);
    expect(book!.pubs.map((p) => (p.data as Rest[]).map((o) => [o.orderHash, o.orderStatus]))).toEqual(posted.map((h) => [[h, 'ACTIVE']]));
  }

  const preGameMoneylines = async (): Promise<string[]> =>
    (await ex.get('/markets/active?pageSize=100&type=52')).body.data.markets
      .filter((m: { liveEnabled: boolean }) => !m.liveEnabled)
      .map((m: { marketHash: string }) => m.marketHash);

  it('recovers the three orders posted right after the only subscriber was dropped', async () => {
    await dropQuietBookThenPost((await preGameMoneylines())[0]!, 0);
  });

  it('recovers the three orders posted a minute after the only subscriber was dropped', async () => {
    await dropQuietBookThenPost((await preGameMoneylines())[1]!, 60_000);
  });
});
