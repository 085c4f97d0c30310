// A maker and a taker through faucet, post, best odds, fill, confirmation, cancels, heartbeat and settlement,
// against the real server, every amount checked to the wei.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PrivateKeyAccount } from 'viem';
import { startTestExchange, type TestExchange } from './helpers/server.js';
import { E18, USDC, newWallet, randomHex32, signedCancel, signedFill, signedOrder } from './helpers/wallets.js';

// Long enough that the reads right after a fill still see it pending on a loaded machine: at 150 ms they raced the
// confirmation (the test failed once in a run beside other work, and passed on every rerun).
const CONFIRM_MS = 1000;

async function waitFor<T>(probe: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 5000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (done(v) || Date.now() > end) return v;
    await sleep(25);
  }
}

describe('trading over HTTP', () => {
  let ex: TestExchange;
  let markets: { marketHash: string; exchangeEventId: string }[];
  const maker = newWallet();
  const taker = newWallet();

  const balance = async (w: PrivateKeyAccount) => (await ex.get(`/balances/${w.address}`)).body.data;
  const fund = (w: PrivateKeyAccount, amount: bigint) => ex.admin('POST', '/admin/faucet', { address: w.address, amount: amount.toString() });
  const post = async (...orders: Awaited<ReturnType<typeof signedOrder>>[]) => ex.post('/orders/new', { orders: orders.map((o) => o.body) });

  beforeAll(async () => {
    ex = await startTestExchange({
      demo: true,
      chainConfirmationDelayMs: CONFIRM_MS,
      bettingDelay: { preGameMs: 0, inPlayMs: 0, inPlayBySportMs: {}, inPlayByLeagueMs: {} },
      rateLimits: { ...(await import('../src/config.js')).defaultConfig().rateLimits, enabled: false },
    });
    const active = await ex.get('/markets/active?pageSize=100&type=52');
    markets = active.body.data.markets.filter((m: { liveEnabled: boolean }) => !m.liveEnabled);
    expect(markets.length).toBeGreaterThan(4);
    await fund(maker, 1000n * USDC);
    await fund(taker, 1000n * USDC);
  });
  afterAll(async () => ex.destroy());

  it('mints with the faucet and reports balances', async () => {
    const w = newWallet();
    const res = await fund(w, 5n * USDC);
    expect(res.status).toBe(200);
    expect(await balance(w)).toEqual({
      address: w.address,
      baseToken: ex.ctx.config.baseTokenAddress,
      balance: '5000000',
      escrowed: '0',
      openExposure: '0',
      pendingTakerStake: '0',
    });
  });

  it('posts, shows best odds, fills, confirms and pays the winner to the wei', async () => {
    const market = markets[0]!.marketHash;
    const order = await signedOrder(maker, ex.ctx.config, {
      marketHash: market,
      totalBetSize: 100n * USDC,
      percentageOdds: 40n * E18,
      isMakerBettingOutcomeOne: true,
    });
    const posted = await post(order);
    expect(posted.status).toBe(200);
    expect(posted.body).toEqual({
      status: 'success',
      data: { orders: [order.hash], statuses: { [order.hash]: 'OK' }, inserted: 1 },
    });
    expect((await balance(maker)).openExposure).toBe('100000000');

    const best = await ex.get(`/orders/odds/best?marketHashes=${market}&baseToken=${ex.ctx.config.baseTokenAddress}`);
    // The side without orders is left out of the record: no percentageOdds is ever null.
    expect(best.body.data.bestOdds).toEqual([
      {
        marketHash: market,
        baseToken: ex.ctx.config.baseTokenAddress,
        outcomeOne: { percentageOdds: '40000000000000000000', updatedAt: expect.any(Number) },
      },
    ]);

    // 30 USDC on outcome two at taker odds 60% consumes 20 USDC of the maker's space.
    const fill = await signedFill(taker, ex.ctx.config, {
      market,
      isTakerBettingOutcomeOne: false,
      stakeWei: 30n * USDC,
      desiredOdds: 60n * E18,
    });
    const filled = await ex.post('/orders/fill/v2', fill);
    expect(filled.status).toBe(200);
    expect(filled.body.data).toEqual({
      fillHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      isPartialFill: false,
      totalFilled: '30000000',
      averageOdds: '60000000000000000000',
    });
    const fillHash = filled.body.data.fillHash;

    const pendingOrder = (await ex.get(`/orders?orderHashes=${order.hash}`)).body.data[0];
    expect(pendingOrder).toMatchObject({ fillAmount: '0', pendingFillAmount: '20000000', orderStatus: 'ACTIVE' });
    const pendingTrades = (await ex.get(`/trades?bettor=${taker.address}`)).body.data;
    expect(pendingTrades.trades.map((t: { tradeStatus: string }) => t.tradeStatus)).toEqual(['PENDING']);
    // The fill's maker and taker trades, and the fill waiting for the chain, as /metrics counts them.
    const metrics = (await ex.get('/metrics')).body as string;
    expect(metrics).toMatch(/^oddex_trades 2$/m);
    expect(metrics).toMatch(/^oddex_pending_fills 1$/m);
    expect(metrics).toMatch(/^oddex_storage_busy_waits_total 0$/m);

    const trades = await waitFor(
      () => ex.get(`/trades/orders?orderHashes=${order.hash}`),
      (r) => r.body.data.trades.every((t: { tradeStatus: string }) => t.tradeStatus === 'SUCCESS'),
    );
    const byRole = Object.fromEntries(trades.body.data.trades.map((t: { maker: boolean }) => [t.maker ? 'maker' : 'taker', t]));
    expect(byRole.maker).toMatchObject({
      bettor: maker.address,
      stake: '20000000',
      normalizedStake: '20',
      odds: '40000000000000000000',
      orderHash: order.hash,
      fillHash,
      bettingOutcomeOne: true,
      tradeStatus: 'SUCCESS',
      settled: false,
      isQuarterLineLeg: false,
      betTimeValue: 20,
      affiliate: ex.ctx.config.exchangeAffiliate,
    });
    expect(byRole.taker).toMatchObject({ bettor: taker.address, stake: '30000000', odds: '60000000000000000000', orderHash: order.hash });
    expect(await balance(maker)).toMatchObject({ balance: '980000000', escrowed: '20000000', openExposure: '80000000' });
    expect(await balance(taker)).toMatchObject({ balance: '970000000', escrowed: '30000000', pendingTakerStake: '0' });

    const report = await ex.admin('POST', `/admin/markets/${market}/report`, { outcome: 2 });
    expect(report.status).toBe(200);
    expect(await balance(taker)).toMatchObject({ balance: '1020000000', escrowed: '0' });
    expect(await balance(maker)).toMatchObject({ balance: '980000000', escrowed: '0', openExposure: '0' });
    const settled = (await ex.get(`/trades?bettor=${taker.address}&settled=true`)).body.data.trades[0];
    expect(settled).toMatchObject({ settled: true, outcome: 2, settleValue: 50, netReturn: '20', settleDate: expect.any(String) });
    // The in-process ledger pays inside the report: there is no settlement transaction to name.
    expect(settled).not.toHaveProperty('settleTxHash');
    expect((await ex.get(`/orders?orderHashes=${order.hash}`)).body.data[0]).toMatchObject({ orderStatus: 'CANCELLED', cancelReason: 'market_reported' });
    const refill = await ex.post('/orders/fill/v2', await signedFill(taker, ex.ctx.config, { market, isTakerBettingOutcomeOne: false, stakeWei: 2n * USDC, desiredOdds: 60n * E18 }));
    expect(refill.body.errorCode).toBe('MARKET_NOT_TRADEABLE');
  });

  it('settles a void by returning each stake and a loss by paying the maker', async () => {
    const m = newWallet();
    const t = newWallet();
    await fund(m, 200n * USDC);
    await fund(t, 200n * USDC);
    for (const [market, outcome, makerAfter, takerAfter] of [
      [markets[1]!.marketHash, 0, 200n, 200n],
      [markets[2]!.marketHash, 1, 250n, 150n],
    ] as const) {
      const order = await signedOrder(m, ex.ctx.config, { marketHash: market, totalBetSize: 50n * USDC, percentageOdds: 50n * E18, isMakerBettingOutcomeOne: true });
      expect((await post(order)).body.data.inserted).toBe(1);
      const f = await ex.post('/orders/fill/v2', await signedFill(t, ex.ctx.config, { market, isTakerBettingOutcomeOne: false, stakeWei: 50n * USDC, desiredOdds: 50n * E18 }));
      expect(f.body.data.totalFilled).toBe('50000000');
      await waitFor(() => balance(t), (b) => b.escrowed === '50000000');
      await ex.admin('POST', `/admin/markets/${market}/report`, { outcome });
      expect((await balance(m)).balance).toBe((makerAfter * USDC).toString());
      expect((await balance(t)).balance).toBe((takerAfter * USDC).toString());
    }
  });

  it('fails a fill on chain when the maker moved the funds away and frees the space', async () => {
    const m = newWallet();
    const t = newWallet();
    await fund(m, 100n * USDC);
    await fund(t, 100n * USDC);
    const market = markets[3]!.marketHash;
    const order = await signedOrder(m, ex.ctx.config, { marketHash: market, totalBetSize: 20n * USDC, percentageOdds: 50n * E18, isMakerBettingOutcomeOne: false });
    await post(order);
    const f = await ex.post('/orders/fill/v2', await signedFill(t, ex.ctx.config, { market, isTakerBettingOutcomeOne: true, stakeWei: 20n * USDC, desiredOdds: 50n * E18 }));
    expect(f.body.data.totalFilled).toBe('20000000');
    expect((await ex.get(`/orders?orderHashes=${order.hash}`)).body.data[0].orderStatus).toBe('INACTIVE');
    const moved = await ex.admin('POST', '/admin/chain/transfer', { from: m.address, to: t.address, amount: (90n * USDC).toString() });
    expect(moved.status).toBe(200);
    const trades = await waitFor(
      () => ex.get(`/trades/orders?orderHashes=${order.hash}`),
      (r) => r.body.data.trades.every((x: { tradeStatus: string }) => x.tradeStatus === 'FAILED'),
    );
    expect(trades.body.data.trades.map((x: { tradeStatus: string; valid: boolean }) => [x.tradeStatus, x.valid])).toEqual([
      ['FAILED', false],
      ['FAILED', false],
    ]);
    expect(await balance(t)).toMatchObject({ balance: '190000000', escrowed: '0', pendingTakerStake: '0' });
    expect(await balance(m)).toMatchObject({ balance: '10000000', escrowed: '0', openExposure: '0' });
  });

  it('cancels by hash, by event and all, with replay protection and notCancelled reasons', async () => {
    const m = newWallet();
    await fund(m, 500n * USDC);
    const [a, b, c] = await Promise.all(
      [markets[4]!, markets[4]!, markets[5] ?? markets[4]!].map((mk) =>
        signedOrder(m, ex.ctx.config, { marketHash: mk.marketHash, totalBetSize: 10n * USDC, percentageOdds: 30n * E18, isMakerBettingOutcomeOne: true }),
      ),
    );
    expect((await post(a!, b!, c!)).body.data.inserted).toBe(3);
    const unknown = randomHex32();
    const body = await signedCancel(m, ex.ctx.config, 'v2', { orderHashes: [a!.hash, unknown] });
    const res = await ex.post('/orders/cancel/v2', body);
    expect(res.body).toEqual({
      status: 'success',
      data: {
        cancelledCount: 1,
        orders: [{ orderHash: a!.hash, pendingFills: [] }],
        notCancelled: [{ orderHash: unknown, reason: 'not_found_or_inactive' }],
      },
    });
    expect((await ex.get(`/orders?orderHashes=${a!.hash}`)).body.data[0]).toMatchObject({ orderStatus: 'CANCELLED', cancelReason: 'maker_cancel' });
    const replay = await ex.post('/orders/cancel/v2', body);
    expect([replay.status, replay.body.errorCode]).toEqual([409, 'CANCEL_REQUEST_ALREADY_PROCESSED']);
    const stale = await ex.post('/orders/cancel/all', await signedCancel(m, ex.ctx.config, 'all', { timestamp: Math.floor(Date.now() / 1000) - 120 }));
    expect([stale.status, stale.body.errorCode]).toEqual([400, 'STALE_TIMESTAMP']);
    const forged = await signedCancel(newWallet(), ex.ctx.config, 'all');
    const wrongSigner = await ex.post('/orders/cancel/all', { ...forged, maker: m.address });
    expect([wrongSigner.status, wrongSigner.body.errorCode]).toEqual([403, 'MAKER_SIGNATURE_MISMATCH']);

    const byEvent = await ex.post('/orders/cancel/event', await signedCancel(m, ex.ctx.config, 'event', { exchangeEventId: markets[4]!.exchangeEventId }));
    expect(byEvent.body.data.orders.map((o: { orderHash: string }) => o.orderHash)).toContain(b!.hash);
    const all = await ex.post('/orders/cancel/all', await signedCancel(m, ex.ctx.config, 'all'));
    expect(all.status).toBe(200);
    const open = await ex.get(`/orders?maker=${m.address}`);
    expect(open.body.data).toEqual([]);
    expect((await balance(m)).openExposure).toBe('0');
  });

  it('cancels every order of a maker whose heartbeat lapses, and not after deactivation', async () => {
    const m = newWallet();
    await fund(m, 100n * USDC);
    const key = (await ex.admin('POST', '/admin/api-keys', { address: m.address })).body.data.apiKey;
    const order = await signedOrder(m, ex.ctx.config, { marketHash: markets[6]!.marketHash, totalBetSize: 10n * USDC, percentageOdds: 20n * E18, isMakerBettingOutcomeOne: true });
    await post(order);

    const other = await ex.post('/heartbeat', { requestor: newWallet().address, timeoutSeconds: 5 }, { 'x-api-key': key });
    expect([other.status, other.body.errorCode]).toEqual([403, 'API_KEY_ADDRESS_MISMATCH']);
    const tooLong = await ex.post('/heartbeat', { requestor: m.address, timeoutSeconds: 3601 }, { 'x-api-key': key });
    expect([tooLong.status, tooLong.body.errorCode]).toEqual([400, 'INVALID_TIMEOUT']);
    const noKey = await ex.post('/heartbeat', { requestor: m.address, timeoutSeconds: 1 });
    expect(noKey.status).toBe(401);

    const off = await ex.post('/heartbeat', { requestor: m.address, timeoutSeconds: 1 }, { 'x-api-key': key });
    expect(off.body.data).toEqual({ requestor: m.address, timeoutSeconds: 1, expiresAt: expect.stringMatching(/Z$/) });
    const beforeDeactivation = Date.now();
    const deactivated = await ex.post('/heartbeat', { requestor: m.address, timeoutSeconds: 0 }, { 'x-api-key': key });
    // expiresAt of a deactivated heartbeat is the ISO 8601 time of the deactivation, never null.
    expect(deactivated.body.data).toEqual({ requestor: m.address, timeoutSeconds: 0, expiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) });
    const deactivatedAt = Date.parse(deactivated.body.data.expiresAt);
    expect(deactivatedAt >= beforeDeactivation && deactivatedAt <= Date.now()).toBe(true);
    await sleep(1400);
    expect((await ex.get(`/orders?orderHashes=${order.hash}`)).body.data[0].orderStatus).toBe('ACTIVE');

    const on = await ex.post('/heartbeat', { requestor: m.address, timeoutSeconds: 1 }, { 'x-api-key': key });
    const expiresAt = Date.parse(on.body.data.expiresAt);
    const cancelled = await waitFor(
      () => ex.get(`/orders?orderHashes=${order.hash}`),
      (r) => r.body.data[0].orderStatus === 'CANCELLED',
      4000,
    );
    expect(cancelled.body.data[0]).toMatchObject({ orderStatus: 'CANCELLED', cancelReason: 'heartbeat_expired' });
    expect(Date.parse(cancelled.body.data[0].updatedAt) - expiresAt).toBeLessThan(1000);
  });

  it('rejects bad orders and fills with their error codes and changes nothing', async () => {
    const market = markets[7]!.marketHash;
    const good = await signedOrder(maker, ex.ctx.config, { marketHash: market, totalBetSize: 10n * USDC, percentageOdds: 50n * E18, isMakerBettingOutcomeOne: true });
    const cases: [string, unknown, number, string][] = [
      ['off ladder', { ...good.body, percentageOdds: '50000000000000000001' }, 400, 'INVALID_ODDS'],
      ['odds 100%', { ...good.body, percentageOdds: '100000000000000000000' }, 400, 'INVALID_ODDS'],
      ['zero size', { ...good.body, totalBetSize: '0' }, 400, 'INVALID_AMOUNT'],
      ['negative size', { ...good.body, totalBetSize: '-5' }, 400, 'INVALID_PARAMETER'],
      ['fractional size', { ...good.body, totalBetSize: '10.5' }, 400, 'INVALID_PARAMETER'],
      ['numeric size', { ...good.body, totalBetSize: 10000000 }, 400, 'INVALID_PARAMETER'],
      ['below minimum', (await signedOrder(maker, ex.ctx.config, { marketHash: market, totalBetSize: 9n * USDC, percentageOdds: 50n * E18, isMakerBettingOutcomeOne: true })).body, 400, 'MAKER_AMOUNT_TOO_LOW'],
      ['tampered size', { ...good.body, totalBetSize: '20000000' }, 403, 'MAKER_SIGNATURE_MISMATCH'],
      ['other maker', { ...good.body, maker: taker.address }, 403, 'MAKER_SIGNATURE_MISMATCH'],
      ['expired', (await signedOrder(maker, ex.ctx.config, { marketHash: market, totalBetSize: 10n * USDC, percentageOdds: 50n * E18, isMakerBettingOutcomeOne: true, expiry: 1000 })).body, 400, 'ORDER_EXPIRED'],
    ];
    for (const [name, body, status, code] of cases) {
      const res = await ex.post('/orders/new', { orders: [body] });
      expect([name, res.status, res.body.errorCode]).toEqual([name, status, code]);
    }
    const unknownMarket = await signedOrder(maker, ex.ctx.config, { marketHash: randomHex32(), totalBetSize: 10n * USDC, percentageOdds: 50n * E18, isMakerBettingOutcomeOne: true });
    const r = await post(unknownMarket);
    expect(r.body.data).toEqual({ orders: [unknownMarket.hash], statuses: { [unknownMarket.hash]: 'INVALID_MARKET' }, inserted: 0 });
    expect((await ex.get(`/orders?marketHashes=${market}`)).body.data).toEqual([]);
    const poor = newWallet();
    const poorOrder = await signedOrder(poor, ex.ctx.config, { marketHash: market, totalBetSize: 10n * USDC, percentageOdds: 50n * E18, isMakerBettingOutcomeOne: true });
    expect((await post(poorOrder)).body.data.statuses[poorOrder.hash]).toBe('INSUFFICIENT_BALANCE');
    expect((await post(good)).body.data.inserted).toBe(1);
    expect((await post(good)).body.data.statuses[good.hash]).toBe('ORDERS_ALREADY_EXIST');
    // Twice in one request: created once, and its status says so.
    const twice = await signedOrder(maker, ex.ctx.config, { marketHash: market, totalBetSize: 10n * USDC, percentageOdds: 50n * E18, isMakerBettingOutcomeOne: true });
    expect((await post(twice, twice)).body.data).toEqual({ orders: [twice.hash, twice.hash], statuses: { [twice.hash]: 'OK' }, inserted: 1 });

    const fill = await signedFill(taker, ex.ctx.config, { market, isTakerBettingOutcomeOne: false, stakeWei: 2n * USDC, desiredOdds: 50n * E18 });
    const fillCases: [string, unknown, number, string][] = [
      ['tampered stake', { ...fill, stakeWei: '3000000' }, 403, 'TAKER_SIGNATURE_MISMATCH'],
      ['other taker', { ...fill, taker: maker.address }, 403, 'TAKER_SIGNATURE_MISMATCH'],
      ['below taker minimum', await signedFill(taker, ex.ctx.config, { market, isTakerBettingOutcomeOne: false, stakeWei: 999_999n, desiredOdds: 50n * E18 }), 400, 'TAKER_AMOUNT_TOO_LOW'],
      ['slippage over 100', { ...fill, oddsSlippage: 101 }, 400, 'INVALID_ODDS_SLIPPAGE'],
      ['odds 0', { ...fill, desiredOdds: '0' }, 400, 'INVALID_ODDS'],
      ['no space', await signedFill(taker, ex.ctx.config, { market, isTakerBettingOutcomeOne: true, stakeWei: 2n * USDC, desiredOdds: 50n * E18 }), 400, 'INSUFFICIENT_SPACE'],
      ['worse than slippage', await signedFill(taker, ex.ctx.config, { market, isTakerBettingOutcomeOne: false, stakeWei: 2n * USDC, desiredOdds: 60n * E18, oddsSlippage: 5 }), 400, 'INVALID_ODDS_SLIPPAGE'],
      ['unknown market', await signedFill(taker, ex.ctx.config, { market: randomHex32(), isTakerBettingOutcomeOne: true, stakeWei: 2n * USDC, desiredOdds: 50n * E18 }), 404, 'MARKET_NOT_FOUND'],
    ];
    for (const [name, body, status, code] of fillCases) {
      const res = await ex.post('/orders/fill/v2', body);
      expect([name, res.status, res.body.errorCode]).toEqual([name, status, code]);
    }
    expect((await ex.get(`/orders?orderHashes=${good.hash}`)).body.data[0]).toMatchObject({ fillAmount: '0', pendingFillAmount: '0' });
    expect((await ex.post('/orders/fill/v2', fill)).status).toBe(200);
    const again = await ex.post('/orders/fill/v2', fill);
    expect([again.status, again.body.errorCode]).toEqual([409, 'FILL_ALREADY_SUBMITTED']);
  });

  it('slippage bounds the stake-weighted average taker odds of the fill, not each order it matches', async () => {
    const market = markets[9]!.marketHash;
    const m = newWallet();
    await fund(m, 100n * USDC);
    // Taker odds 60% for 18 USDC of taker stake, then 55% for up to 24.44 USDC.
    const better = await signedOrder(m, ex.ctx.config, { marketHash: market, totalBetSize: 12n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: true });
    const worse = await signedOrder(m, ex.ctx.config, { marketHash: market, totalBetSize: 20n * USDC, percentageOdds: 45n * E18, isMakerBettingOutcomeOne: true });
    expect((await post(better, worse)).body.data.inserted).toBe(2);
    // desiredOdds 60% less 3% is 58.2%: 18 USDC at 60% make up for 10.125 USDC at 55% and no more.
    const res = await ex.post('/orders/fill/v2', await signedFill(taker, ex.ctx.config, { market, isTakerBettingOutcomeOne: false, stakeWei: 50n * USDC, desiredOdds: 60n * E18, oddsSlippage: 3 }));
    expect([res.status, res.body.data]).toEqual([200, { fillHash: expect.any(String), isPartialFill: true, totalFilled: '28125000', averageOdds: '58200000000000000000' }]);
    const orders = (await ex.get(`/orders?orderHashes=${better.hash},${worse.hash}`)).body.data as { orderHash: string; fillAmount: string; pendingFillAmount: string }[];
    const filled = (hash: string) => orders.find((o) => o.orderHash === hash)!;
    // Maker stakes: 18 USDC × 40/60 and 10.125 USDC × 45/55 (rounded down).
    expect(BigInt(filled(better.hash).fillAmount) + BigInt(filled(better.hash).pendingFillAmount)).toBe(12_000_000n);
    expect(BigInt(filled(worse.hash).fillAmount) + BigInt(filled(worse.hash).pendingFillAmount)).toBe(8_284_090n);
  });

  it('keeps acknowledged orders, fills and balances across a restart', async () => {
    const m = newWallet();
    await fund(m, 100n * USDC);
    const order = await signedOrder(m, ex.ctx.config, { marketHash: markets[8]!.marketHash, totalBetSize: 10n * USDC, percentageOdds: 25n * E18, isMakerBettingOutcomeOne: false });
    await post(order);
    const before = (await ex.get(`/orders?orderHashes=${order.hash}`)).body.data;
    const balancesBefore = await balance(m);
    ex = await ex.restart();
    expect((await ex.get(`/orders?orderHashes=${order.hash}`)).body.data).toEqual(before);
    expect(await balance(m)).toEqual(balancesBefore);
    expect(ex.ctx.trading.engine.ledger.total()).toBe(ex.ctx.trading.engine.ledger.minted);
  });
});
