// Order create and cancel latency at a fixed rate over HTTP, and the most signed orders per second accepted in
// batches. Runs the real server as a child process. Usage: npx tsx bench/orders.ts [ratePerSecond] [seconds]
import { randomBytes } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { loadConfig } from '../src/config.js';
import { signCancelV2 } from '../src/sdk/signing.js';
import { publicKeyToAddress } from '../src/protocol/signatures.js';
import { checksumAddress } from '../src/protocol/address.js';
import { fmt, httpClient, openLoop, percentiles, processCpuSeconds, signedOrderBody, startBenchServer } from './lib.js';

const rate = Number(process.argv[2] ?? 1000);
const seconds = Number(process.argv[3] ?? 10);
const ADMIN = 'bench-admin';
const E18 = 10n ** 18n;
const USDC = 1_000_000n;

const config = loadConfig({}, []);
const { server, stop } = await startBenchServer(ADMIN, { ODDEX_MAX_ORDERS_PER_REQUEST: '1000' });
const serverCpuSeconds = () => processCpuSeconds(server.child.pid!);
async function phase<T>(run: () => Promise<T>, requests: number): Promise<T & { serverCpuMsPerRequest: string }> {
  const before = serverCpuSeconds();
  const result = await run();
  return { ...result, serverCpuMsPerRequest: (((serverCpuSeconds() - before) * 1000) / requests).toFixed(3) };
}

const request = httpClient(server.url);
const post = async (path: string, body: unknown, admin = false) => {
  const res = await request('POST', path, body, admin ? { authorization: `Bearer ${ADMIN}` } : {});
  return { status: res.status, body: JSON.parse(res.body) as { data?: Record<string, unknown> } };
};

try {
  // This deployment's executor, generated on its first start.
  config.executorAddress = ((await (await fetch(server.url + '/metadata')).json()) as { data: { executorAddress: string } }).data.executorAddress;
  const markets = ((await (await fetch(server.url + '/markets/active?pageSize=100&type=52')).json()) as {
    data: { markets: { marketHash: string }[] };
  }).data.markets.map((m) => m.marketHash);
  const key = secp256k1.utils.randomSecretKey();
  const maker = checksumAddress(publicKeyToAddress(secp256k1.getPublicKey(key, false)));
  await post('/admin/faucet', { address: maker, amount: (10n ** 15n * USDC).toString() }, true);

  const expiry = Math.floor(Date.now() / 1000) + 3600;
  const makeOrder = (i: number, market = markets[i % markets.length]!) => {
    const fields = {
      marketHash: market,
      baseToken: config.baseTokenAddress,
      totalBetSize: 10n * USDC,
      percentageOdds: BigInt(10 + (i % 30)) * E18,
      expiry: BigInt(expiry),
      salt: BigInt('0x' + randomBytes(32).toString('hex')),
      maker,
      executor: config.executorAddress,
      isMakerBettingOutcomeOne: true,
    };
    return signedOrderBody(fields, key);
  };

  const count = rate * seconds;
  console.log(`signing ${count} orders...`);
  const orders = Array.from({ length: count }, (_, i) => makeOrder(i));

  // Warm-up: JIT and connection pool.
  for (let i = 0; i < 200; i++) await post('/orders/new', { orders: [makeOrder(count + i).body] });

  // Baseline: the cheapest route at the same rate shows what HTTP and this load generator cost on the shared cores.
  const base = await phase(() => openLoop(count, rate, async () => (await request('GET', '/health/live')).status === 200), count);
  const b = percentiles(base.latencies);
  console.log(`baseline GET /health/live @ ${rate}/s: p50 ${fmt(b.p50)} p95 ${fmt(b.p95)} p99 ${fmt(b.p99)} max ${fmt(b.max)}; server CPU ${base.serverCpuMsPerRequest} ms/request`);

  const create = await phase(() => openLoop(count, rate, async (i) => (await post('/orders/new', { orders: [orders[i]!.body] })).status === 200), count);
  const c = percentiles(create.latencies);
  console.log(`order create @ ${rate}/s for ${create.seconds.toFixed(1)} s: p50 ${fmt(c.p50)} p95 ${fmt(c.p95)} p99 ${fmt(c.p99)} max ${fmt(c.max)} failures ${create.failures}; server CPU ${create.serverCpuMsPerRequest} ms/request`);

  const now = BigInt(Math.floor(Date.now() / 1000));
  console.log(`signing ${count} cancels...`);
  const cancels = orders.map((o) => {
    const salt = '0x' + randomBytes(32).toString('hex');
    const domain = { name: config.domainNames.cancelV2, version: '1.0', chainId: config.chainId, salt };
    return { orderHashes: [o.hash], signature: signCancelV2(domain, { orderHashes: [o.hash], timestamp: now }, key), salt, maker, timestamp: Number(now) };
  });
  const cancel = await phase(() => openLoop(count, rate, async (i) => (await post('/orders/cancel/v2', cancels[i])).status === 200), count);
  const k = percentiles(cancel.latencies);
  console.log(`order cancel @ ${rate}/s for ${cancel.seconds.toFixed(1)} s: p50 ${fmt(k.p50)} p95 ${fmt(k.p95)} p99 ${fmt(k.p99)} max ${fmt(k.max)} failures ${cancel.failures}; server CPU ${cancel.serverCpuMsPerRequest} ms/request`);

  // Throughput: batches of 500 signed orders from 4 concurrent clients.
  const batches = 40;
  const batchSize = 500;
  console.log(`signing ${batches * batchSize} orders for the throughput run...`);
  const bulk = Array.from({ length: batches }, (_, b) =>
    Array.from({ length: batchSize }, (_, i) => makeOrder(2 * count + b * batchSize + i, markets[b % markets.length]).body),
  );
  let accepted = 0;
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < batches) {
        const r = await post('/orders/new', { orders: bulk[next++] });
        if (r.status !== 200) console.log('batch refused:', JSON.stringify(r.body).slice(0, 300));
        accepted += Number(r.body.data?.inserted ?? 0);
      }
    }),
  );
  const secs = (performance.now() - t0) / 1000;
  console.log(`batched posting: ${accepted} orders accepted in ${secs.toFixed(2)} s = ${Math.round(accepted / secs)} orders/s`);
} finally {
  await stop();
}
