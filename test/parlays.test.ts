// Parlays end to end: a bettor's signed request creates a parlay market and is broadcast on parlay_markets:global;
// makers quote it unseen for the quote window, then the bettor sees every offer at once and may fill one until the
// fill deadline; the parlay settles from its legs (all win, one loses, a void leg), balances exact to the wei.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PublicationContext, Subscription } from 'centrifuge';
import type { PrivateKeyAccount } from 'viem';
import { loadConfig, type Config } from '../src/config.js';
import { startTestExchange, type TestExchange } from './helpers/server.js';
import { centrifugeClient, createApiKey, fetchToken, sleep, waitFor, wsUrl } from './helpers/realtime.js';
import { balanceOf, betTestConfig, createFixtureMarket, createSoccerLeague, fillAndConfirm, fundedWallet, postOrder, type TestCatalogue } from './helpers/bets.js';
import { E18, USDC, newWallet, randomHex32, signedCancel, signedFill, signedOrder } from './helpers/wallets.js';
import { parlaySigning, signedParlayRequest, type Leg, type ParlaySigning } from './helpers/parlays.js';

type Rest = Record<string, unknown>;

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

/** Every item published on the channels, oldest first, per channel. */
async function watch(ex: TestExchange, ...channels: string[]) {
  const key = await createApiKey(ex, newWallet().address);
  const c = centrifugeClient(wsUrl(ex), { getToken: () => fetchToken(ex, key) });
  cleanup.push(() => c.disconnect());
  c.connect();
  await c.ready(5000);
  const subs: Subscription[] = channels.map((ch) => c.newSubscription(ch));
  const pubs = new Map<string, PublicationContext[]>(channels.map((ch) => [ch, []]));
  subs.forEach((s, i) => s.on('publication', (p) => pubs.get(channels[i]!)!.push(p)));
  for (const s of subs) s.subscribe();
  await Promise.all(subs.map((s) => s.ready(5000)));
  const items = (ch: string) => pubs.get(ch)!.flatMap((p) => (Array.isArray(p.data) ? (p.data as Rest[]) : [p.data as Rest]));
  return { items, publications: (ch: string) => pubs.get(ch)! };
}

/** A fresh fixture with a moneyline market (type 52) per leg: legs of distinct events. */
async function moneylines(ex: TestExchange, cat: TestCatalogue, n: number): Promise<string[]> {
  const hashes: string[] = [];
  for (let i = 0; i < n; i++) hashes.push((await createFixtureMarket(ex, cat, { type: 52 })).markets[0]!.marketHash);
  return hashes;
}

const requestParlay = async (ex: TestExchange, bettor: PrivateKeyAccount, s: ParlaySigning, legs: Leg[], requestSize = 20n * USDC) =>
  ex.post('/parlays/request', await signedParlayRequest(bettor, s, { legs, requestSize }));

describe('POST /parlays/request', () => {
  let ex: TestExchange;
  let cat: TestCatalogue;
  let signing: ParlaySigning;

  beforeAll(async () => {
    ex = await startTestExchange({ ...betTestConfig(), parlays: { quoteWindowMs: 3000, fillWindowMs: 60_000, requestsPerMinute: 3 } });
    cat = await createSoccerLeague(ex);
    signing = await parlaySigning(ex);
  });
  afterAll(async () => ex.destroy());

  it('reports the parlay domain name in /metadata', async () => {
    expect(signing.domainName).toBe('ParlayRequestOddex');
  });

  it('creates a parlay market with its legs and broadcasts exactly {marketHash, baseToken, requestSize, legs}', async () => {
    const [a, b] = await moneylines(ex, cat, 2);
    const w = await watch(ex, 'parlay_markets:global', 'markets:global');
    const bettor = await fundedWallet(ex, 25_000_001n);
    const legs = [
      { marketHash: a!, bettingOutcomeOne: true },
      { marketHash: b!, bettingOutcomeOne: false },
    ];
    const before = Date.now();
    const res = await requestParlay(ex, bettor, signing, legs, 25_000_001n);
    expect(res.status).toBe(200);
    const market = res.body.data;
    expect(market.marketHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(market).toMatchObject({
      status: 'ACTIVE',
      type: 999,
      legs,
      outcomeOneName: 'Every leg wins',
      outcomeTwoName: 'Not every leg wins',
      liveEnabled: false,
      parlay: { bettor: bettor.address, baseToken: signing.baseToken, requestSize: '25000001' },
    });
    expect(market.parlay.quoteWindowEndsAt - market.parlay.requestedAt).toBe(3000);
    expect(market.parlay.fillDeadline - market.parlay.quoteWindowEndsAt).toBe(60_000);
    expect(market.parlay.requestedAt).toBeGreaterThanOrEqual(before);

    // One publication whose data is the request object itself (DECISIONS), not an array of them.
    await waitFor(() => w.publications('parlay_markets:global').length > 0);
    expect(w.publications('parlay_markets:global').map((p) => p.data)).toEqual([{ marketHash: market.marketHash, baseToken: signing.baseToken, requestSize: '25000001', legs }]);
    await waitFor(() => w.items('markets:global').some((m) => m.marketHash === market.marketHash));
    expect(w.items('markets:global').find((m) => m.marketHash === market.marketHash)).toEqual(market);

    const found = (await ex.get(`/markets/find?marketHashes=${market.marketHash}`)).body.data;
    expect(found).toEqual([market]);
    const active = (await ex.get('/markets/active?pageSize=100')).body.data.markets as Rest[];
    expect(active.map((m) => m.marketHash)).toEqual(expect.arrayContaining([a, b]));
    expect(active.some((m) => m.marketHash === market.marketHash)).toBe(false);
  });

  it('refuses each bad request with its errorCode and changes nothing', async () => {
    const [a, b, c] = await moneylines(ex, cat, 3);
    // A second market of a's event, and a settled market.
    const aEvent = (await ex.get(`/markets/find?marketHashes=${a}`)).body.data[0].exchangeEventId;
    const sameEvent = (await ex.admin('POST', '/admin/markets', { exchangeEventId: aEvent, type: 2, line: 2.5 })).body.data[0].marketHash;
    const [settled] = await moneylines(ex, cat, 1);
    expect((await ex.admin('POST', `/admin/markets/${settled}/report`, { outcome: 1 })).status).toBe(200);
    // A market enabled for in-play betting whose game has started: a parlay closes when its first game starts, so
    // one of this leg would be closed from birth (every offer INVALID_MARKET, every fill MARKET_NOT_LIVE_ENABLED).
    const inPlay = await createFixtureMarket(ex, cat, { type: 52, liveEnabled: true });
    expect((await ex.admin('POST', `/admin/fixtures/${inPlay.exchangeEventId}/status`, { status: 2 })).status).toBe(200);
    const w = await watch(ex, 'parlay_markets:global');
    // A bettor per request (requests count against the bettor's limit), but one for the replays; it alone holds funds.
    const replayer = await fundedWallet(ex, 20n * USDC);
    const short = await fundedWallet(ex, 20n * USDC - 1n);
    const leg = (marketHash: string, bettingOutcomeOne = true) => ({ marketHash, bettingOutcomeOne });
    const sign = (r: Partial<Parameters<typeof signedParlayRequest>[2]>, bettor = newWallet()) =>
      signedParlayRequest(bettor, signing, { legs: [leg(a!), leg(b!)], requestSize: 20n * USDC, ...r });
    const now = Math.floor(Date.now() / 1000);
    const replayed = await sign({ legs: [leg(b!), leg(c!)] }, replayer);
    expect((await ex.post('/parlays/request', replayed)).status).toBe(200);
    const elevenLegs = Array.from({ length: 11 }, () => leg(randomHex32()));
    const cases: [string, unknown, number, string][] = [
      ['one leg', await sign({ legs: [leg(a!)] }), 400, 'PARLAY_LEG_COUNT'],
      ['eleven legs', await sign({ legs: elevenLegs }), 400, 'PARLAY_LEG_COUNT'],
      ['a duplicated market', await sign({ legs: [leg(a!), leg(b!), leg(a!, false)] }), 400, 'PARLAY_DUPLICATE_MARKET'],
      ['two legs of one event', await sign({ legs: [leg(a!), leg(sameEvent)] }), 400, 'PARLAY_SAME_EVENT'],
      ['a settled leg', await sign({ legs: [leg(a!), leg(settled!)] }), 400, 'PARLAY_LEG_NOT_TRADEABLE'],
      ['a leg in play', await sign({ legs: [leg(a!), leg(inPlay.markets[0]!.marketHash)] }), 400, 'PARLAY_LEG_NOT_TRADEABLE'],
      ['an unknown leg', await sign({ legs: [leg(a!), leg(randomHex32())] }), 404, 'MARKET_NOT_FOUND'],
      ['a replayed salt', replayed, 409, 'PARLAY_REQUEST_ALREADY_PROCESSED'],
      ['the replayed salt on other legs', await sign({ salt: replayed.salt }, replayer), 409, 'PARLAY_REQUEST_ALREADY_PROCESSED'],
      ['a stale timestamp', await sign({ timestamp: now - 120 }), 400, 'STALE_TIMESTAMP'],
      ['a future timestamp', await sign({ timestamp: now + 120 }), 400, 'STALE_TIMESTAMP'],
      ['a forged signature', { ...(await sign({})), bettor: newWallet().address }, 403, 'BETTOR_SIGNATURE_MISMATCH'],
      ['a changed leg after signing', { ...(await sign({})), legs: [leg(a!), leg(c!)] }, 403, 'BETTOR_SIGNATURE_MISMATCH'],
      ['a size below the taker minimum', await sign({ requestSize: 999_999n }), 400, 'PARLAY_REQUEST_TOO_SMALL'],
      ['a bettor without funds', await sign({}), 400, 'INSUFFICIENT_BALANCE'],
      ['a bettor holding less than requestSize', await sign({}, short), 400, 'INSUFFICIENT_BALANCE'],
      ['another token', await sign({ baseToken: '0x' + '12'.repeat(20) }), 400, 'INVALID_BASE_TOKEN'],
    ];
    for (const [what, body, status, errorCode] of cases) {
      const res = await ex.post('/parlays/request', body);
      expect([what, res.status, res.body.errorCode]).toEqual([what, status, errorCode]);
    }
    // Only the one good request was broadcast, and no market of a's event or b's gained anything.
    await sleep(200);
    expect(w.items('parlay_markets:global').map((p) => p.legs)).toEqual([[leg(b!), leg(c!)]]);
  });

  it('limits requests per bettor (429 RATE_LIMITED with Retry-After), not per anyone else', async () => {
    const [a, b] = await moneylines(ex, cat, 2);
    const legs = [
      { marketHash: a!, bettingOutcomeOne: true },
      { marketHash: b!, bettingOutcomeOne: true },
    ];
    const bettor = await fundedWallet(ex);
    for (let i = 0; i < 3; i++) expect((await requestParlay(ex, bettor, signing, legs)).status).toBe(200);
    const refused = await requestParlay(ex, bettor, signing, legs);
    expect([refused.status, refused.body.errorCode]).toEqual([429, 'RATE_LIMITED']);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await requestParlay(ex, await fundedWallet(ex), signing, legs)).status).toBe(200);
  });
});

describe('the quote window and the fill deadline', () => {
  let ex: TestExchange;
  let cat: TestCatalogue;
  let signing: ParlaySigning;
  // Long enough to post both offers and look at the dark book inside it on a loaded machine; their publications may
  // come after the close and still be in its one release (the slow-projector test below).
  const QUOTE_MS = 4000;
  const FILL_MS = 2000;

  beforeAll(async () => {
    ex = await startTestExchange({ ...betTestConfig(), parlays: { quoteWindowMs: QUOTE_MS, fillWindowMs: FILL_MS, requestsPerMinute: 10 } });
    cat = await createSoccerLeague(ex);
    signing = await parlaySigning(ex);
  });
  afterAll(async () => ex.destroy());

  it('hides orders posted in the window from the book and its channel until it closes, then shows them at once', async () => {
    const legs = (await moneylines(ex, cat, 2)).map((marketHash) => ({ marketHash, bettingOutcomeOne: true }));
    const bettor = await fundedWallet(ex);
    const makers = [await fundedWallet(ex), await fundedWallet(ex)];
    const parlay = (await requestParlay(ex, bettor, signing, legs)).body.data;
    const book = `order_book:market_${parlay.marketHash}`;
    const w = await watch(ex, book);
    const hashes = [
      await postOrder(ex, makers[0]!, { marketHash: parlay.marketHash, totalBetSize: 80n * USDC, percentageOdds: 80n * E18, isMakerBettingOutcomeOne: false }),
      await postOrder(ex, makers[1]!, { marketHash: parlay.marketHash, totalBetSize: 50n * USDC, percentageOdds: 75n * E18, isMakerBettingOutcomeOne: false }),
    ];
    const listed = async () => ((await ex.get(`/orders?marketHashes=${parlay.marketHash}`)).body.data as Rest[]).map((o) => o.orderHash).sort();
    const best = async () => (await ex.get(`/orders/odds/best?marketHashes=${parlay.marketHash}&baseToken=${signing.baseToken}`)).body.data.bestOdds;
    expect(Date.now()).toBeLessThan(parlay.parlay.quoteWindowEndsAt);
    expect(await listed()).toEqual([]);
    expect(await best()).toEqual([]);
    // A maker sees its own orders with its API key; anyone else naming the maker sees none of them.
    const makerOrders = async (headers?: Record<string, string>) =>
      ((await ex.get(`/orders?maker=${makers[0]!.address}`, headers)).body.data as Rest[]).map((o) => o.orderHash);
    expect(await makerOrders({ 'x-api-key': await createApiKey(ex, makers[0]!.address) })).toEqual([hashes[0]]);
    expect(await makerOrders()).toEqual([]);
    expect(await makerOrders({ 'x-api-key': await createApiKey(ex, makers[1]!.address) })).toEqual([]);
    expect(await makerOrders({ 'x-api-key': 'not-a-key' })).toEqual([]);
    // The bettor cannot fill blind.
    const early = await ex.post('/orders/fill/v2', await signedFill(bettor, ex.ctx.config, { market: parlay.marketHash, isTakerBettingOutcomeOne: true, stakeWei: 10n * USDC, desiredOdds: 20n * E18 }));
    expect([early.status, early.body.errorCode]).toEqual([400, 'PARLAY_QUOTE_WINDOW_OPEN']);
    await sleep(300);
    expect(w.publications(book)).toEqual([]);

    await waitFor(() => w.publications(book).length > 0, parlay.parlay.quoteWindowEndsAt - Date.now() + 3000);
    expect(Date.now()).toBeGreaterThanOrEqual(parlay.parlay.quoteWindowEndsAt);
    // Both offers in one publication.
    expect(w.publications(book).length).toBe(1);
    expect(w.items(book).map((o) => o.orderHash).sort()).toEqual([...hashes].sort());
    expect(await listed()).toEqual([...hashes].sort());
    expect((await best()).length).toBe(1);
    expect(await makerOrders()).toEqual([hashes[0]]);
  });

  it('publishes the parlay\'s best odds on best_odds:global when the window closes, with no fill or new order needed', async () => {
    const legs = (await moneylines(ex, cat, 2)).map((marketHash) => ({ marketHash, bettingOutcomeOne: false }));
    const bettor = await fundedWallet(ex);
    const makers = [await fundedWallet(ex), await fundedWallet(ex)];
    const parlay = (await requestParlay(ex, bettor, signing, legs)).body.data;
    // Nobody follows the parlay's book or its makers: best odds alone.
    const w = await watch(ex, 'best_odds:global');
    const ofParlay = () => w.items('best_odds:global').filter((e) => e.marketHash === parlay.marketHash);
    await postOrder(ex, makers[0]!, { marketHash: parlay.marketHash, totalBetSize: 80n * USDC, percentageOdds: 80n * E18, isMakerBettingOutcomeOne: false });
    await postOrder(ex, makers[1]!, { marketHash: parlay.marketHash, totalBetSize: 50n * USDC, percentageOdds: 75n * E18, isMakerBettingOutcomeOne: false });
    await sleep(300);
    expect(Date.now()).toBeLessThan(parlay.parlay.quoteWindowEndsAt);
    expect(ofParlay()).toEqual([]);

    await waitFor(() => ofParlay().length > 0, parlay.parlay.quoteWindowEndsAt - Date.now() + 3000, 'the parlay on best_odds:global');
    const rest = (await ex.get(`/orders/odds/best?marketHashes=${parlay.marketHash}&baseToken=${signing.baseToken}`)).body.data.bestOdds[0];
    expect(ofParlay()).toEqual([
      {
        marketHash: parlay.marketHash,
        baseToken: signing.baseToken,
        isMakerBettingOutcomeOne: false,
        percentageOdds: String(75n * E18),
        updatedAt: rest.outcomeTwo.updatedAt,
        sportId: parlay.sportId,
        leagueId: parlay.leagueId,
      },
    ]);
  });

  it('refuses fills after the fill deadline; makers still cancel', async () => {
    const legs = (await moneylines(ex, cat, 2)).map((marketHash) => ({ marketHash, bettingOutcomeOne: false }));
    const bettor = await fundedWallet(ex);
    const maker = await fundedWallet(ex);
    const parlay = (await requestParlay(ex, bettor, signing, legs)).body.data;
    const orderHash = await postOrder(ex, maker, { marketHash: parlay.marketHash, totalBetSize: 80n * USDC, percentageOdds: 80n * E18, isMakerBettingOutcomeOne: false });
    await sleep(parlay.parlay.fillDeadline - Date.now() + 50);
    const before = await balanceOf(ex, bettor);
    const late = await ex.post('/orders/fill/v2', await signedFill(bettor, ex.ctx.config, { market: parlay.marketHash, isTakerBettingOutcomeOne: true, stakeWei: 10n * USDC, desiredOdds: 20n * E18 }));
    expect([late.status, late.body.errorCode]).toEqual([400, 'PARLAY_FILL_WINDOW_CLOSED']);
    expect(await balanceOf(ex, bettor)).toEqual(before);
    const cancel = await ex.post('/orders/cancel/v2', await signedCancel(maker, ex.ctx.config, 'v2', { orderHashes: [orderHash] }));
    expect(cancel.status).toBe(200);
    expect((await ex.get(`/orders?orderHashes=${orderHash}`)).body.data[0].orderStatus).toBe('CANCELLED');
  });
});

describe('a parlay whose legs are no longer open', () => {
  let ex: TestExchange;
  let cat: TestCatalogue;
  let signing: ParlaySigning;

  beforeAll(async () => {
    ex = await startTestExchange({ ...betTestConfig(), parlays: { quoteWindowMs: 200, fillWindowMs: 60_000, requestsPerMinute: 10 } });
    cat = await createSoccerLeague(ex);
    signing = await parlaySigning(ex);
  });
  afterAll(async () => ex.destroy());

  /** A parlay of two new moneylines (not enabled in play) with an offer against it, its quote window over. */
  async function quotedParlay() {
    const legs = (await moneylines(ex, cat, 2)).map((marketHash) => ({ marketHash, bettingOutcomeOne: true }));
    const bettor = await fundedWallet(ex);
    const maker = await fundedWallet(ex);
    const parlay = (await requestParlay(ex, bettor, signing, legs)).body.data;
    await postOrder(ex, maker, { marketHash: parlay.marketHash, totalBetSize: 60n * USDC, percentageOdds: 75n * E18, isMakerBettingOutcomeOne: false });
    await sleep(parlay.parlay.quoteWindowEndsAt - Date.now() + 20);
    const fill = async () => ex.post('/orders/fill/v2', await signedFill(bettor, ex.ctx.config, { market: parlay.marketHash, isTakerBettingOutcomeOne: true, stakeWei: 10n * USDC, desiredOdds: 25n * E18 }));
    return { legs, bettor, parlay, fill };
  }

  it('takes no fill and no new order once a leg is reported: the result is partly known, the offers priced before it', async () => {
    const { legs, bettor, parlay, fill } = await quotedParlay();
    // Leg two lost as picked: "every leg wins" can no longer happen, yet the maker's offer still prices it at 25%.
    expect((await ex.admin('POST', `/admin/markets/${legs[1]!.marketHash}/report`, { outcome: 2 })).status).toBe(200);
    const before = await balanceOf(ex, bettor);
    const res = await fill();
    expect([res.status, res.body.errorCode]).toEqual([400, 'MARKET_NOT_TRADEABLE']);
    expect(await balanceOf(ex, bettor)).toEqual(before);
    const maker = await fundedWallet(ex);
    const order = await signedOrder(maker, ex.ctx.config, { marketHash: parlay.marketHash, totalBetSize: 20n * USDC, percentageOdds: 70n * E18, isMakerBettingOutcomeOne: false });
    const posted = await ex.post('/orders/new', { orders: [order.body] });
    expect([posted.status, posted.body.data.statuses]).toEqual([200, { [order.hash]: 'INVALID_MARKET' }]);
  });

  it('takes no fill once a leg closed in play is live, whichever leg names the parlay\'s event', async () => {
    const { legs, parlay, fill } = await quotedParlay();
    const events: string[] = (await ex.get(`/markets/find?marketHashes=${legs.map((l) => l.marketHash).join(',')}`)).body.data.map((m: Rest) => m.exchangeEventId);
    const other = events.find((e) => e !== parlay.exchangeEventId)!;
    expect(other).toBeDefined();
    expect((await ex.admin('POST', `/admin/fixtures/${other}/status`, { status: 2 })).status).toBe(200);
    const res = await fill();
    expect([res.status, res.body.errorCode]).toEqual([400, 'MARKET_NOT_LIVE_ENABLED']);
  });
});

describe('the quote window with a slow projector', () => {
  let ex: TestExchange;
  let cat: TestCatalogue;
  let signing: ParlaySigning;
  // Each order's publication comes this long after its acknowledgement: one posted shortly before the close is
  // published after it.
  const PROJECTOR_MS = 1000;
  const QUOTE_MS = 2500;

  beforeAll(async () => {
    ex = await startTestExchange({ ...betTestConfig(), projectorDelayMs: PROJECTOR_MS, parlays: { quoteWindowMs: QUOTE_MS, fillWindowMs: 60_000, requestsPerMinute: 10 } });
    cat = await createSoccerLeague(ex);
    signing = await parlaySigning(ex);
  });
  afterAll(async () => ex.destroy());

  it('releases an order acknowledged before the close but published after it with the others, in one publication', async () => {
    const legs = (await moneylines(ex, cat, 2)).map((marketHash) => ({ marketHash, bettingOutcomeOne: true }));
    const makers = [await fundedWallet(ex), await fundedWallet(ex)];
    const parlay = (await requestParlay(ex, await fundedWallet(ex), signing, legs)).body.data;
    const book = `order_book:market_${parlay.marketHash}`;
    const w = await watch(ex, book);
    const early = await postOrder(ex, makers[0]!, { marketHash: parlay.marketHash, totalBetSize: 80n * USDC, percentageOdds: 80n * E18, isMakerBettingOutcomeOne: false });
    // 600 ms before the close: time to post on a loaded machine, and its publication still comes after the close.
    await sleep(parlay.parlay.quoteWindowEndsAt - Date.now() - 600);
    const late = await postOrder(ex, makers[1]!, { marketHash: parlay.marketHash, totalBetSize: 50n * USDC, percentageOdds: 75n * E18, isMakerBettingOutcomeOne: false });
    expect(Date.now()).toBeLessThan(parlay.parlay.quoteWindowEndsAt);

    await waitFor(() => w.publications(book).length > 0, parlay.parlay.quoteWindowEndsAt - Date.now() + 5000);
    // Past the late order's projection: nothing follows on its own.
    await sleep(PROJECTOR_MS);
    expect(w.publications(book).length).toBe(1);
    expect(w.items(book).map((o) => o.orderHash).sort()).toEqual([early, late].sort());
  });
});

/** Where the commission goes in the settlement tests. */
const FEE_ACCOUNT = newWallet();

describe('settlement from the legs', () => {
  let ex: TestExchange;
  let cat: TestCatalogue;
  let signing: ParlaySigning;
  const START = 1000n * USDC;

  beforeAll(async () => {
    ex = await startTestExchange({
      ...betTestConfig(),
      parlays: { quoteWindowMs: 300, fillWindowMs: 60_000, requestsPerMinute: 10 },
      fees: { ...loadConfig({}).fees, account: FEE_ACCOUNT.address },
    } satisfies Partial<Config>);
    cat = await createSoccerLeague(ex);
    signing = await parlaySigning(ex);
  });
  afterAll(async () => ex.destroy());

  /**
   * The bettor backs [leg 1 wins, leg 2 loses] with 20; the maker takes the other side at 80% (stake 80).
   * Each case reports the legs' outcomes and what each wallet holds afterwards: the winner pays the default parlay
   * commission, 500 bps of its net profit, to the fee account (4 of the bettor's 80, 1 of the maker's 20).
   */
  const cases: { name: string; legOutcomes: [number, number]; outcome: number; bettor: bigint; maker: bigint; fees: bigint }[] = [
    { name: 'every leg wins as picked: outcome one', legOutcomes: [1, 2], outcome: 1, bettor: START + 76n * USDC, maker: START - 80n * USDC, fees: 4n * USDC },
    { name: 'one leg loses: outcome two', legOutcomes: [1, 1], outcome: 2, bettor: START - 20n * USDC, maker: START + 19n * USDC, fees: 1n * USDC },
    { name: 'a void leg voids the parlay', legOutcomes: [0, 2], outcome: 0, bettor: START, maker: START, fees: 0n },
  ];
  let feesSoFar = 0n;

  for (const c of cases) {
    it(`${c.name}, balances exact to the wei`, async () => {
      const [one, two] = await moneylines(ex, cat, 2);
      const legs = [
        { marketHash: one!, bettingOutcomeOne: true },
        { marketHash: two!, bettingOutcomeOne: false },
      ];
      const bettor = await fundedWallet(ex, START);
      const maker = await fundedWallet(ex, START);
      const parlay = (await requestParlay(ex, bettor, signing, legs)).body.data;
      await postOrder(ex, maker, { marketHash: parlay.marketHash, totalBetSize: 100n * USDC, percentageOdds: 80n * E18, isMakerBettingOutcomeOne: false });
      await sleep(parlay.parlay.quoteWindowEndsAt - Date.now() + 20);
      await fillAndConfirm(ex, bettor, { market: parlay.marketHash, isTakerBettingOutcomeOne: true, stakeWei: 20n * USDC, desiredOdds: 20n * E18 });
      expect([await balanceOf(ex, bettor), await balanceOf(ex, maker)].map((b) => [b.balance, b.escrowed])).toEqual([
        [(START - 20n * USDC).toString(), (20n * USDC).toString()],
        [(START - 80n * USDC).toString(), (80n * USDC).toString()],
      ]);

      // One leg reported: the parlay waits for the other.
      expect((await ex.admin('POST', `/admin/markets/${one}/report`, { outcome: c.legOutcomes[0] })).status).toBe(200);
      expect((await ex.get(`/markets/find?marketHashes=${parlay.marketHash}`)).body.data[0].status).toBe('ACTIVE');
      const direct = await ex.admin('POST', `/admin/markets/${parlay.marketHash}/report`, { outcome: 1 });
      expect([direct.status, direct.body.errorCode]).toEqual([400, 'PARLAY_SETTLES_FROM_LEGS']);

      const reported = await ex.admin('POST', `/admin/markets/${two}/report`, { outcome: c.legOutcomes[1] });
      expect(reported.status).toBe(200);
      expect((reported.body.data as Rest[]).map((m) => [m.marketHash, m.outcome])).toEqual([
        [two, c.legOutcomes[1]],
        [parlay.marketHash, c.outcome],
      ]);
      const settled = (await ex.get(`/markets/find?marketHashes=${parlay.marketHash}`)).body.data[0];
      expect(settled).toMatchObject({ status: 'SETTLED', outcome: c.outcome, legs });
      expect(settled.teamOneScore).toBeUndefined();
      await waitFor(async () => (await balanceOf(ex, bettor)).escrowed === '0');
      feesSoFar += c.fees;
      expect([await balanceOf(ex, bettor), await balanceOf(ex, maker), await balanceOf(ex, FEE_ACCOUNT)].map((b) => [b.balance, b.escrowed])).toEqual([
        [c.bettor.toString(), '0'],
        [c.maker.toString(), '0'],
        [feesSoFar.toString(), '0'],
      ]);
      const trades = (await ex.get(`/trades?bettor=${bettor.address}&marketHashes=${parlay.marketHash}`)).body.data.trades as Rest[];
      expect(trades.map((t) => [t.marketHash, t.stake, t.settled, t.outcome])).toEqual([[parlay.marketHash, (20n * USDC).toString(), true, c.outcome]]);
      // The taker's own fee on its trade; the maker's is on the maker's side of the same fill.
      expect(trades[0]!.fee).toBe((c.outcome === 1 ? c.fees : 0n).toString());
    });
  }
});

describe('a parlay across a restart', () => {
  it('keeps its legs and terms, and still settles from its legs', async () => {
    let ex = await startTestExchange({
      ...betTestConfig(),
      parlays: { quoteWindowMs: 200, fillWindowMs: 60_000, requestsPerMinute: 10 },
      fees: { ...loadConfig({}).fees, account: FEE_ACCOUNT.address },
    });
    try {
      const cat = await createSoccerLeague(ex);
      const [one, two] = await moneylines(ex, cat, 2);
      const legs = [
        { marketHash: one!, bettingOutcomeOne: false },
        { marketHash: two!, bettingOutcomeOne: true },
      ];
      const bettor = await fundedWallet(ex, 100n * USDC);
      const maker = await fundedWallet(ex, 100n * USDC);
      const parlay = (await requestParlay(ex, bettor, await parlaySigning(ex), legs)).body.data;
      await postOrder(ex, maker, { marketHash: parlay.marketHash, totalBetSize: 50n * USDC, percentageOdds: 50n * E18, isMakerBettingOutcomeOne: false });
      await sleep(parlay.parlay.quoteWindowEndsAt - Date.now() + 20);
      await fillAndConfirm(ex, bettor, { market: parlay.marketHash, isTakerBettingOutcomeOne: true, stakeWei: 20n * USDC, desiredOdds: 50n * E18 });
      expect((await ex.admin('POST', `/admin/markets/${one}/report`, { outcome: 2 })).status).toBe(200);

      ex = await ex.restart();
      expect((await ex.get(`/markets/find?marketHashes=${parlay.marketHash}`)).body.data).toEqual([parlay]);
      expect((await ex.admin('POST', `/admin/markets/${two}/report`, { outcome: 1 })).status).toBe(200);
      expect((await ex.get(`/markets/find?marketHashes=${parlay.marketHash}`)).body.data[0]).toMatchObject({ status: 'SETTLED', outcome: 1 });
      // Evens on 20: the bettor gains 20 less the parlay commission (500 bps: 1), the maker loses 20.
      expect([await balanceOf(ex, bettor), await balanceOf(ex, maker)].map((b) => [b.balance, b.escrowed])).toEqual([
        [(119n * USDC).toString(), '0'],
        [(80n * USDC).toString(), '0'],
      ]);
    } finally {
      await ex.destroy();
    }
  });
});
