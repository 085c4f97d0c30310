// Signature verification runs on worker threads and finishes out of order; one maker's commands must still
// reach the engine in the order they arrived. Two requests pipelined on one socket arrive in a known order.
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestExchange, type TestExchange } from './helpers/server.js';
import { betTestConfig, createFixtureMarket, createSoccerLeague, fund } from './helpers/bets.js';
import { E18, USDC, newWallet, signedCancel, signedOrder } from './helpers/wallets.js';

let ex: TestExchange;
let marketHash: string;

beforeAll(async () => {
  ex = await startTestExchange({ ...betTestConfig(), verifyThreads: 2, maxOrdersPerRequest: 500 });
  const cat = await createSoccerLeague(ex);
  marketHash = (await createFixtureMarket(ex, cat, { type: 52 })).markets[0]!.marketHash;
});
afterAll(() => ex.destroy());

/** Writes the requests back to back on one connection and returns the raw responses (the last one closes it). */
function pipelined(requests: { path: string; body: unknown }[]): Promise<string> {
  const url = new URL(ex.url);
  const wire = requests
    .map(({ path, body }, i) => {
      const json = JSON.stringify(body);
      const close = i === requests.length - 1 ? 'close' : 'keep-alive';
      return `POST ${path} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(json)}\r\nConnection: ${close}\r\n\r\n${json}`;
    })
    .join('');
  return new Promise((resolve, reject) => {
    // Not end(): the server drops requests whose client half-closed. The last request asks it to close instead.
    const socket = connect(Number(url.port), url.hostname, () => socket.write(wire));
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString()));
  });
}

/** The JSON bodies of raw HTTP/1.1 responses with Content-Length (what Fastify sends). */
function bodiesOf(raw: string): { status: number; body: { data: { orders: unknown; inserted?: number } } }[] {
  const out = [];
  let rest = raw;
  while (rest.startsWith('HTTP/1.1 ')) {
    const headEnd = rest.indexOf('\r\n\r\n');
    const head = rest.slice(0, headEnd);
    const length = Number(/content-length: (\d+)/i.exec(head)![1]);
    const body = rest.slice(headEnd + 4, headEnd + 4 + length);
    out.push({ status: Number(head.slice(9, 12)), body: JSON.parse(body) });
    rest = rest.slice(headEnd + 4 + length);
  }
  return out;
}

describe('verification off the writer thread', () => {
  it('applies a maker\'s cancel-all after the big batch the maker sent just before it', async () => {
    const maker = newWallet();
    await fund(ex, maker, 100_000n * USDC);
    const warm = await signedOrder(maker, ex.ctx.config, { marketHash, totalBetSize: 10n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: true });
    expect((await ex.post('/orders/new', { orders: [warm.body] })).status).toBe(200);
    for (let i = 0; ex.ctx.verifier.liveWorkers < 2; i++) {
      if (i > 1000) throw new Error('verification workers did not start');
      await sleep(20);
    }
    const jobsOnWorkers = ex.ctx.verifier.stats.jobsOnWorkers;

    const batch = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        signedOrder(maker, ex.ctx.config, {
          marketHash,
          totalBetSize: 10n * USDC,
          percentageOdds: BigInt(10 + (i % 40)) * E18,
          isMakerBettingOutcomeOne: i % 2 === 0,
        }),
      ),
    );
    const cancelAll = await signedCancel(maker, ex.ctx.config, 'all');
    const responses = bodiesOf(
      await pipelined([
        { path: '/orders/new', body: { orders: batch.map((o) => o.body) } },
        { path: '/orders/cancel/all', body: cancelAll },
      ]),
    );

    expect(responses.map((r) => r.status)).toEqual([200, 200]);
    expect(responses[0]!.body.data.inserted).toBe(300);
    // The cancel saw every order of the batch (and the warm-up order): it ran after the batch.
    const cancelled = (responses[1]!.body.data.orders as { orderHash: string }[]).map((o) => o.orderHash).sort();
    expect(cancelled).toEqual([warm.hash, ...batch.map((o) => o.hash)].sort());
    expect((await ex.get(`/orders?maker=${maker.address}`)).body.data).toEqual([]);
    // Both requests were verified on the workers, not on the writer thread.
    expect(ex.ctx.verifier.stats.jobsOnWorkers - jobsOnWorkers).toBe(301);
    expect(ex.ctx.verifier.waitingClients).toBe(0);
  });
});
