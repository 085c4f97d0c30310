// The real `centrifuge` npm client against the real server: connect, publications, recovery, tokens, errors.
import { afterEach, describe, expect, it } from 'vitest';
import type { Centrifuge, Subscription, SubscribedContext, PublicationContext } from 'centrifuge';
import { startTestExchange, type TestExchange } from './helpers/server.js';
import { centrifugeClient, createApiKey, fetchToken, freePort, sleep, waitFor, wsUrl } from './helpers/realtime.js';
import { checksumAddress } from '../src/protocol/address.js';
import { CloseCode } from '../src/realtime/protocol.js';
import { emitAny } from './helpers/bus.js';

const MAKER = '0x8ba1f109551bd432803012645ac136ddd64dba72';
const OTHER = '0x1111111111111111111111111111111111111111';
const MARKET = '0x' + 'ab'.repeat(32);
const EVENT = 'evt-42';

const order = (n: number, maker = MAKER) => ({
  orderHash: '0x' + n.toString(16).padStart(64, '0'),
  marketHash: MARKET,
  maker: checksumAddress(maker),
  totalBetSize: String(1_000_000n * BigInt(n)),
  percentageOdds: '50000000000000000000',
  fillAmount: '0',
  orderStatus: 'ACTIVE',
  exchangeEventId: EVENT,
});
const emitOrders = (ex: TestExchange, ...orders: ReturnType<typeof order>[]) =>
  emitAny(ex.ctx.bus, 'orders', { marketHash: MARKET, exchangeEventId: EVENT, orders });

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

async function exchange(overrides: Parameters<typeof startTestExchange>[0] = {}, port?: number) {
  const ex = await startTestExchange(port ? { ...overrides, port } : overrides);
  let current = ex;
  cleanup.push(() => current.destroy());
  return {
    get ex() {
      return current;
    },
    async restart() {
      current = await current.restart();
      return current;
    },
  };
}

function client(ex: TestExchange, apiKey: string, extra: Parameters<typeof centrifugeClient>[1] = {}) {
  let tokenCalls = 0;
  const c = centrifugeClient(wsUrl(ex), {
    getToken: async () => {
      tokenCalls++;
      return fetchToken(ex, apiKey);
    },
    ...extra,
  });
  cleanup.push(() => c.disconnect());
  return { c, tokenCalls: () => tokenCalls };
}

function record(sub: Subscription) {
  const pubs: PublicationContext[] = [];
  const subscribed: SubscribedContext[] = [];
  const unsubscribed: { code: number; reason: string }[] = [];
  sub.on('publication', (p) => pubs.push(p));
  sub.on('subscribed', (s) => subscribed.push(s));
  sub.on('unsubscribed', (u) => unsubscribed.push(u));
  return { pubs, subscribed, unsubscribed };
}

async function connected(c: Centrifuge) {
  c.connect();
  await c.ready(5000);
}


describe('realtime with the centrifuge client', () => {
  it('connects with getToken and receives order-book, event and own active-order publications', async () => {
    const { ex } = await exchange();
    const key = await createApiKey(ex, MAKER);
    const { c, tokenCalls } = client(ex, key);
    await connected(c);
    expect(tokenCalls()).toBe(1);

    const book = record(c.newSubscription(`order_book:market_${MARKET}`));
    const event = record(c.newSubscription(`order_book:event_${EVENT}`));
    const mine = record(c.newSubscription(`active_orders:${checksumAddress(MAKER)}`));
    for (const s of Object.values(c.subscriptions())) s.subscribe();
    await waitFor(() => book.subscribed.length && event.subscribed.length && mine.subscribed.length);
    expect(book.subscribed[0]).toMatchObject({ recoverable: true, positioned: true, wasRecovering: false, recovered: false });
    expect(book.subscribed[0]!.streamPosition).toEqual({ offset: 0, epoch: expect.any(String) });

    const mineOrder = order(1);
    const otherOrder = order(2, OTHER);
    emitOrders(ex, mineOrder, otherOrder);
    await waitFor(() => book.pubs.length && event.pubs.length && mine.pubs.length);
    expect(book.pubs.map((p) => [p.offset, p.data])).toEqual([[1, [mineOrder, otherOrder]]]);
    expect(event.pubs.map((p) => [p.offset, p.data])).toEqual([[1, [mineOrder, otherOrder]]]);
    // active_orders carries only the maker's own orders.
    expect(mine.pubs.map((p) => [p.offset, p.data])).toEqual([[1, [mineOrder]]]);
  });

  it('recovers exactly the publications missed while the server closed the connection with 3001', async () => {
    const { ex } = await exchange();
    const key = await createApiKey(ex, MAKER);
    const { c } = client(ex, key);
    const disconnects: number[] = [];
    c.on('disconnected', (d) => disconnects.push(d.code));
    c.on('connecting', (d) => disconnects.push(d.code));
    await connected(c);
    const sub = c.newSubscription(`order_book:market_${MARKET}`);
    const rec = record(sub);
    sub.subscribe();
    await sub.ready(5000);
    emitOrders(ex, order(1));
    await waitFor(() => rec.pubs.length === 1);

    expect(ex.ctx.realtime!.disconnect(CloseCode.shutdown, 'shutdown')).toBe(1);
    // Published while the client is away.
    emitOrders(ex, order(2));
    emitOrders(ex, order(3));
    emitOrders(ex, order(4));

    await waitFor(() => rec.subscribed.length === 2, 5000, 'resubscribe');
    expect(disconnects).toContain(CloseCode.shutdown);
    expect(rec.subscribed[1]).toMatchObject({ wasRecovering: true, recovered: true });
    await waitFor(() => rec.pubs.length === 4);
    emitOrders(ex, order(5));
    await waitFor(() => rec.pubs.length === 5);
    await sleep(50);
    expect(rec.pubs.map((p) => p.offset)).toEqual([1, 2, 3, 4, 5]);
    expect(rec.pubs.map((p) => (p.data as ReturnType<typeof order>[])[0]!.orderHash)).toEqual(
      [1, 2, 3, 4, 5].map((n) => order(n).orderHash),
    );
  });

  it('reports recovered:false when history no longer covers the gap, then follows from the new position', async () => {
    const { ex } = await exchange();
    const key = await createApiKey(ex, MAKER);
    const { c } = client(ex, key);
    await connected(c);
    // fixtures keep 100 publications per channel.
    const sub = c.newSubscription('fixtures:live_scores');
    const rec = record(sub);
    sub.subscribe();
    await sub.ready(5000);
    emitAny(ex.ctx.bus, 'liveScores', [{ exchangeEventId: EVENT, teamOneScore: 0 }]);
    await waitFor(() => rec.pubs.length === 1);

    ex.ctx.realtime!.disconnect(CloseCode.shutdown, 'shutdown');
    for (let i = 1; i <= 101; i++) emitAny(ex.ctx.bus, 'liveScores', [{ exchangeEventId: EVENT, teamOneScore: i }]);

    await waitFor(() => rec.subscribed.length === 2, 5000, 'resubscribe');
    expect(rec.subscribed[1]).toMatchObject({ wasRecovering: true, recovered: false });
    expect(rec.subscribed[1]!.streamPosition!.offset).toBe(102);
    emitAny(ex.ctx.bus, 'liveScores', [{ exchangeEventId: EVENT, teamOneScore: 999 }]);
    await waitFor(() => rec.pubs.length === 2);
    await sleep(50);
    expect(rec.pubs.map((p) => p.offset)).toEqual([1, 103]);
    expect(rec.pubs[1]!.data).toEqual([{ exchangeEventId: EVENT, teamOneScore: 999 }]);
  });

  it('after a restart (new epoch) the client is told recovered:false; the stored secret keeps tokens valid', async () => {
    const port = await freePort();
    const h = await exchange({}, port);
    const key = await createApiKey(h.ex, MAKER);
    const c = centrifugeClient(wsUrl(h.ex), { getToken: () => fetchToken(h.ex, key) });
    cleanup.push(() => c.disconnect());
    const codes: number[] = [];
    c.on('connecting', (d) => codes.push(d.code));
    await connected(c);
    const sub = c.newSubscription(`order_book:market_${MARKET}`);
    const rec = record(sub);
    sub.subscribe();
    await sub.ready(5000);
    emitOrders(h.ex, order(1));
    await waitFor(() => rec.pubs.length === 1);
    const epoch1 = rec.subscribed[0]!.streamPosition!.epoch;

    const ex2 = await h.restart();
    await waitFor(() => rec.subscribed.length === 2, 8000, 'resubscribe after restart');
    expect(codes).toContain(CloseCode.shutdown);
    expect(rec.subscribed[1]).toMatchObject({ wasRecovering: true, recovered: false });
    expect(rec.subscribed[1]!.streamPosition!.epoch).not.toBe(epoch1);
    emitOrders(ex2, order(2));
    await waitFor(() => rec.pubs.length === 2);
    expect(rec.pubs[1]!.offset).toBe(1);
  });

  it('an expired token gets error 109, the client fetches a new one, and refresh keeps the connection', async () => {
    const { ex } = await exchange({
      realtimeTokenTtlSeconds: 2,
      realtime: { ...(await import('../src/config.js')).defaultConfig().realtime, expiredCloseDelayMs: 300 },
    });
    const key = await createApiKey(ex, MAKER);
    const stale = await fetchToken(ex, key);
    await sleep(2100);
    const errors: number[] = [];
    const { c, tokenCalls } = client(ex, key, { token: stale });
    c.on('error', (e) => errors.push(e.error.code));
    const disconnects: number[] = [];
    c.on('connecting', (d) => disconnects.push(d.code));
    await connected(c);
    expect(errors).toEqual([109]);
    expect(tokenCalls()).toBe(1);
    // Tokens live 2 s: the client refreshes on the same connection instead of being closed (3005).
    await sleep(3500);
    expect(tokenCalls()).toBeGreaterThanOrEqual(3);
    expect(c.state).toBe('connected');
    // Only the initial connect() (code 0): never a close for expiry (3005) or anything else.
    expect(disconnects).toEqual([0]);
  });

  it('refuses another maker’s active_orders (103) and unknown channels (102); accepts own address in any case', async () => {
    const { ex } = await exchange();
    const key = await createApiKey(ex, MAKER);
    const { c } = client(ex, key);
    await connected(c);
    const other = record(c.newSubscription(`active_orders:${OTHER}`));
    const badHash = record(c.newSubscription('order_book:market_0x1234'));
    const unknown = record(c.newSubscription('nope:global'));
    const own = record(c.newSubscription(`active_orders:${MAKER.toLowerCase()}`));
    for (const s of Object.values(c.subscriptions())) s.subscribe();
    await waitFor(() => other.unsubscribed.length && badHash.unsubscribed.length && unknown.unsubscribed.length);
    expect(other.unsubscribed[0]!.code).toBe(103);
    expect(badHash.unsubscribed[0]!.code).toBe(102);
    expect(unknown.unsubscribed[0]!.code).toBe(102);
    await waitFor(() => own.subscribed.length);
    emitOrders(ex, order(7));
    await waitFor(() => own.pubs.length);
    expect(own.pubs[0]!.data).toEqual([order(7)]);
    expect(own.pubs[0]!.channel).toBe(`active_orders:${MAKER.toLowerCase()}`);
  });
});
