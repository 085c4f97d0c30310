// One exchange process and two realtime node processes on one Redis, driven with the official `centrifuge` client.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { PublicationContext, SubscribedContext, Subscription } from 'centrifuge';
import { startTestExchange, type TestExchange } from './helpers/server.js';
import { centrifugeClient, createApiKey, fetchToken, sleep, waitFor, wsUrl } from './helpers/realtime.js';
import { spawnExchange, type ChildExchange } from './helpers/process.js';
import { startRedis, type TestRedis } from './helpers/redis.js';
import { checksumAddress } from '../src/protocol/address.js';
import { emitAny } from './helpers/bus.js';
import { betTestConfig, createFixtureMarket, createSoccerLeague, fundedWallet, postOrder } from './helpers/bets.js';
import { USDC } from './helpers/wallets.js';

const MAKER = '0x8ba1f109551bd432803012645ac136ddd64dba72';
const MARKET = '0x' + 'cd'.repeat(32);
const EVENT = 'evt-nodes';
const SECRET = 'a-realtime-token-secret-shared-by-every-node';
const BOOK = `order_book:market_${MARKET}`;

const order = (n: number) => ({
  orderHash: '0x' + n.toString(16).padStart(64, '0'),
  marketHash: MARKET,
  maker: checksumAddress(MAKER),
  totalBetSize: String(1_000_000n * BigInt(n)),
  percentageOdds: '50000000000000000000',
  fillAmount: '0',
  orderStatus: 'ACTIVE',
  exchangeEventId: EVENT,
});

let redis: TestRedis;
let ex: TestExchange;
let nodeA: ChildExchange;
let nodeB: ChildExchange;
const closers: (() => unknown)[] = [];

const startNode = () => spawnExchange({ ODDEX_ROLES: 'realtime', ODDEX_REDIS_URL: redis.url, ODDEX_REALTIME_TOKEN_SECRET: SECRET });

beforeAll(async () => {
  redis = await startRedis();
  ex = await startTestExchange({ redisUrl: redis.url, realtimeTokenSecret: SECRET });
  [nodeA, nodeB] = await Promise.all([startNode(), startNode()]);
}, 60_000);

afterAll(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  nodeA?.child.kill('SIGKILL');
  nodeB?.child.kill('SIGKILL');
  await ex?.destroy();
  await redis?.stop();
});

const emitOrders = (...orders: ReturnType<typeof order>[]) => emitAny(ex.ctx.bus, 'orders', { marketHash: MARKET, exchangeEventId: EVENT, orders });

/** A client whose every (re)connection goes to the node `target()` names at that moment. */
function clientOf(target: () => { url: string }, apiKey: string) {
  const Routed = class extends WebSocket {
    constructor(_url: string, protocols?: string | string[]) {
      super(wsUrl(target()), protocols);
    }
  };
  const c = centrifugeClient(wsUrl(target()), { websocket: Routed, getToken: () => fetchToken(ex, apiKey) });
  closers.push(() => c.disconnect());
  return c;
}

function record(sub: Subscription) {
  const pubs: PublicationContext[] = [];
  const subscribed: SubscribedContext[] = [];
  sub.on('publication', (p) => pubs.push(p));
  sub.on('subscribed', (s) => subscribed.push(s));
  return { pubs, subscribed };
}

/** A client on node B subscribed to the book, once its subscription is ready. */
async function bookOnNodeB() {
  const c = clientOf(() => nodeB, await createApiKey(ex, MAKER));
  const sub = c.newSubscription(BOOK);
  const rec = record(sub);
  c.connect();
  sub.subscribe();
  await sub.ready(10_000);
  return rec;
}

const hashes = (pubs: PublicationContext[]) => pubs.map((p) => (p.data as ReturnType<typeof order>[])[0]!.orderHash);

describe('realtime nodes on Redis', () => {
  it('subscribers on two nodes receive every publication of a book in order; a client recovers through the other node after kill -9 of its own', async () => {
    const key = await createApiKey(ex, MAKER);
    const onA = clientOf(() => nodeA, key);
    const onB = clientOf(() => nodeB, key);
    let moved = false;
    const mover = clientOf(() => (moved ? nodeB : nodeA), key);
    const subs = [onA, onB, mover].map((c) => {
      const sub = c.newSubscription(BOOK);
      const rec = record(sub);
      c.connect();
      sub.subscribe();
      return { sub, rec };
    });
    await Promise.all(subs.map(({ sub }) => sub.ready(10_000)));
    for (let n = 1; n <= 5; n++) emitOrders(order(n));
    await waitFor(() => subs.every(({ rec }) => rec.pubs.length === 5), 10_000, 'five publications on both nodes');
    for (const { rec } of subs) {
      expect(rec.pubs.map((p) => p.offset)).toEqual([1, 2, 3, 4, 5]);
      expect(hashes(rec.pubs)).toEqual([1, 2, 3, 4, 5].map((n) => order(n).orderHash));
    }

    // Node A dies; what is published meanwhile is recovered through node B.
    moved = true;
    nodeA.child.kill('SIGKILL');
    await nodeA.exited;
    for (let n = 6; n <= 8; n++) emitOrders(order(n));
    const moverRec = subs[2]!.rec;
    await waitFor(() => moverRec.subscribed.length === 2, 10_000, 'resubscribe through node B');
    expect(moverRec.subscribed[1]).toMatchObject({ wasRecovering: true, recovered: true });
    await waitFor(() => moverRec.pubs.length === 8, 10_000, 'recovered publications');
    emitOrders(order(9));
    await waitFor(() => moverRec.pubs.length === 9 && subs[1]!.rec.pubs.length === 9, 10_000, 'live again');
    await sleep(50);
    expect(moverRec.pubs.map((p) => p.offset)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(hashes(moverRec.pubs)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => order(n).orderHash));
    nodeA = await startNode();
  }, 60_000);

  it('Redis restarting without its data: clients learn recovered:false and a new epoch, then delivery goes on', async () => {
    const rec = await bookOnNodeB();
    const before = rec.subscribed[0]!.streamPosition!;
    emitOrders(order(20));
    await waitFor(() => rec.pubs.length === 1, 10_000, 'first publication');
    await redis.restartEmpty();
    // Publish until the exchange's connection is back and the node notices the new stream.
    for (let i = 0; rec.subscribed.length < 2 && i < 300; i++) {
      emitOrders(order(21 + i));
      await sleep(20);
    }
    await waitFor(() => rec.subscribed.length === 2, 10_000, 'resubscribe');
    expect(rec.subscribed[1]).toMatchObject({ wasRecovering: true, recovered: false });
    expect(rec.subscribed[1]!.streamPosition!.epoch).not.toBe(before.epoch);
    const seen = rec.pubs.length;
    emitOrders(order(999));
    await waitFor(() => rec.pubs.length > seen && hashes(rec.pubs).includes(order(999).orderHash), 10_000, 'delivery after the restart');
  }, 60_000);

  it('an exchange that starts restarts the streams it finds in Redis: its subscribers learn recovered:false, not a silent gap', async () => {
    // The writer before may have journaled a group and died before publishing it (kill -9, a standby's takeover):
    // nothing in Redis tells, so a position in a stream from before must not recover as if complete.
    const rec = await bookOnNodeB();
    emitOrders(order(30));
    await waitFor(() => rec.pubs.length === 1, 10_000, 'first publication');
    const before = rec.subscribed[0]!.streamPosition!;
    ex = await ex.restart();
    await waitFor(() => rec.subscribed.length === 2, 10_000, 'resubscribe');
    expect(rec.subscribed[1]).toMatchObject({ wasRecovering: true, recovered: false });
    expect(rec.subscribed[1]!.streamPosition!.epoch).not.toBe(before.epoch);
    emitOrders(order(31));
    await waitFor(() => rec.pubs.length === 2, 10_000, 'delivery after the start');
    expect(rec.pubs[1]!.offset).toBe(1);
    expect(hashes(rec.pubs)).toEqual([order(30).orderHash, order(31).orderHash]);
  }, 60_000);

  it('a realtime node answers /health, /health/live and /health/ready, and counts its connections in /metrics', async () => {
    for (const path of ['/health', '/health/live', '/health/ready']) expect([path, (await fetch(`${nodeB.url}${path}`)).status]).toEqual([path, 200]);
    const connections = async () => Number(/^oddex_realtime_connections (\d+)$/m.exec(await (await fetch(`${nodeB.url}/metrics`)).text())?.[1]);
    const before = await connections();
    await bookOnNodeB();
    expect(await connections()).toBe(before + 1);
  }, 30_000);

  it('a realtime node is not ready while Redis is down (it can deliver nothing), and ready again once Redis is back', async () => {
    const ready = async () => {
      const res = await fetch(`${nodeB.url}/health/ready`);
      return [res.status, ((await res.json()) as { status: string }).status];
    };
    expect(await ready()).toEqual([200, 'ok']);
    await redis.halt();
    try {
      await waitFor(async () => (await ready())[0] === 503, 5000);
      expect(await ready()).toEqual([503, expect.stringMatching(/redis unreachable/)]);
      // Alive all the while: a supervisor must not restart it.
      expect((await fetch(`${nodeB.url}/health`)).status).toBe(200);
    } finally {
      await redis.start();
    }
    await waitFor(async () => (await ready())[0] === 200, 10_000);
  }, 30_000);

  it('a clean stop publishes what it acknowledged before it closes: a subscriber on another node receives it', async () => {
    // The projector lags, so the order below is acknowledged but not yet published when the stop begins.
    await ex.destroy();
    ex = await startTestExchange({ ...betTestConfig(), redisUrl: redis.url, realtimeTokenSecret: SECRET, projectorDelayMs: 300 });
    const { markets } = await createFixtureMarket(ex, await createSoccerLeague(ex), { type: 1 });
    const marketHash = markets[0]!.marketHash;
    const maker = await fundedWallet(ex);
    const c = clientOf(() => nodeB, await createApiKey(ex, maker.address));
    const sub = c.newSubscription(`order_book:market_${marketHash}`);
    const rec = record(sub);
    c.connect();
    sub.subscribe();
    await sub.ready(10_000);
    const orderHash = await postOrder(ex, maker, { marketHash, totalBetSize: 10n * USDC, percentageOdds: 50n * 10n ** 18n, isMakerBettingOutcomeOne: true });
    try {
      await ex.close();
      await waitFor(() => rec.pubs.length > 0, 10_000, 'the order on node B');
      expect(hashes(rec.pubs)).toEqual([orderHash]);
      expect(rec.subscribed).toHaveLength(1);
    } finally {
      ex = await ex.restart();
    }
  }, 60_000);

  it('revoking an API key on the exchange ends its sessions on every node', async () => {
    const created = await ex.admin('POST', '/admin/api-keys', { address: MAKER });
    const { apiKey: key, id } = created.body.data as { apiKey: string; id: string };
    const c = clientOf(() => nodeB, key);
    const disconnected: number[] = [];
    c.on('disconnected', (d) => disconnected.push(d.code));
    c.connect();
    await c.ready(10_000);
    expect((await ex.admin('DELETE', `/admin/api-keys/${id}`)).status).toBe(200);
    await waitFor(() => disconnected.length > 0, 10_000, 'disconnect on node B');
    expect(disconnected[0]).toBe(3500);
  }, 30_000);
});
