// Order persistence at kick-off over HTTP and realtime: when the operator sets a fixture live, its LAPSE orders are
// cancelled by that command and its PERSIST orders stay (on live-enabled markets), on GET /orders and on the order
// channels (the real `centrifuge` client) alike, and a restart replays to the same state.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import type { PublicationContext, Subscription } from 'centrifuge';
import { startTestExchange, type TestExchange } from './helpers/server.js';
import { betTestConfig, createFixtureMarket, createSoccerLeague, fundedWallet } from './helpers/bets.js';
import { centrifugeClient, createApiKey, fetchToken, waitFor, wsUrl } from './helpers/realtime.js';
import { E18, USDC, signedOrder } from './helpers/wallets.js';
import type { PrivateKeyAccount } from 'viem';

type Rest = Record<string, unknown>;

describe('order persistence at kick-off', () => {
  let ex: TestExchange;
  let maker: PrivateKeyAccount;
  let eventId: string;
  let live: string;
  let closed: string;
  const hashes: Record<'lapse' | 'explicitLapse' | 'persist' | 'closedPersist', string> = { lapse: '', explicitLapse: '', persist: '', closedPersist: '' };

  const post = async (marketHash: string, percentageOdds: bigint, persistence?: 'LAPSE' | 'PERSIST') => {
    const order = await signedOrder(maker, ex.ctx.config, { marketHash, totalBetSize: 20n * USDC, percentageOdds, isMakerBettingOutcomeOne: true });
    const res = await ex.post('/orders/new', { orders: [{ ...order.body, ...(persistence ? { persistence } : {}) }] });
    expect(res.body.data?.statuses?.[order.hash]).toBe('OK');
    return order.hash;
  };
  const rest = async (): Promise<Rest[]> => (await ex.get(`/orders?orderHashes=${Object.values(hashes).join(',')}`)).body.data;
  const byHash = (orders: Rest[]) => Object.fromEntries(Object.entries(hashes).map(([k, h]) => [k, orders.find((o) => o.orderHash === h)]));

  beforeAll(async () => {
    ex = await startTestExchange(betTestConfig());
    const cat = await createSoccerLeague(ex);
    const f = await createFixtureMarket(ex, cat, { type: 52, liveEnabled: true });
    eventId = f.exchangeEventId;
    live = f.markets[0]!.marketHash;
    const res = await ex.admin('POST', '/admin/markets', { exchangeEventId: eventId, type: 1, liveEnabled: false });
    expect(res.status).toBe(200);
    closed = res.body.data[0].marketHash;
    maker = await fundedWallet(ex);
    hashes.lapse = await post(live, 40n * E18);
    hashes.explicitLapse = await post(live, 41n * E18, 'LAPSE');
    hashes.persist = await post(live, 42n * E18, 'PERSIST');
    hashes.closedPersist = await post(closed, 40n * E18, 'PERSIST');
  });
  afterAll(async () => ex.destroy());

  it('shows persistence on GET /orders, LAPSE by default', async () => {
    const o = byHash(await rest());
    expect([o.lapse!.persistence, o.explicitLapse!.persistence, o.persist!.persistence, o.closedPersist!.persistence]).toEqual(['LAPSE', 'LAPSE', 'PERSIST', 'PERSIST']);
    expect((await ex.post('/orders/new', { orders: [{ ...(await signedOrder(maker, ex.ctx.config, { marketHash: live, totalBetSize: 20n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: true })).body, persistence: 'KEEP' }] })).status).toBe(400);
  });

  it('at kick-off cancels LAPSE orders and keeps PERSIST ones, on REST and on the order channels', async () => {
    const key = await createApiKey(ex, maker.address);
    const c = centrifugeClient(wsUrl(ex), { getToken: () => fetchToken(ex, key) });
    c.connect();
    await c.ready(5000);
    try {
      const subs: { sub: Subscription; items: Rest[] }[] = [`active_orders:${maker.address}`, `order_book:market_${live}`].map((ch) => {
        const rec = { sub: c.newSubscription(ch, { positioned: true, recoverable: true }), items: [] as Rest[] };
        rec.sub.on('publication', (p: PublicationContext) => rec.items.push(...(Array.isArray(p.data) ? (p.data as Rest[]) : [p.data as Rest])));
        rec.sub.subscribe();
        return rec;
      });
      await Promise.all(subs.map((s) => s.sub.ready(5000)));

      const kickOff = await ex.admin('POST', `/admin/fixtures/${eventId}/status`, { status: 2 });
      expect(kickOff.status).toBe(200);
      // Cancelled before the call answered.
      const o = byHash(await rest());
      expect([o.lapse, o.explicitLapse, o.persist, o.closedPersist].map((x) => x!.orderStatus)).toEqual(['CANCELLED', 'CANCELLED', 'ACTIVE', 'CANCELLED']);
      // Each cancelled order says why; the one still resting has no reason.
      expect([o.lapse, o.explicitLapse, o.persist, o.closedPersist].map((x) => x!.cancelReason)).toEqual(['kick_off', 'kick_off', undefined, 'kick_off']);

      const [mine, book] = subs;
      const lapsed = [hashes.lapse, hashes.explicitLapse];
      await waitFor(() => lapsed.every((h) => mine!.items.some((i) => i.orderHash === h && i.orderStatus === 'CANCELLED')), 5000, 'lapsed orders on active_orders');
      await waitFor(() => lapsed.every((h) => book!.items.some((i) => i.orderHash === h && i.status === 'INACTIVE')), 5000, 'lapsed orders on the book channel');
      // Both channels carry the reason of the cancel.
      for (const h of lapsed) {
        expect(book!.items.filter((i) => i.orderHash === h).at(-1)).toMatchObject({ orderStatus: 'CANCELLED', cancelReason: 'kick_off' });
        expect(mine!.items.filter((i) => i.orderHash === h).at(-1)).toMatchObject({ orderStatus: 'CANCELLED', cancelReason: 'kick_off' });
      }
      // Each lapsed order as published is the REST object (plus the channel's status and updateTime).
      for (const h of lapsed) {
        const published = mine!.items.filter((i) => i.orderHash === h).at(-1)!;
        const { status, updateTime, ...asRest } = published;
        expect([status, updateTime]).toEqual(['INACTIVE', Date.parse(asRest.updatedAt as string)]);
        expect(asRest).toEqual((await rest()).find((r) => r.orderHash === h));
      }
      // Nothing said the PERSIST order changed.
      expect([...mine!.items, ...book!.items].some((i) => i.orderHash === hashes.persist)).toBe(false);
    } finally {
      c.disconnect();
    }
  });

  it('restarts to the same orders, from a snapshot and from the whole journal', async () => {
    const before = await rest();
    const engineOrders = () => Object.values(hashes).map((h) => ex.ctx.trading.engine.order(h));
    const inEngine = engineOrders();
    ex = await ex.restart();
    expect(await rest()).toEqual(before);
    expect(engineOrders()).toEqual(inEngine);
    // Every snapshot unusable: the journal replays from its first command, kick-off included.
    await ex.close();
    const db = new Database(join(ex.dataDir, 'oddex.sqlite'));
    db.prepare('UPDATE snapshots SET sha256 = ?').run('0'.repeat(64));
    db.close();
    ex = await ex.restart();
    expect(await rest()).toEqual(before);
    expect(engineOrders()).toEqual(inEngine);
    expect(byHash(await rest()).persist).toMatchObject({ orderStatus: 'ACTIVE', persistence: 'PERSIST' });
  });
});
