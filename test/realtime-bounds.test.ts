// A subscriber's queue limit holds against the exchange's own publications: a large book change arrives in parts
// that each fit, and a channel's history (what a recovery replays) stays within the queue too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../src/config.js';
import { startTestExchange, type TestExchange } from './helpers/server.js';
import type { RawClient} from './helpers/realtime.js';
import { createApiKey, fetchToken, rawConnected, waitFor, wsUrl } from './helpers/realtime.js';
import { E18, USDC, newWallet, signedOrder } from './helpers/wallets.js';
import { fund } from './helpers/bets.js';

const QUEUE = 16_384;

describe('realtime publications and history within a subscriber queue', () => {
  let ex: TestExchange;
  let client: RawClient;
  beforeAll(async () => {
    ex = await startTestExchange({
      demo: true,
      bettingDelay: { preGameMs: 0, inPlayDefaultMs: 0, inPlayBySportMs: {}, inPlayByLeagueMs: {} },
      rateLimits: { ...defaultConfig().rateLimits, enabled: false },
      realtime: { ...defaultConfig().realtime, maxBufferedBytes: QUEUE },
    });
  });
  afterAll(async () => {
    client?.close();
    await ex.destroy();
  });

  it('delivers 60 orders posted in one request to a 16 KB subscriber queue in parts, then recovers them from history', async () => {
    const market = (await ex.get('/markets/active?pageSize=100&type=52')).body.data.markets.find(
      (m: { liveEnabled: boolean }) => !m.liveEnabled,
    ).marketHash as string;
    const channel = `order_book:market_${market}`;
    const maker = newWallet();
    await fund(ex, maker, 100_000n * USDC);
    client = await rawConnected(wsUrl(ex), await fetchToken(ex, await createApiKey(ex, maker.address)));
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

    // History keeps at most half a queue, so a recovery reply always fits; it is exact or refused, never partial.
    const history = await client.call({ history: { channel, limit: -1 } });
    const kept = history.history.publications as { offset: number }[];
    expect(Buffer.byteLength(JSON.stringify(kept))).toBeLessThanOrEqual(QUEUE / 2);
    expect(kept.at(-1)!.offset).toBe(pushes.length);
    const fromStart = await client.call({ history: { channel, limit: -1, since: { offset: 0, epoch: start } } });
    expect(fromStart.error).toEqual({ code: 112, message: 'unrecoverable position' });
    expect(client.closeCode).toBeUndefined();
  });
});
