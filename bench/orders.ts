// Create and cancel latency at fixed rates, open loop, each next to a no-op route (GET /health/live) driven at the
// same rate in the same run: the ratio shows what the exchange adds over HTTP and this load generator on the
// shared cores. Targets (issue 15): create and cancel p99 within 2x the no-op p99 at 1,000/s; p99 under 20 ms at
// 2,000/s. Runs the real server as a child process.
// The client opens as many keep-alive connections as requests in flight need (up to `sockets`): with too few, an
// open-loop bench turns closed-loop once latency exceeds sockets / rate (64 sockets at 1,000/s: 64 ms, a few
// fsyncs on this disk), and requests then queue in the client for seconds. "max in flight" shows how close it came.
// With ODDEX_BASELINE_TREE=<a worktree of an earlier commit, with node_modules> that commit runs first, the same way.
// Usage: npx tsx bench/orders.ts [rates, comma-separated = 1000,2000] [seconds per phase = 5] [sockets = 1024]
import { conditions, fmt, openLoop, percentiles, percentilesVs, measureCpu } from './lib.js';
import { E18, USDC, newAccount, signedCancelV2, signedOrder, startBenchExchange } from './exchange.js';

const rates = (process.argv[2] ?? '1000,2000').split(',').map(Number);
const seconds = Number(process.argv[3] ?? 5);
const sockets = Number(process.argv[4] ?? 1024);

async function measure(label: string, root?: string): Promise<void> {
console.log(`\n=== ${label}`);
const ex = await startBenchExchange({}, sockets, root);
try {
  const maker = newAccount();
  await ex.fund(maker);
  const order = (i: number) =>
    signedOrder(maker, ex.markets[i % ex.markets.length]!, { odds: BigInt(10 + (i % 30)) * E18, size: 10n * USDC, outcomeOne: true });

  // Warm-up: JIT, the connection pool and the verification workers.
  for (let i = 0; i < 300; i++) await ex.post('/orders/new', { orders: [order(i).body] });

  for (const rate of rates) {
    const count = rate * seconds;
    const orders = Array.from({ length: count }, (_, i) => order(i));
    const cancels = orders.map((o) => signedCancelV2(maker, [o.hash]));
    const phase = (send: (i: number) => Promise<boolean>) => measureCpu(ex.pid, count, () => openLoop(count, rate, send));

    console.log(`\n@ ${rate}/s for ${seconds} s (${count} requests per phase)`);
    const noop = await phase(async () => (await ex.request('GET', '/health/live')).status === 200);
    const create = await phase(async (i) => (await ex.post('/orders/new', { orders: [orders[i]!.body] })).status === 200);
    const cancel = await phase(async (i) => (await ex.post('/orders/cancel/v2', cancels[i])).status === 200);

    const b = percentiles(noop.result.latencies);
    const line = (name: string, r: typeof noop) =>
      `${name}  ${percentilesVs(r.result.latencies, noop.result.latencies)}  failures ${r.result.failures}, max in flight ${r.result.maxInFlight}; ` +
      `server CPU ${r.cpuMsPerOp.toFixed(3)} ms/request (main thread ${r.mainThreadMsPerOp.toFixed(3)}), ${r.coresUsed.toFixed(2)} cores; ${conditions(r)}`;
    console.log(`no-op GET /health/live  p50 ${fmt(b.p50)}  p95 ${fmt(b.p95)}  p99 ${fmt(b.p99)}  max ${fmt(b.max)}; server CPU ${noop.cpuMsPerOp.toFixed(3)} ms/request; ${conditions(noop)}`);
    console.log(line('create POST /orders/new   ', create));
    console.log(line('cancel POST /orders/cancel/v2', cancel));
  }
  console.log('\n(ratios: each percentile over the no-op route\'s same percentile at the same rate)');
} finally {
  await ex.close();
}
}

const baselineTree = process.env.ODDEX_BASELINE_TREE;
if (baselineTree) await measure(`baseline: ${baselineTree}`, baselineTree);
await measure('this checkout');
