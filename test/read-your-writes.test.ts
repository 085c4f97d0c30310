// Read-your-writes with the read models projected after the journal: a client that posts, fills or reports and then
// reads at once sees its write, however far behind the projector runs (here slowed on purpose), and a read that
// cannot be answered within the bound says so (503 READ_MODEL_BEHIND) instead of showing older state.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PrivateKeyAccount } from 'viem';
import { startTestExchange, type TestExchange } from './helpers/server.js';
import { betTestConfig, createFixtureMarket, createSoccerLeague, fundedWallet, waitFor, type TestCatalogue } from './helpers/bets.js';
import { E18, USDC, signedFill, signedOrder } from './helpers/wallets.js';

const SLOW_PROJECTOR_MS = 15;

/** Runs `n` numbered tasks, `width` at a time; each task also gets the number of the client running it. */
async function inParallel(n: number, width: number, task: (i: number, client: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async (_, client) => {
      for (let i = next++; i < n; i = next++) await task(i, client);
    }),
  );
}

const position = (headers: Headers) => Number(headers.get('oddex-position'));

describe('read-your-writes with a slow projector', () => {
  let ex: TestExchange;
  let cat: TestCatalogue;
  let maker: PrivateKeyAccount;
  let taker: PrivateKeyAccount;
  let marketHash: string;

  beforeAll(async () => {
    ex = await startTestExchange({ ...betTestConfig(), demo: false, projectorDelayMs: SLOW_PROJECTOR_MS });
    cat = await createSoccerLeague(ex);
    marketHash = (await createFixtureMarket(ex, cat, { type: 52 })).markets[0]!.marketHash;
    maker = await fundedWallet(ex, 1_000_000n * USDC);
    taker = await fundedWallet(ex, 1_000_000n * USDC);
  }, 60_000);
  afterAll(() => ex?.destroy());

  it('shows every posted order to the GET /orders that follows it (600 sequences, 8 clients at a time)', async () => {
    let misses = 0;
    let lastPosition = 0;
    await inParallel(600, 8, async (i) => {
      const order = await signedOrder(maker, ex.ctx.config, { marketHash, totalBetSize: 10n * USDC, percentageOdds: BigInt(30 + (i % 40)) * E18, isMakerBettingOutcomeOne: true });
      const posted = await ex.post('/orders/new', { orders: [order.body] });
      expect([posted.status, posted.body.data?.statuses?.[order.hash]], JSON.stringify(posted.body)).toEqual([200, 'OK']);
      const acknowledged = position(posted.headers);
      expect(acknowledged).toBeGreaterThan(0);
      lastPosition = Math.max(lastPosition, acknowledged);
      const read = await ex.get(`/orders?maker=${maker.address}&orderHashes=${order.hash}`);
      expect(read.status).toBe(200);
      // The read reports the position it reflects: at least the write's.
      expect(position(read.headers)).toBeGreaterThanOrEqual(acknowledged);
      if (!read.body.data.some((o: { orderHash: string }) => o.orderHash === order.hash)) misses++;
    });
    expect(misses).toBe(0);
    expect(lastPosition).toBeGreaterThanOrEqual(600);
  }, 120_000);

  it('shows every fill to the GET /trades of its taker that follows it (300 sequences)', async () => {
    const order = await signedOrder(maker, ex.ctx.config, { marketHash, totalBetSize: 100_000n * USDC, percentageOdds: 50n * E18, isMakerBettingOutcomeOne: true });
    expect((await ex.post('/orders/new', { orders: [order.body] })).body.data.statuses[order.hash]).toBe('OK');
    let misses = 0;
    // A taker per client: each one's newest trade is its own last fill.
    const takers = [taker, ...(await Promise.all(Array.from({ length: 5 }, () => fundedWallet(ex, 10_000n * USDC))))];
    // (By client, not by task number: two tasks with one number mod 6 can run at once, and the later fill is newest.)
    await inParallel(300, 6, async (_, client) => {
      const taker = takers[client]!;
      const fill = await signedFill(taker, ex.ctx.config, { market: marketHash, stakeWei: 1n * USDC, desiredOdds: 50n * E18, isTakerBettingOutcomeOne: false });
      const filled = await ex.post('/orders/fill/v2', fill);
      expect(filled.status).toBe(200);
      const fillHash: string = filled.body.data.fillHash;
      const read = await ex.get(`/trades?bettor=${taker.address}&pageSize=1`);
      expect(read.status).toBe(200);
      // Newest first: the taker's own fill is the latest trade it has.
      if (read.body.data.trades[0]?.fillHash !== fillHash) misses++;
    });
    expect(misses).toBe(0);
  }, 120_000);

  it('shows a report to the GET /trades/consolidated that follows it (100 sequences)', async () => {
    let misses = 0;
    const bettor = await fundedWallet(ex, 10_000n * USDC);
    await inParallel(100, 4, async () => {
      const market = (await createFixtureMarket(ex, cat, { type: 52 })).markets[0]!.marketHash;
      const order = await signedOrder(maker, ex.ctx.config, { marketHash: market, totalBetSize: 10n * USDC, percentageOdds: 50n * E18, isMakerBettingOutcomeOne: true });
      expect((await ex.post('/orders/new', { orders: [order.body] })).body.data.statuses[order.hash]).toBe('OK');
      const fill = await signedFill(bettor, ex.ctx.config, { market, stakeWei: 2n * USDC, desiredOdds: 50n * E18, isTakerBettingOutcomeOne: false });
      const filled = await ex.post('/orders/fill/v2', fill);
      expect(filled.status, JSON.stringify(filled.body)).toBe(200);
      // Reports settle confirmed trades: wait for the chain's confirmation first.
      await waitFor(
        () => ex.get(`/trades?bettor=${bettor.address}&marketHashes=${market}`),
        (r) => r.body.data.trades.length > 0 && r.body.data.trades.every((t: { tradeStatus: string }) => t.tradeStatus === 'SUCCESS'),
      );
      const reported = await ex.admin('POST', `/admin/markets/${market}/report`, { outcome: 2 });
      expect(reported.status, JSON.stringify(reported.body)).toBe(200);
      const read = await ex.get(`/trades/consolidated?bettor=${bettor.address}&marketHash=${market}&settled=true&page=0&perPage=10&sortAsc=false`);
      expect(read.status, JSON.stringify(read.body)).toBe(200);
      const entries: { settled: boolean; outcome?: number }[] = read.body.data.trades;
      if (entries.length === 0 || !entries.every((e) => e.settled && e.outcome === 2)) misses++;
    });
    expect(misses).toBe(0);
  }, 120_000);

  it('waits for a later position a client names, and refuses one that is not a position', async () => {
    const head = position((await ex.get('/orders?maker=' + maker.address)).headers);
    const far = await ex.get(`/orders?maker=${maker.address}`, { 'oddex-min-position': String(head + 1_000_000) });
    expect(far.status).toBe(503);
    expect(far.body).toMatchObject({ status: 'failure', errorCode: 'READ_MODEL_BEHIND' });
    expect(far.headers.get('retry-after')).toBe('1');
    const bad = await ex.get(`/orders?maker=${maker.address}`, { 'oddex-min-position': 'soon' });
    expect(bad.status).toBe(400);
    expect(bad.body.errorCode).toBe('INVALID_PARAMETER');
    const reached = await ex.get(`/orders?maker=${maker.address}`, { 'oddex-min-position': String(head) });
    expect(reached.status).toBe(200);
  }, 30_000);
});

describe('a read the projector cannot serve in time', () => {
  let ex: TestExchange;
  afterAll(() => ex?.destroy());

  it('answers 503 READ_MODEL_BEHIND with Retry-After, never the state before the write', async () => {
    ex = await startTestExchange({ ...betTestConfig(), demo: false, projectorDelayMs: 1500, readWaitMs: 100 });
    const cat = await createSoccerLeague(ex);
    const marketHash = (await createFixtureMarket(ex, cat, { type: 52 })).markets[0]!.marketHash;
    const maker = await fundedWallet(ex, 1000n * USDC);
    // Wait out the projection of the set-up, then post and read at once.
    await new Promise((r) => setTimeout(r, 1700));
    const order = await signedOrder(maker, ex.ctx.config, { marketHash, totalBetSize: 10n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: true });
    const posted = await ex.post('/orders/new', { orders: [order.body] });
    expect(posted.body.data.statuses[order.hash]).toBe('OK');
    const read = await ex.get(`/orders?maker=${maker.address}`);
    expect(read.status).toBe(503);
    expect(read.body).toMatchObject({ status: 'failure', errorCode: 'READ_MODEL_BEHIND' });
    expect(read.headers.get('retry-after')).toBe('1');
    // Public data and the health checks do not wait on the projector (a stopped one must not take them down): they
    // answer from the newest projection, its position behind the write's.
    const acknowledged = position(posted.headers);
    for (const path of ['/health/ready', '/metadata', '/markets/active', '/sports']) {
      const res = await ex.get(path);
      expect([path, res.status]).toEqual([path, 200]);
      expect(position(res.headers)).toBeLessThan(acknowledged);
    }
    // ...unless the client names the position it needs.
    const named = await ex.get('/markets/active', { 'oddex-min-position': String(acknowledged) });
    expect([named.status, named.body.errorCode]).toEqual([503, 'READ_MODEL_BEHIND']);
    // Once the projector has caught up, the same read shows the order.
    await new Promise((r) => setTimeout(r, 1700));
    const later = await ex.get(`/orders?maker=${maker.address}`);
    expect(later.status).toBe(200);
    expect(later.body.data.map((o: { orderHash: string }) => o.orderHash)).toContain(order.hash);
  }, 30_000);
});
