// A subscriber's queue limit holds against the exchange's own publications: a large book change arrives in parts
// that each fit, and a channel's history (what a recovery replays), which may hold more than a queue, is delivered
// whole to a client recovering it. History is also bounded in time: what outlived its retention leaves memory
// although nobody reads the channel again.
import { request } from 'node:http';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../src/config.js';
import { startTestExchange, type TestExchange } from './helpers/server.js';
import type { RawClient} from './helpers/realtime.js';
import { createApiKey, fetchToken, rawConnected, waitFor, wsUrl } from './helpers/realtime.js';
import { E18, USDC, newWallet, signedOrder } from './helpers/wallets.js';
import { fund } from './helpers/bets.js';

const QUEUE = 16_384;

/** A pre-game moneyline market's book channel, and a maker funded with `amount` holding a realtime token. */
async function fundedMakerOnABook(ex: TestExchange, amount: bigint) {
  const market = (await ex.get('/markets/active?pageSize=100&type=52')).body.data.markets.find(
    (m: { liveEnabled: boolean }) => !m.liveEnabled,
  ).marketHash as string;
  const maker = newWallet();
  await fund(ex, maker, amount);
  const token = await fetchToken(ex, await createApiKey(ex, maker.address));
  return { market, channel: `order_book:market_${market}`, maker, token };
}

describe('realtime publications and history within a subscriber queue', () => {
  let ex: TestExchange;
  let client: RawClient;
  beforeAll(async () => {
    ex = await startTestExchange({
      demo: true,
      bettingDelay: { preGameMs: 0, inPlayMs: 0, inPlayBySportMs: {}, inPlayByLeagueMs: {} },
      rateLimits: { ...defaultConfig().rateLimits, enabled: false },
      realtime: { ...defaultConfig().realtime, maxBufferedBytes: QUEUE },
    });
  });
  afterAll(async () => {
    client?.close();
    await ex.destroy();
  });

  it('delivers 60 orders posted in one request to a 16 KB subscriber queue in parts, then recovers them from history', async () => {
    const { market, channel, maker, token } = await fundedMakerOnABook(ex, 100_000n * USDC);
    client = await rawConnected(wsUrl(ex), token);
    const sub = await client.call({ subscribe: { channel } });
    expect(sub.subscribe).toMatchObject({ recoverable: true, offset: 0 });
    const start = sub.subscribe.epoch as string;

    const orders = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        signedOrder(maker, ex.ctx.config, {
          marketHash: market,
          totalBetSize: 20n * USDC,
          percentageOdds: BigInt(30 + (i % 20)) * E18,
          isMakerBettingOutcomeOne: true,
        }),
      ),
    );
    const posted = await ex.post('/orders/new', { orders: orders.map((o) => o.body) });
    expect(Object.values(posted.body.data.statuses)).toEqual(orders.map(() => 'OK'));
    const wanted = orders.map((o) => o.hash).sort();
    const received = () => client.pushes(channel).flatMap((p) => (p.push.pub.data as { orderHash: string }[]).map((o) => o.orderHash));
    await waitFor(() => (received().length >= 60 ? true : undefined), 5000, 'all orders');
    expect(received().sort()).toEqual(wanted);
    const pushes = client.pushes(channel);
    expect(pushes.length).toBeGreaterThan(4);
    for (const p of pushes) expect(Buffer.byteLength(JSON.stringify(p))).toBeLessThanOrEqual(QUEUE / 4);
    expect(client.closeCode).toBeUndefined();

    // History keeps up to four queues' worth: here every publication, more than one queue holds. A reply carrying it
    // (a history call, a recovery) passes the queue limit once: the client asked for it and is not cut off.
    const history = await client.call({ history: { channel, limit: -1 } });
    const kept = history.history.publications as { offset: number }[];
    const keptBytes = Buffer.byteLength(JSON.stringify(kept));
    expect(keptBytes).toBeGreaterThan(QUEUE);
    expect(keptBytes).toBeLessThanOrEqual(4 * QUEUE);
    expect(kept.map((p) => p.offset)).toEqual(pushes.map((_, i) => i + 1));
    const late = await rawConnected(wsUrl(ex), token);
    try {
      const recovery = await late.call({ subscribe: { channel, recover: true, offset: 0, epoch: start } });
      expect(recovery.subscribe).toMatchObject({ recovered: true, epoch: start });
      expect(received().sort()).toEqual(wanted);
      expect((recovery.subscribe.publications as { data: { orderHash: string }[] }[]).flatMap((p) => p.data.map((o) => o.orderHash)).sort()).toEqual(wanted);
      // Still connected, and answering as before.
      expect(late.closeCode).toBeUndefined();
      expect((await late.call({ history: { channel, limit: 1 } })).history.publications).toHaveLength(1);
    } finally {
      late.close();
    }
    expect(client.closeCode).toBeUndefined();
  });
});

describe('realtime history and streams leave memory once retention ends', () => {
  let ex: TestExchange;
  let client: RawClient | undefined;
  beforeAll(async () => {
    ex = await startTestExchange({
      demo: true,
      bettingDelay: { preGameMs: 0, inPlayMs: 0, inPlayBySportMs: {}, inPlayByLeagueMs: {} },
      rateLimits: { ...defaultConfig().rateLimits, enabled: false },
      realtime: { ...defaultConfig().realtime, historyTtlMs: 1000, idleStreamTtlMs: 1500 },
    });
  });
  afterAll(async () => {
    client?.close();
    await ex.destroy();
  });

  const gauges = async () => {
    const text = (await ex.get('/metrics')).body as string;
    const gauge = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1]);
    return { streams: gauge('oddex_realtime_streams'), bytes: gauge('oddex_realtime_history_bytes') };
  };

  it('releases a book channel history nobody reads, then its stream; an old position then restarts, never recovers', async () => {
    const { market, channel, maker, token } = await fundedMakerOnABook(ex, 1000n * USDC);
    client = await rawConnected(wsUrl(ex), token);
    const sub = await client.call({ subscribe: { channel } });
    const order = await signedOrder(maker, ex.ctx.config, { marketHash: market, totalBetSize: 20n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: true });
    expect((await ex.post('/orders/new', { orders: [order.body] })).status).toBe(200);
    await waitFor(() => (client!.pushes(channel).length > 0 ? true : undefined), 5000, 'the order on the book channel');
    const held = await gauges();
    expect(held.streams).toBe(1);
    expect(held.bytes).toBeGreaterThan(Buffer.byteLength(order.hash));

    // Subscribed: the history goes after 1 s, the stream stays.
    await waitFor(async () => ((await gauges()).bytes === 0 ? true : undefined), 5000, 'history released');
    expect(await gauges()).toEqual({ streams: 1, bytes: 0 });
    client.close();
    client = undefined;
    // Nobody subscribed and nothing published for 1.5 s: the stream goes too.
    await waitFor(async () => ((await gauges()).streams === 0 ? true : undefined), 6000, 'stream dropped');

    client = await rawConnected(wsUrl(ex), token);
    const again = await client.call({ subscribe: { channel, recover: true, offset: 1, epoch: sub.subscribe.epoch } });
    expect(again.subscribe).toMatchObject({ recoverable: true, was_recovering: true, recovered: false, offset: 0 });
    expect(again.subscribe.epoch).not.toBe(sub.subscribe.epoch);
  });
});

describe('realtime connections per remote address', () => {
  let ex: TestExchange;
  beforeAll(async () => {
    ex = await startTestExchange({ demo: false, realtime: { ...defaultConfig().realtime, maxConnectionsPerIp: 3 } });
  });
  afterAll(async () => {
    await ex.destroy();
  });

  /** The handshake's answer: 101 once upgraded (the socket kept open until `close`), else the refusal's status. */
  const handshake = (): Promise<{ status: number; retryAfter?: string; close: () => void }> =>
    new Promise((resolve, reject) => {
      const { hostname, port } = new URL(ex.url);
      const req = request({ hostname, port, path: '/connection/websocket', headers: { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': randomBytes(16).toString('base64') } });
      req.on('upgrade', (res, socket) => resolve({ status: res.statusCode!, close: () => socket.destroy() }));
      req.on('response', (res) => {
        res.resume();
        resolve({ status: res.statusCode!, retryAfter: res.headers['retry-after'], close: () => {} });
      });
      req.on('error', reject);
      req.end();
    });

  it('refuses an upgrade past the limit with 429 and Retry-After, and takes one again once a connection closed', async () => {
    const open = [await handshake(), await handshake(), await handshake()];
    expect(open.map((h) => h.status)).toEqual([101, 101, 101]);
    const refused = await handshake();
    expect([refused.status, refused.retryAfter]).toEqual([429, '10']);
    open[0]!.close();
    await waitFor(async () => {
      const again = await handshake();
      if (again.status !== 101) return undefined;
      open.push(again);
      return true;
    }, 5000, 'an upgrade taken after a close');
    for (const h of open) h.close();
  });
});
