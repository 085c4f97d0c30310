// POST /orders/replace over HTTP and realtime: a maker's signed cancel and new signed orders applied by one command,
// all or nothing. A replace whose new orders or cancel are refused changes nothing (orders, exposure, the cancel's
// salt); a successful one is published on the order channels in one publication; a restart replays to the same state.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import type { PublicationContext, Subscription } from 'centrifuge';
import type { PrivateKeyAccount } from 'viem';
import { startTestExchange, type TestExchange } from './helpers/server.js';
import { balanceOf, betTestConfig, createFixtureMarket, createSoccerLeague, fundedWallet, postOrder } from './helpers/bets.js';
import { centrifugeClient, createApiKey, fetchToken, waitFor, wsUrl } from './helpers/realtime.js';
import { E18, USDC, newWallet, signedCancel, signedOrder } from './helpers/wallets.js';

type Rest = Record<string, unknown>;

describe('POST /orders/replace', () => {
  let ex: TestExchange;
  let maker: PrivateKeyAccount;
  let market: string;
  /** Every order hash the tests posted or tried to post. */
  const seen: string[] = [];

  const order = async (totalBetSize: bigint, percent: bigint, isMakerBettingOutcomeOne = true, signer = maker) => {
    const o = await signedOrder(signer, ex.ctx.config, { marketHash: market, totalBetSize: totalBetSize * USDC, percentageOdds: percent * E18, isMakerBettingOutcomeOne });
    seen.push(o.hash);
    return { hash: o.hash, body: { ...o.body, maker: maker.address } };
  };
  const cancel = (orderHashes: string[], fields: { timestamp?: number } = {}, signer = maker) =>
    signedCancel(signer, ex.ctx.config, 'v2', { orderHashes, ...fields }).then((c) => ({ ...c, maker: maker.address }));
  const replace = (body: unknown) => ex.post('/orders/replace', body);
  const ordersByHash = async (): Promise<Rest[]> => (await ex.get(`/orders?orderHashes=${seen.join(',')}`)).body.data;
  const open = async (): Promise<string[]> => ((await ex.get(`/orders?maker=${maker.address}`)).body.data as Rest[]).map((o) => o.orderHash as string);
  /** What a refused replace must leave as it was. */
  const state = async () => ({ orders: await ordersByHash(), open: await open(), balance: await balanceOf(ex, maker) });

  beforeAll(async () => {
    ex = await startTestExchange(betTestConfig());
    const cat = await createSoccerLeague(ex);
    market = (await createFixtureMarket(ex, cat, { type: 52 })).markets[0]!.marketHash;
    maker = await fundedWallet(ex, 100n * USDC);
  });
  afterAll(async () => ex.destroy());

  let a: string;
  let b: string;
  let c: string;

  it('cancels and posts in one step, answered and published together', async () => {
    a = await postOrder(ex, maker, { marketHash: market, totalBetSize: 60n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: true });
    b = await postOrder(ex, maker, { marketHash: market, totalBetSize: 30n * USDC, percentageOdds: 42n * E18, isMakerBettingOutcomeOne: true });
    seen.push(a, b);
    expect((await balanceOf(ex, maker)).openExposure).toBe((90n * USDC).toString());

    const key = await createApiKey(ex, maker.address);
    const client = centrifugeClient(wsUrl(ex), { getToken: () => fetchToken(ex, key) });
    client.connect();
    await client.ready(5000);
    try {
      const subs: { sub: Subscription; publications: Rest[][] }[] = [`active_orders:${maker.address}`, `order_book:market_${market}`].map((ch) => {
        const rec = { sub: client.newSubscription(ch), publications: [] as Rest[][] };
        rec.sub.on('publication', (p: PublicationContext) => rec.publications.push(Array.isArray(p.data) ? (p.data as Rest[]) : [p.data as Rest]));
        rec.sub.subscribe();
        return rec;
      });
      await Promise.all(subs.map((s) => s.sub.ready(5000)));

      // 10 USDC are free: the new 60 USDC order fits only with the 60 the cancel frees.
      const next = await order(60n, 41n);
      c = next.hash;
      const res = await replace({ cancel: await cancel([a]), orders: [next.body] });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        status: 'success',
        data: {
          cancel: { cancelledCount: 1, orders: [{ orderHash: a, pendingFills: [] }], notCancelled: [] },
          orders: { orders: [c], statuses: { [c]: 'OK' }, inserted: 1 },
        },
      });
      const byHash = Object.fromEntries((await ordersByHash()).map((o) => [o.orderHash, o]));
      expect(byHash[a]).toMatchObject({ orderStatus: 'CANCELLED', cancelReason: 'maker_cancel' });
      expect(byHash[c]).toMatchObject({ orderStatus: 'ACTIVE', totalBetSize: (60n * USDC).toString(), persistence: 'LAPSE' });
      expect(byHash[c]).not.toHaveProperty('cancelReason');
      expect((await open()).sort()).toEqual([b, c].sort());
      expect((await balanceOf(ex, maker)).openExposure).toBe((90n * USDC).toString());

      // One publication per channel carries both: no moment with the old quote gone and the new one missing.
      for (const s of subs) {
        const both = await waitFor(() => s.publications.find((p) => p.some((o) => o.orderHash === a) && p.some((o) => o.orderHash === c)), 5000, 'one publication of both');
        expect(both.find((o) => o.orderHash === a)).toMatchObject({ status: 'INACTIVE', orderStatus: 'CANCELLED', cancelReason: 'maker_cancel' });
        expect(both.find((o) => o.orderHash === c)).toMatchObject({ status: 'ACTIVE', orderStatus: 'ACTIVE' });
        expect(s.publications.filter((p) => p.some((o) => o.orderHash === a || o.orderHash === c))).toHaveLength(1);
      }
    } finally {
      client.disconnect();
    }
  });

  it('refuses the whole replace when a new order would not post, and leaves the old orders on the book', async () => {
    const before = await state();
    const cancelB = await cancel([b]);
    // 10 free + 30 from the cancel cannot cover 50.
    const tooBig = await order(50n, 43n);
    const poor = await replace({ cancel: cancelB, orders: [tooBig.body] });
    expect([poor.status, poor.body.status, poor.body.errorCode]).toEqual([400, 'failure', 'INSUFFICIENT_BALANCE']);
    // Two orders that fit one by one but not together.
    const twenty = [await order(20n, 43n), await order(21n, 44n)];
    const pair = await replace({ cancel: await cancel([b]), orders: twenty.map((o) => o.body) });
    expect([pair.status, pair.body.errorCode]).toEqual([400, 'INSUFFICIENT_BALANCE']);
    // Signed by another wallet in the maker's name.
    const forged = await order(10n, 43n, true, newWallet());
    const badSig = await replace({ cancel: await cancel([b]), orders: [forged.body] });
    expect([badSig.status, badSig.body.errorCode]).toEqual([403, 'MAKER_SIGNATURE_MISMATCH']);
    // Crossing a resting order the cancel does not remove (41% + 60% > 100%).
    const crossing = await order(10n, 60n, false);
    const crosses = await replace({ cancel: await cancel([b]), orders: [crossing.body] });
    expect([crosses.status, crosses.body.errorCode]).toEqual([400, 'ORDER_WOULD_CROSS']);
    // Two new orders crossing each other.
    const selfCross = [await order(10n, 45n), await order(10n, 57n, false)];
    const crossed = await replace({ cancel: await cancel([b]), orders: selfCross.map((o) => o.body) });
    expect([crossed.status, crossed.body.errorCode]).toEqual([400, 'ORDER_WOULD_CROSS']);
    // An order posted before, and one order twice.
    const again = await replace({ cancel: await cancel([b]), orders: [(await order(10n, 43n)).body, { ...(await ordersByHash()).find((o) => o.orderHash === c) }].map(stripView) });
    expect([again.status, again.body.errorCode]).toEqual([409, 'ORDERS_ALREADY_EXIST']);
    const twice = await order(10n, 43n);
    const doubled = await replace({ cancel: await cancel([b]), orders: [twice.body, twice.body] });
    expect([doubled.status, doubled.body.errorCode]).toEqual([409, 'ORDERS_ALREADY_EXIST']);

    expect(await state()).toEqual(before);
    // The refused replace did not use the cancel's salt: the same signed cancel goes through with orders that fit.
    const fits = await order(40n, 43n);
    const done = await replace({ cancel: cancelB, orders: [fits.body] });
    expect(done.status).toBe(200);
    expect(done.body.data.cancel.cancelledCount).toBe(1);
    expect((await open()).sort()).toEqual([c, fits.hash].sort());
    b = fits.hash;
  });

  it('removes the cancelled orders before checking the new ones for crossing', async () => {
    // 43% + 58% crosses b, but b is the order being replaced; 41% + 58% = 99% rests beside c.
    const opposite = await order(10n, 58n, false);
    const res = await replace({ cancel: await cancel([b]), orders: [opposite.body] });
    expect(res.status).toBe(200);
    expect((await open()).sort()).toEqual([c, opposite.hash].sort());
    b = opposite.hash;
  });

  it('refuses a bad cancel and changes nothing', async () => {
    const before = await state();
    const fresh = await order(10n, 30n);
    const forged = await replace({ cancel: await cancel([c], {}, newWallet()), orders: [fresh.body] });
    expect([forged.status, forged.body.errorCode]).toEqual([403, 'MAKER_SIGNATURE_MISMATCH']);
    const stale = await replace({ cancel: await cancel([c], { timestamp: Math.floor(Date.now() / 1000) - 120 }), orders: [fresh.body] });
    expect([stale.status, stale.body.errorCode]).toEqual([400, 'STALE_TIMESTAMP']);
    // The cancel's maker must be the new orders' maker.
    const other = await fundedWallet(ex, 10n * USDC);
    const theirs = await signedOrder(other, ex.ctx.config, { marketHash: market, totalBetSize: 10n * USDC, percentageOdds: 30n * E18, isMakerBettingOutcomeOne: true });
    const mixed = await replace({ cancel: await cancel([c]), orders: [theirs.body] });
    expect([mixed.status, mixed.body.errorCode]).toEqual([403, 'MAKER_SIGNATURE_MISMATCH']);
    // A cancel salt already used.
    const used = await cancel([c]);
    expect((await ex.post('/orders/cancel/v2', { ...used, orderHashes: used.orderHashes })).status).toBe(200);
    const after = await state();
    const replayed = await replace({ cancel: used, orders: [fresh.body] });
    expect([replayed.status, replayed.body.errorCode]).toEqual([409, 'CANCEL_REQUEST_ALREADY_PROCESSED']);
    expect(await state()).toEqual(after);
    // Malformed: no orders, an unknown field.
    expect((await replace({ cancel: await cancel([b]), orders: [] })).body.errorCode).toBe('INVALID_PARAMETER');
    expect((await replace({ cancel: await cancel([b]), orders: [fresh.body], extra: 1 })).body.errorCode).toBe('INVALID_PARAMETER');
    expect(after.open).toEqual(before.open.filter((h) => h !== c));
    c = '';
  });

  it('restarts to the same orders and balances, from a snapshot and from the whole journal', async () => {
    const before = await state();
    ex = await ex.restart();
    expect(await state()).toEqual(before);
    await ex.close();
    const db = new Database(join(ex.dataDir, 'oddex.sqlite'));
    db.prepare('UPDATE snapshots SET sha256 = ?').run('0'.repeat(64));
    db.close();
    ex = await ex.restart();
    expect(await state()).toEqual(before);
  });
});

/** An order as GET /orders shows it, back to the signed fields POST takes. */
function stripView(o: Rest): Rest {
  const { orderHash, fillAmount, pendingFillAmount, exchangeEventId, orderStatus, createdAt, updatedAt, cancelReason, persistence, ...signed } = o;
  void [orderHash, fillAmount, pendingFillAmount, exchangeEventId, orderStatus, createdAt, updatedAt, cancelReason, persistence];
  return signed;
}
