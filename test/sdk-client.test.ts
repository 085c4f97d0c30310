// The typed client (@oddex/sdk) against the real server: every endpoint method, signing through a viem account,
// safe retries, cancels, the heartbeat keeper, and a local order book across recovery and lost continuity.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { recoverMessageAddress, type Hex } from 'viem';
import { generatePrivateKey } from 'viem/accounts';
import { OddexApiError, OddexClient, OddexAdmin, payoutFor, type Order } from '@oddex/sdk';
import { startTestExchange, TEST_ADMIN_TOKEN, type TestExchange } from './helpers/server.js';
import { betTestConfig, createFixtureMarket, createSoccerLeague, waitFor } from './helpers/bets.js';
import { newWallet, USDC } from './helpers/wallets.js';
import { CloseCode } from '../src/realtime/protocol.js';
import { sleep } from './helpers/realtime.js';
import { defaultConfig } from '../src/config.js';

const E18 = 10n ** 18n;
const P55 = 55n * E18; // 55%
const P60 = 60n * E18;

let ex: TestExchange;
let admin: OddexAdmin;
let market: string;
let market2: string;
let eventId: string;
let leagueId: number;

const clients: OddexClient[] = [];
/** A funded wallet with an API key and a client signing through a viem account. */
async function trader(funds = 1000n * USDC) {
  const account = newWallet();
  await admin.faucet(account.address, funds);
  const { apiKey } = await admin.createApiKey(account.address);
  const client = new OddexClient({ url: ex.url, signer: account, apiKey, WebSocket });
  clients.push(client);
  return { account, client };
}

/** The wire form of an order from GET /orders, for comparison with the client's bigint form. */
const asWire = (o: Order) => ({
  ...o,
  totalBetSize: o.totalBetSize.toString(),
  percentageOdds: o.percentageOdds.toString(),
  fillAmount: o.fillAmount.toString(),
  pendingFillAmount: o.pendingFillAmount.toString(),
});

beforeAll(async () => {
  ex = await startTestExchange({
    ...betTestConfig(),
    realtime: { ...defaultConfig().realtime, historyTtlMs: 1500 },
  });
  admin = new OddexAdmin({ url: ex.url, adminToken: TEST_ADMIN_TOKEN });
  const cat = await createSoccerLeague(ex);
  leagueId = cat.leagueId;
  const f = await createFixtureMarket(ex, cat, { type: 52 });
  eventId = f.exchangeEventId;
  market = f.markets[0]!.marketHash;
  market2 = (await admin.createMarkets({ exchangeEventId: eventId, type: 2, line: 2.5 }))[0]!.marketHash;
});

afterAll(async () => {
  for (const c of clients) c.close();
  await ex?.destroy();
});

describe('OddexClient reads', () => {
  it('returns every public read exactly as the API sends it, amounts as bigint', async () => {
    const client = new OddexClient({ url: ex.url });
    const raw = async (path: string) => (await ex.get(path)).body.data;

    expect(await client.ready()).toBe(true);
    const meta = await raw('/metadata');
    expect(await client.metadata()).toEqual(meta);
    expect(await client.params()).toEqual({
      chainId: ex.ctx.config.chainId,
      baseToken: ex.ctx.config.baseTokenAddress,
      baseTokenSymbol: 'USDC',
      executor: ex.ctx.config.executorAddress,
      fillHasher: ex.ctx.config.eip712FillHasher,
      domainVersion: '1.0',
      domainNames: ex.ctx.config.domainNames,
      oddsLadderStepSize: 125,
      makerMinimum: 10_000_000n,
      takerMinimum: 1_000_000n,
    });
    expect(await client.activeMarkets({ pageSize: 1 })).toEqual(await raw('/markets/active?pageSize=1'));
    const all = await client.allActiveMarkets({ pageSize: 1 });
    expect(all.map((m) => m.marketHash).sort()).toEqual([market, market2].sort());
    expect(await client.findMarkets([market])).toEqual(await raw(`/markets/find?marketHashes=${market}`));
    expect(await client.popularMarkets()).toEqual(await raw('/markets/popular'));
    const found = await client.search('alpha');
    expect(found).toEqual(await raw('/search?query=alpha'));
    expect(found.map((r) => r.eventId)).toEqual([eventId]);
    expect(await client.sports()).toEqual(await raw('/sports'));
    expect(await client.activeLeagues()).toEqual(await raw('/leagues/active'));
    expect(await client.teams({ pageSize: 5 })).toEqual(await raw('/teams?pageSize=5'));
    expect(await client.activeFixtures(leagueId)).toEqual(await raw(`/fixture/active?leagueId=${leagueId}`));
    expect(await client.liveScores([eventId])).toEqual(await raw(`/live-scores?exchangeEventIds=${eventId}`));

    const wallet = newWallet();
    await admin.faucet(wallet.address, 25n * USDC);
    expect(await client.balance(wallet.address)).toEqual({
      address: wallet.address,
      baseToken: ex.ctx.config.baseTokenAddress,
      balance: 25n * USDC,
      escrowed: 0n,
      openExposure: 0n,
      pendingTakerStake: 0n,
    });
  });

  it('raises typed errors with errorCode, status and Retry-After', async () => {
    const client = new OddexClient({ url: ex.url });
    const err = await client.orders({}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OddexApiError);
    expect(err).toMatchObject({ errorCode: 'MISSING_FILTER', status: 400 });
    await expect(client.search('ab')).rejects.toMatchObject({ errorCode: 'INVALID_PARAMETER', status: 400 });
    await expect(client.realtimeToken()).rejects.toThrow(/API key/);

    const limited = await startTestExchange({ rateLimits: { ...defaultConfig().rateLimits, basePerWindow: 1 } });
    try {
      const c = new OddexClient({ url: limited.url, retry: { attempts: 1 } });
      await c.sports();
      const e = (await c.sports().catch((x: unknown) => x)) as OddexApiError;
      expect(e).toBeInstanceOf(OddexApiError);
      expect([e.errorCode, e.status]).toEqual(['RATE_LIMITED', 429]);
      expect(e.retryAfterMs).toBeGreaterThan(0);
      expect(e.retryAfterMs).toBeLessThanOrEqual(60_000);
    } finally {
      await limited.destroy();
    }
  });
});

describe('OddexClient trading', () => {
  it('posts signed orders, lists them, and reports best odds', async () => {
    const { account, client } = await trader();
    const posted = await client.postOrders([
      { marketHash: market, isMakerBettingOutcomeOne: true, totalBetSize: 20n * USDC, percentageOdds: P55 },
      { marketHash: market, isMakerBettingOutcomeOne: false, totalBetSize: 30n * USDC, percentageOdds: 40n * E18 },
    ]);
    expect(posted.inserted).toBe(2);
    expect(posted.orders.map((o) => o.status)).toEqual(['OK', 'OK']);

    // The maker signature is viem's own: the server recovered it, and so does viem.
    const [order] = await client.orders({ orderHashes: [posted.orders[0]!.orderHash] });
    expect(await recoverMessageAddress({ message: { raw: order!.orderHash as Hex }, signature: order!.signature as Hex })).toBe(account.address);

    const mine = await client.orders({ maker: account.address });
    expect(mine.map(asWire)).toEqual((await ex.get(`/orders?maker=${account.address}`)).body.data);
    expect(mine.map((o) => [o.totalBetSize, o.percentageOdds, o.fillAmount, o.orderStatus])).toEqual([
      [20n * USDC, P55, 0n, 'ACTIVE'],
      [30n * USDC, 40n * E18, 0n, 'ACTIVE'],
    ]);
    const [best] = await client.bestOdds({ marketHashes: [market] });
    expect(best).toMatchObject({ marketHash: market, outcomeOne: { percentageOdds: P55 }, outcomeTwo: { percentageOdds: 40n * E18 } });
    expect(await client.balance()).toMatchObject({ balance: 1000n * USDC, openExposure: 50n * USDC });
    await client.cancelAll();
  });

  it('a post whose answer was lost is retried and its ORDERS_ALREADY_EXIST counts as posted', async () => {
    const account = newWallet();
    await admin.faucet(account.address, 100n * USDC);
    let lost = 0;
    const lossyFetch = async (input: string, init?: RequestInit) => {
      const res = await fetch(input, init);
      if (input.endsWith('/orders/new') && lost++ === 0) {
        await res.text();
        throw new TypeError('fetch failed: connection reset'); // processed by the server, answer lost
      }
      return res;
    };
    const client = new OddexClient({ url: ex.url, signer: account, fetch: lossyFetch, retry: { baseDelayMs: 10 } });
    const result = await client.postOrders([
      { marketHash: market2, isMakerBettingOutcomeOne: true, totalBetSize: 10n * USDC, percentageOdds: P60 },
    ]);
    expect(lost).toBe(2);
    expect(result).toEqual({ orders: [{ orderHash: expect.stringMatching(/^0x[0-9a-f]{64}$/), status: 'OK' }], inserted: 1 });
    // Sent twice, in the book once.
    const open = await client.orders({ maker: account.address });
    expect(open.map((o) => o.orderHash)).toEqual([result.orders[0]!.orderHash]);

    // Without a retry the same duplicate is reported as the server says.
    const again = await new OddexClient({ url: ex.url, signer: account }).postSignedOrders([
      (await ex.get(`/orders?maker=${account.address}`)).body.data.map(
        ({ orderHash: _h, fillAmount: _f, pendingFillAmount: _p, exchangeEventId: _e, orderStatus: _s, createdAt: _c, updatedAt: _u, ...o }: Record<string, unknown>) => o,
      )[0],
    ]);
    expect(again.orders[0]!.status).toBe('ORDERS_ALREADY_EXIST');
    await client.cancelAll();
  });

  it('fills with a fresh salt and slippage; trades, consolidated trades and refunds follow', async () => {
    const maker = await trader();
    const taker = await trader(100n * USDC);
    const [o] = (
      await maker.client.postOrders([{ marketHash: market, isMakerBettingOutcomeOne: true, totalBetSize: 55n * USDC, percentageOdds: P55 }])
    ).orders;
    // Taker odds are the complement: 45%. A 10% slippage allows down to 40.5% average.
    const fill = await taker.client.fill({ marketHash: market, isTakerBettingOutcomeOne: false, stakeWei: 9n * USDC, desiredOdds: 45n * E18, oddsSlippage: 10 });
    expect(fill).toEqual({ fillHash: expect.stringMatching(/^0x[0-9a-f]{64}$/), isPartialFill: false, totalFilled: 9n * USDC, averageOdds: 45n * E18 });
    // The same stake again with a fresh salt is a new fill, not FILL_ALREADY_SUBMITTED.
    const second = await taker.client.fill({ marketHash: market, isTakerBettingOutcomeOne: false, stakeWei: 9n * USDC, desiredOdds: 45n * E18 });
    expect(second.fillHash).not.toBe(fill.fillHash);
    // Asking for better odds than the book has, without slippage, is refused with a typed error.
    await expect(
      taker.client.fill({ marketHash: market, isTakerBettingOutcomeOne: false, stakeWei: USDC, desiredOdds: 50n * E18 }),
    ).rejects.toMatchObject({ errorCode: expect.stringMatching(/ODDS|SLIPPAGE|SPACE/), status: 400 });
    // 27 USDC of taker space is left: fillOrKill and minStakeWei refuse asking for more, and fill nothing.
    await expect(
      taker.client.fill({ marketHash: market, isTakerBettingOutcomeOne: false, stakeWei: 28n * USDC, desiredOdds: 45n * E18, fillOrKill: true }),
    ).rejects.toMatchObject({ errorCode: 'FILL_OR_KILL_NOT_FILLED', status: 400 });
    await expect(
      taker.client.fill({ marketHash: market, isTakerBettingOutcomeOne: false, stakeWei: 30n * USDC, desiredOdds: 45n * E18, minStakeWei: 27n * USDC + 1n }),
    ).rejects.toMatchObject({ errorCode: 'FILL_BELOW_MIN_STAKE', status: 400 });

    const [order] = await maker.client.orders({ orderHashes: [o!.orderHash] });
    // Maker space per fill: 9 * 55 / 45 = 11 USDC.
    expect(order!.fillAmount + order!.pendingFillAmount).toBe(22n * USDC);

    const page = await waitFor(
      () => taker.client.trades({ bettor: taker.account.address }),
      (p) => p.trades.length === 2 && p.trades.every((t) => t.tradeStatus === 'SUCCESS'),
    );
    expect(page.trades.map((t) => [t.stake, t.odds, t.maker, t.bettingOutcomeOne])).toEqual([
      [9n * USDC, 45n * E18, false, false],
      [9n * USDC, 45n * E18, false, false],
    ]);
    const wire = (await ex.get(`/trades?bettor=${taker.account.address}`)).body.data;
    expect(page.trades.map((t) => ({ ...t, stake: t.stake.toString(), odds: t.odds.toString() }))).toEqual(wire.trades);
    const byOrder = await maker.client.tradesByOrders([o!.orderHash]);
    expect(byOrder.filter((t) => t.maker).map((t) => t.stake)).toEqual([11n * USDC, 11n * USDC]);
    const consolidated = await taker.client.consolidatedTrades({ bettor: taker.account.address, settled: false });
    expect(consolidated.count).toBe(2);
    expect(consolidated.trades.map((t) => t.weightedAverageOdds)).toEqual([45n * E18, 45n * E18]);
    expect(await taker.client.refunds()).toEqual({ results: [], count: 0 });
    // Positions and the statement, typed: 18 on outcome two at 45% pays 40 if it wins.
    const { positions, count } = await taker.client.positions();
    expect([count, positions.length]).toEqual([1, 1]);
    expect(positions[0]).toMatchObject({ stakeOutcomeOne: 0n, stakeOutcomeTwo: 18n * USDC, payoutIfOutcomeTwo: 40n * USDC, escrow: 18n * USDC, settled: false });
    const wirePositions = (await ex.get(`/positions?bettor=${taker.account.address}`)).body.data.positions;
    expect(positions.map((p) => Object.fromEntries(Object.entries(p).map(([k, v]) => [k, typeof v === 'bigint' ? v.toString() : v])))).toEqual(wirePositions);
    const statement = await taker.client.statement({ sortAsc: true });
    expect(statement.entries.slice(-2).map((e) => [e.kind, e.amount])).toEqual([
      ['stake', -9n * USDC],
      ['stake', -9n * USDC],
    ]);
    expect(statement.entries.at(-1)!.balance).toBe((await taker.client.balance()).balance);
    expect(payoutFor(9n * USDC, fill.averageOdds)).toBe(20n * USDC);
    await maker.client.cancelAll();
  });

  it('cancels by order, by event and all, with their typed results', async () => {
    const { account, client } = await trader();
    const post = async (marketHash: string, n: number) =>
      (
        await client.postOrders(
          Array.from({ length: n }, (_, i) => ({ marketHash, isMakerBettingOutcomeOne: true, totalBetSize: 10n * USDC + BigInt(i), percentageOdds: P60 })),
        )
      ).orders.map((o) => o.orderHash);
    const [a, b] = await post(market, 2);
    const one = await client.cancelOrders([a!]);
    expect(one).toEqual({ cancelledCount: 1, orders: [{ orderHash: a, pendingFills: [] }], notCancelled: [] });
    const again = await client.cancelOrders([a!]);
    expect(again).toEqual({ cancelledCount: 0, orders: [], notCancelled: [{ orderHash: a, reason: 'not_found_or_inactive' }] });

    const ev = await client.cancelEvent(eventId);
    expect(ev.cancelledCount).toBe(1);
    expect(ev.orders.map((o) => o.orderHash)).toEqual([b]);

    const [c, d] = await post(market2, 2);
    const all = await client.cancelAll();
    expect(all.cancelledCount).toBe(2);
    expect(all.orders.map((o) => o.orderHash).sort()).toEqual([c, d].sort());
    expect(await client.orders({ maker: account.address })).toEqual([]);

    // Replace in one step: the old order goes and the new one rests; a refused replace changes nothing.
    const [e] = await post(market2, 1);
    const quote = { marketHash: market2, isMakerBettingOutcomeOne: true, totalBetSize: 12n * USDC, percentageOdds: P60 };
    const replaced = await client.replaceOrders([e!], [quote]);
    expect(replaced.cancel).toEqual({ cancelledCount: 1, orders: [{ orderHash: e, pendingFills: [] }], notCancelled: [] });
    expect(replaced.orders.inserted).toBe(1);
    const [fresh] = replaced.orders.orders;
    expect((await client.orders({ maker: account.address })).map((o) => o.orderHash)).toEqual([fresh!.orderHash]);
    await expect(client.replaceOrders([fresh!.orderHash], [{ ...quote, totalBetSize: 10n ** 15n }])).rejects.toMatchObject({ errorCode: 'INSUFFICIENT_BALANCE', status: 400 });
    expect((await client.orders({ maker: account.address })).map((o) => o.orderHash)).toEqual([fresh!.orderHash]);
    // Its quote would cross the next test's on market2.
    expect((await client.cancelAll()).cancelledCount).toBe(1);
  });

  it('keeps the heartbeat alive while running; its orders are cancelled after the keeper stops', async () => {
    const { client } = await trader();
    const keeper = client.keepHeartbeat({ timeoutSeconds: 1, intervalMs: 250 });
    await keeper.beat();
    expect(Date.parse(keeper.lastExpiresAt!)).toBeGreaterThan(Date.now());
    const [o] = (await client.postOrders([{ marketHash: market2, isMakerBettingOutcomeOne: false, totalBetSize: 10n * USDC, percentageOdds: P60 }])).orders;
    await sleep(1800); // beyond the timeout: only the refreshes keep the order alive
    expect((await client.orders({ orderHashes: [o!.orderHash] }))[0]!.orderStatus).toBe('ACTIVE');
    await keeper.stop(); // as if the process died
    const gone = await waitFor(
      () => client.orders({ orderHashes: [o!.orderHash] }),
      (os) => os[0]!.orderStatus === 'CANCELLED',
      4000,
    );
    expect(gone[0]!.orderStatus).toBe('CANCELLED');

    // Deactivating keeps the orders: the spec's timeoutSeconds 0.
    const k2 = client.keepHeartbeat({ timeoutSeconds: 1 });
    await k2.beat();
    const [p] = (await client.postOrders([{ marketHash: market2, isMakerBettingOutcomeOne: false, totalBetSize: 10n * USDC, percentageOdds: P60 }])).orders;
    await k2.stop({ deactivate: true });
    await sleep(1500);
    expect((await client.orders({ orderHashes: [p!.orderHash] }))[0]!.orderStatus).toBe('ACTIVE');
    await client.cancelAll();
  });

  it('signs with a raw private key too (checked by viem)', async () => {
    const key = generatePrivateKey();
    const client = new OddexClient({ url: ex.url, signer: key });
    await admin.faucet(client.address, 20n * USDC);
    const { orderHash, order } = await client.signOrder({ marketHash: market, isMakerBettingOutcomeOne: true, totalBetSize: 10n * USDC, percentageOdds: P60 });
    expect(await recoverMessageAddress({ message: { raw: orderHash as Hex }, signature: order.signature as Hex })).toBe(client.address);
    expect((await client.postSignedOrders([order])).inserted).toBe(1);
    expect((await client.cancelAll()).cancelledCount).toBe(1);
  });
});

describe('local order book', () => {
  const sameAsRest = async (client: OddexClient, book: { orders(): Order[] }, marketHash: string) => {
    const rest = await client.allOrders({ marketHashes: [marketHash] });
    const key = (os: Order[]) => os.map((o) => `${o.orderHash}:${o.fillAmount}:${o.pendingFillAmount}:${o.orderStatus}`).sort();
    return key(book.orders()).join() === key(rest).join() ? rest : undefined;
  };

  it('equals GET /orders after fills, cancels and a forced disconnect with recovery', async () => {
    const maker = await trader();
    const taker = await trader(100n * USDC);
    const book = await maker.client.watchOrderBook(market);
    const rebuilt: string[] = [];
    book.on('rebuilt', (r) => rebuilt.push(r.reason));

    const hashes = (
      await maker.client.postOrders([
        { marketHash: market, isMakerBettingOutcomeOne: true, totalBetSize: 20n * USDC, percentageOdds: P55 },
        { marketHash: market, isMakerBettingOutcomeOne: false, totalBetSize: 20n * USDC, percentageOdds: 40n * E18 },
      ])
    ).orders.map((o) => o.orderHash);
    await waitFor(async () => book.orders().length, (n) => n >= 2);
    await taker.client.fill({ marketHash: market, isTakerBettingOutcomeOne: false, stakeWei: 9n * USDC, desiredOdds: 45n * E18 });
    await maker.client.cancelOrders([hashes[1]!]);
    expect(await waitFor(() => sameAsRest(maker.client, book, market), Boolean)).toBeTruthy();

    // The server drops the connection; changes made meanwhile are recovered from history.
    expect(ex.ctx.realtime!.disconnect(CloseCode.shutdown, 'shutdown', (conn) => conn.user === maker.account.address)).toBe(1);
    await maker.client.postOrders([{ marketHash: market, isMakerBettingOutcomeOne: false, totalBetSize: 15n * USDC, percentageOdds: 42n * E18 }]);
    await taker.client.fill({ marketHash: market, isTakerBettingOutcomeOne: false, stakeWei: 4n * USDC, desiredOdds: 45n * E18 });
    const rest = await waitFor(() => sameAsRest(maker.client, book, market), Boolean);
    expect(rest).toHaveLength(2);
    expect(rebuilt).toEqual([]);
    expect(book.bestMakerOdds(true)).toBe(P55);
    expect(book.bestMakerOdds(false)).toBe(42n * E18);
    book.stop();
    await maker.client.cancelAll();
  });

  it('tells the caller continuity was lost and rebuilds from a snapshot when history no longer covers the gap', async () => {
    const maker = await trader();
    const other = await trader();
    const book = await maker.client.watchOrderBook(market2);
    const rebuilt: string[] = [];
    book.on('rebuilt', (r) => rebuilt.push(r.reason));

    maker.client.realtime().disconnect();
    const posted = await other.client.postOrders([
      { marketHash: market2, isMakerBettingOutcomeOne: true, totalBetSize: 12n * USDC, percentageOdds: P60 },
    ]);
    await sleep(1700); // beyond the 1.5 s history
    maker.client.realtime().connect();
    await waitFor(async () => rebuilt.length, (n) => n === 1);
    expect(rebuilt).toEqual(['history no longer covers the gap']);
    const rest = await waitFor(() => sameAsRest(maker.client, book, market2), Boolean);
    expect(rest!.map((o) => o.orderHash)).toContain(posted.orders[0]!.orderHash);
    book.stop();
    await other.client.cancelAll();
  });
});
