// The most signed orders, fills and cancels per second the exchange accepts from several concurrent clients, with
// the server's CPU per operation and the cores it kept busy. The baseline is the same run against a server that
// verifies signatures on its writer thread (ODDEX_VERIFY_THREADS=0, the design before the worker pool).
// Targets (issue 15): 15,000 signed orders/s and 5,000 fills/s on a 2-core machine, both cores busy.
// Batches of orders are sent by `clients` closed-loop clients; fills and cancels (one per request) by
// `requestClients`, so that enough of them are in flight for a group commit to gather many.
// With ODDEX_BASELINE_TREE=<a worktree of an earlier commit, with node_modules> the baseline is that commit instead;
// with ODDEX_BENCH_STORES=postgres it is this checkout on SQLite, against this checkout on PostgreSQL.
// Usage: npx tsx bench/throughput.ts [orders = 20000] [fills = 4000] [cancels = 4000] [clients = 4] [requestClients = 32]
import { ratio } from './lib.js';
import { conditions, measureCpu } from './lib.js';
import { startPostgres } from '../test/helpers/postgres.js';
import { E18, USDC, newAccount, signedCancelV2, signedFill, signedOrder, startBenchExchange, type BenchExchange } from './exchange.js';

const [orderCount = 20_000, fillCount = 4000, cancelCount = 4000, clients = 4, requestClients = 32] = process.argv.slice(2).map(Number);
const BATCH = 500;
const MAKER_ODDS = 40n * E18; // the taker's side of these orders is at 60%
const ORDER_SIZE = 10n * USDC;
const FILL_STAKE = 3n * USDC; // consumes 2 USDC of a maker order: five fills per order

/** Runs `count` requests through `clients` closed-loop clients; returns how many the server accepted. */
async function drive(count: number, clients: number, send: (i: number) => Promise<number>): Promise<number> {
  let next = 0;
  let accepted = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < count) {
        const n = await send(next++); // not `accepted += await`: that would read accepted before the await
        accepted += n;
      }
    }),
  );
  return accepted;
}

interface Figures {
  perSecond: number;
  cpuMsPerOp: number;
  mainThreadMsPerOp: number;
  cores: number;
  accepted: number;
  conditions: string;
}

async function run(label: string, env: Record<string, string>, root?: string): Promise<Record<'orders' | 'fills' | 'cancels', Figures>> {
  const ex: BenchExchange = await startBenchExchange(env, undefined, root);
  try {
    const maker = newAccount();
    const taker = newAccount();
    await ex.fund(maker);
    await ex.fund(taker);
    // Even batches go to the even-indexed markets and odd batches to the odd-indexed ones, round robin: fills take the
    // markets of even batches and cancels the orders of odd ones, so no fill consumes an order a cancel is meant for.
    const batches = Math.ceil(orderCount / BATCH);
    const pairs = Math.floor(ex.markets.length / 2);
    if (pairs === 0) throw new Error('the bench needs at least two demo markets');
    const marketOf = (b: number) => ex.markets[2 * (Math.floor(b / 2) % pairs) + (b % 2)]!;
    const evenBatches = Array.from({ length: Math.ceil(batches / 2) }, (_, k) => 2 * k);
    const bodies = Array.from({ length: batches }, (_, b) => {
      const market = marketOf(b);
      return Array.from({ length: Math.min(BATCH, orderCount - b * BATCH) }, () =>
        signedOrder(maker, market, { odds: MAKER_ODDS, size: ORDER_SIZE, outcomeOne: true }),
      );
    });
    const fills = Array.from({ length: fillCount }, (_, i) =>
      signedFill(taker, marketOf(evenBatches[i % evenBatches.length]!), { stake: FILL_STAKE, odds: 100n * E18 - MAKER_ODDS, outcomeOne: false }),
    );
    const cancellable = bodies.flatMap((batch, b) => (b % 2 === 1 ? batch.map((o) => o.hash) : []));
    // Warm-up: JIT, the connection pool and the verification workers.
    for (let i = 0; i < 200; i++) {
      await ex.post('/orders/new', { orders: [signedOrder(maker, ex.markets[0]!, { odds: 20n * E18, size: ORDER_SIZE, outcomeOne: false }).body] });
    }

    const figures = (m: Awaited<ReturnType<typeof measureCpu<number>>>): Figures => ({
      perSecond: m.result / m.seconds,
      cpuMsPerOp: m.cpuMsPerOp,
      mainThreadMsPerOp: m.mainThreadMsPerOp,
      cores: m.coresUsed,
      accepted: m.result,
      conditions: conditions(m),
    });
    const orders = await measureCpu(ex.pid, orderCount, () =>
      drive(batches, clients, async (b) => {
        const r = await ex.post('/orders/new', { orders: bodies[b]!.map((o) => o.body) });
        if (r.status !== 200) console.log('batch refused:', JSON.stringify(r.body).slice(0, 200));
        const refused = Object.values((r.body.data?.statuses ?? {}) as Record<string, string>).filter((s) => s !== 'OK');
        if (refused.length > 0) console.log(`batch ${b}: ${refused.length} refused, e.g. ${refused[0]}`);
        return Number(r.body.data?.inserted ?? 0);
      }),
    );
    const filled = await measureCpu(ex.pid, fillCount, () =>
      drive(fillCount, requestClients, async (i) => ((await ex.post('/orders/fill/v2', fills[i])).status === 200 ? 1 : 0)),
    );
    // Signed now, not with the orders: a cancel's timestamp must be within 60 s of the server's clock when it arrives.
    const cancels = cancellable.slice(0, cancelCount).map((hash) => signedCancelV2(maker, [hash]));
    let refusalShown = false;
    const cancelled = await measureCpu(ex.pid, cancels.length, () =>
      drive(cancels.length, requestClients, async (i) => {
        const r = await ex.post('/orders/cancel/v2', cancels[i]);
        if (r.status !== 200 && !refusalShown) {
          refusalShown = true;
          console.log('cancel refused:', JSON.stringify(r.body).slice(0, 200));
        }
        return r.status === 200 ? Number((r.body.data as { cancelledCount?: number } | undefined)?.cancelledCount ?? 0) : 0;
      }),
    );
    const result = { orders: figures(orders), fills: figures(filled), cancels: figures(cancelled) };
    console.log(`\n${label}`);
    for (const [name, f] of Object.entries(result)) {
      console.log(
        `  ${name.padEnd(8)} ${Math.round(f.perSecond).toString().padStart(6)}/s  (${f.accepted} accepted)  ` +
          `server CPU ${f.cpuMsPerOp.toFixed(3)} ms/op (main thread ${f.mainThreadMsPerOp.toFixed(3)}), ${f.cores.toFixed(2)} cores busy; ${f.conditions}`,
      );
    }
    return result;
  } finally {
    await ex.close();
  }
}

console.log(
  `${orderCount} signed orders in batches of ${BATCH} from ${clients} concurrent clients; ${fillCount} fills and ${cancelCount} cancels ` +
    `from ${requestClients} concurrent clients`,
);
const baselineTree = process.env.ODDEX_BASELINE_TREE;
// ODDEX_BENCH_STORES=postgres: this checkout on SQLite (the baseline) and on a throw-away PostgreSQL cluster on this
// machine. The exchange's CPU is measured, not the database server's (which shares the two cores).
const onPostgres = process.env.ODDEX_BENCH_STORES === 'postgres';
const postgres = onPostgres ? await startPostgres() : undefined;
let baseline, current;
try {
  baseline = postgres
    ? await run('baseline: this checkout on SQLite', {})
    : baselineTree
      ? await run(`baseline: ${baselineTree}`, {}, baselineTree)
      : await run('baseline: signatures verified on the writer thread (ODDEX_VERIFY_THREADS=0)', { ODDEX_VERIFY_THREADS: '0' });
  current = postgres ? await run('this checkout on PostgreSQL', { ODDEX_DATABASE_URL: await postgres.createDatabase() }) : await run('this checkout', {});
} finally {
  await postgres?.stop();
}
console.log(`\nratio ${onPostgres ? 'PostgreSQL / SQLite' : 'this checkout / baseline'} (throughput; server CPU per op; main-thread CPU per op):`);
for (const name of ['orders', 'fills', 'cancels'] as const) {
  console.log(
    `  ${name.padEnd(8)} ${ratio(current[name].perSecond, baseline[name].perSecond)}; ${ratio(current[name].cpuMsPerOp, baseline[name].cpuMsPerOp)}; ` +
      ratio(current[name].mainThreadMsPerOp, baseline[name].mainThreadMsPerOp),
  );
}
