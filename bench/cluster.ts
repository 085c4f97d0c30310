// Oddex as a cluster on this machine: PostgreSQL and NATS (throw-away, from their Debian binaries), a sequencer
// process, a projector process and gateways, each in its own process (ODDEX_BENCH_PROJECTOR=in-sequencer: the
// projector as a thread of the sequencer's process instead). Batched signed orders go to the gateways in a closed loop, first
// through one gateway, then through two, each pinned to a core of its own (taskset). Prints orders/s and the CPU
// each role spent per order (the database server included), and one signature recovery's CPU measured in this
// process in the same run: the sequencer's CPU per order against it shows what verification on the gateways spares
// the single writer. Issue 30's targets: two gateways at least 1.7x one; the sequencer at most 0.3x one recovery.
// Then fills: a settlement process (ODDEX_ROLES=settlement, the local ledger confirming at once) is started once the
// order phases are over (its engine replica would follow their orders on the same two cores), takers' fills go through
// one gateway, and the CPU each role spent per fill is printed once the settlement process has confirmed every one.
// Usage: npx tsx bench/cluster.ts [orders per phase = 20000] [orders per request = 100] [requests in flight per gateway = 4] [fills = 2000]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { startNats } from '../src/local-services/nats.js';
import { startPostgres } from '../src/local-services/postgres.js';
import { startRole, type RoleProcess } from '../src/cluster/role-process.js';
import { orderHash, recoverOrderSigner } from '../src/protocol/hashing.js';
import { keccakWasmReady } from '../src/protocol/keccak-wasm.js';
import { E18, EXECUTOR, USDC, newAccount, signedFill, signedOrder, type Account } from './exchange.js';
import { httpClient, processCpuSeconds } from './lib.js';

const perPhase = Number(process.argv[2] ?? 20_000);
const batch = Number(process.argv[3] ?? 100);
const inFlight = Number(process.argv[4] ?? 4);
const fillCount = Number(process.argv[5] ?? 2000);
const ADMIN = 'bench-cluster-admin';
const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** CPU seconds of a process and its descendants' threads (the database server is a postmaster with a backend per connection). */
function treeCpuSeconds(rootPid: number): number {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ');
      parents.set(Number(entry), Number(stat[1]));
    } catch {
      // exited meanwhile
    }
  }
  const inTree = (pid: number): boolean => pid === rootPid || (pid > 1 && parents.has(pid) && inTree(parents.get(pid)!));
  let total = 0;
  for (const pid of parents.keys()) {
    if (!inTree(pid)) continue;
    try {
      total += processCpuSeconds(pid);
    } catch {
      // exited meanwhile
    }
  }
  return total;
}

/** CPU of one signer recovery of an order, in this process (the work a gateway's verification does per order). */
async function recoveryMs(): Promise<number> {
  await keccakWasmReady;
  const maker = newAccount();
  const orders = Array.from({ length: 2000 }, (_, i) => signedOrder(maker, '0x' + (i + 1).toString(16).padStart(64, '0'), { odds: 50n * E18, size: USDC, outcomeOne: true }));
  const fields = orders.map((o) => ({ ...o.body, totalBetSize: BigInt(o.body.totalBetSize), percentageOdds: BigInt(o.body.percentageOdds), expiry: BigInt(o.body.expiry), salt: BigInt(o.body.salt) }));
  for (let i = 0; i < 200; i++) recoverOrderSigner(orderHash(fields[i]!), orders[i]!.body.signature);
  const t0 = performance.now();
  for (let i = 0; i < fields.length; i++) {
    if (recoverOrderSigner(orderHash(fields[i]!), orders[i]!.body.signature)?.toLowerCase() !== maker.address.toLowerCase()) throw new Error('recovered the wrong signer');
  }
  return (performance.now() - t0) / fields.length;
}

const dir = mkdtempSync(join(tmpdir(), 'oddex-bench-cluster-'));
const postgres = await startPostgres({ maxConnections: 100 });
const nats = await startNats();
const roles: RoleProcess[] = [];
try {
  const databaseUrl = await postgres.createDatabase('oddex');
  const postmaster = Number(readFileSync(join(postgres.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const common = {
    ODDEX_DATABASE_URL: databaseUrl,
    ODDEX_NATS_URL: nats.url,
    ODDEX_ADMIN_TOKEN: ADMIN,
    ODDEX_EXECUTOR_ADDRESS: EXECUTOR,
    ODDEX_DEMO: 'true',
    ODDEX_DEMO_LIQUIDITY: 'false',
    ODDEX_RATE_LIMITS: 'false',
    ODDEX_LOG_LEVEL: 'warn',
    ODDEX_LOG_FORMAT: 'json',
    ODDEX_MAX_ORDERS_PER_REQUEST: String(batch),
    ODDEX_DELAY_PREGAME_MS: '0',
    ODDEX_HOST: '127.0.0.1',
    ODDEX_PORT: '0',
  };
  const start = async (name: string, env: Record<string, string>, readyLine?: RegExp) => {
    const p = await startRole({ name, root: ROOT, env: { ...common, ODDEX_DATA_DIR: mkdtempSync(join(dir, `${name}-`)), ...env }, logFile: join(dir, `${name}.log`), ...(readyLine ? { readyLine } : {}) });
    roles.push(p);
    return p;
  };
  const projectorApart = process.env.ODDEX_BENCH_PROJECTOR !== 'in-sequencer';
  // The settlement role apart (started for the fill phase): the sequencer hands fills to no chain of its own.
  const sequencer = await start('sequencer', { ODDEX_ROLES: projectorApart ? 'sequencer,realtime' : 'sequencer,projector,realtime' });
  const projector = projectorApart ? await start('projector', { ODDEX_ROLES: 'projector' }) : undefined;
  const gateways = [await start('gateway-1', { ODDEX_ROLES: 'gateway' }), await start('gateway-2', { ODDEX_ROLES: 'gateway' })];
  gateways.forEach((g, core) => execFileSync('taskset', ['-a', '-p', '-c', String(core), String(g.child.pid)], { stdio: 'ignore' }));

  const admin = httpClient(sequencer.url!);
  const active = JSON.parse((await admin('GET', '/markets/active?pageSize=100&type=52')).body) as { data: { markets: { marketHash: string; liveEnabled: boolean }[] } };
  const markets = active.data.markets.filter((m) => !m.liveEnabled).map((m) => m.marketHash);
  const makers: Account[] = Array.from({ length: 8 }, () => newAccount());
  for (const m of makers) {
    const res = await admin('POST', '/admin/faucet', { address: m.address, amount: (10n ** 12n * USDC).toString() }, { authorization: `Bearer ${ADMIN}` });
    if (res.status !== 200) throw new Error(`faucet refused: ${res.body}`);
  }
  const clients = gateways.map((g) => httpClient(g.url!, 64));
  const ms = await recoveryMs();

  /** Sends `count` presigned orders in batches through the first `using` gateways, `inFlight` requests each. */
  const phase = async (label: string, using: number) => {
    // Odds well apart from the other side's (makers only ever back outcome one): nothing crosses, nothing fills.
    const bodies = Array.from({ length: perPhase }, (_, i) => signedOrder(makers[i % makers.length]!, markets[i % markets.length]!, { odds: BigInt(5 + (i % 40)) * E18, size: 10n * USDC, outcomeOne: true }).body);
    const requests: unknown[][] = [];
    for (let i = 0; i < bodies.length; i += batch) requests.push(bodies.slice(i, i + batch));
    // Warm-up: JIT, connections and verification threads of every gateway used.
    for (let g = 0; g < using; g++) {
      const warm = Array.from({ length: batch }, (_, i) => signedOrder(makers[i % makers.length]!, markets[i % markets.length]!, { odds: 5n * E18, size: 10n * USDC, outcomeOne: true }).body);
      await clients[g]!('POST', '/orders/new', { orders: warm });
    }
    const pids = { sequencer: sequencer.child.pid!, projector: projector?.child.pid, gateways: gateways.slice(0, using).map((g) => g.child.pid!) };
    const projectorCpu = () => (pids.projector ? processCpuSeconds(pids.projector) : 0);
    const before = {
      sequencerMain: processCpuSeconds(pids.sequencer, pids.sequencer),
      sequencer: processCpuSeconds(pids.sequencer),
      projector: projectorCpu(),
      gateways: pids.gateways.map((p) => processCpuSeconds(p)),
      postgres: treeCpuSeconds(postmaster),
    };
    let next = 0;
    let failures = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: using * inFlight }, async (_, worker) => {
        const send = clients[worker % using]!;
        for (let r = next++; r < requests.length; r = next++) {
          const res = await send('POST', '/orders/new', { orders: requests[r] });
          if (res.status !== 200 && failures++ === 0) console.log(`first failure: ${res.status} ${res.body.slice(0, 300)}`);
        }
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    // The phase's read models projected too, so the projector's CPU covers the whole phase: an account read on the
    // sequencer waits for every command it acknowledged (503 READ_MODEL_BEHIND past its bound: asked again).
    while ((await admin('GET', `/orders?maker=${makers[0]!.address}`)).status === 503);
    const perOrder = (cpu: number) => ((cpu * 1000) / perPhase).toFixed(3);
    const sequencerCpu = processCpuSeconds(pids.sequencer) - before.sequencer;
    const sequencerMainCpu = processCpuSeconds(pids.sequencer, pids.sequencer) - before.sequencerMain;
    const projectorProcessCpu = projectorCpu() - before.projector;
    const gatewayCpu = pids.gateways.map((p, i) => processCpuSeconds(p) - before.gateways[i]!);
    const postgresCpu = treeCpuSeconds(postmaster) - before.postgres;
    const rate = perPhase / seconds;
    console.log(
      `${label}: ${Math.round(rate).toLocaleString('en-US')} orders/s (${perPhase} in ${requests.length} requests of ${batch}, ${failures} failed); ` +
        `CPU ms per order: sequencer ${perOrder(sequencerCpu)} (${(sequencerCpu * 1000 / perPhase / ms).toFixed(2)}x one recovery; main thread ${perOrder(sequencerMainCpu)}, ` +
        `the rest its ${projectorApart ? '' : 'projector and '}other threads), ` +
        (projectorApart ? `projector process ${perOrder(projectorProcessCpu)}, ` : '') +
        `gateways ${gatewayCpu.map(perOrder).join(' + ')}, PostgreSQL ${perOrder(postgresCpu)}; load ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]}`,
    );
    return rate;
  };
  console.log(`one signer recovery (orderHash + recover, this process): ${(ms * 1000).toFixed(1)} µs`);
  const one = await phase('one gateway (core 0)', 1);
  const two = await phase('two gateways (cores 0 and 1)', 2);
  console.log(`two gateways / one: ${(two / one).toFixed(2)}x (target 1.7x); the sequencer and PostgreSQL share the same 2 cores`);
  await fillPhase({ admin, gateway: clients[0]!, gatewayPid: gateways[0]!.child.pid!, sequencerPid: sequencer.child.pid!, projectorPid: projector?.child.pid, postmaster, start });
} finally {
  for (const p of roles) p.child.kill('SIGTERM');
  await Promise.all(roles.map((p) => p.exited));
  await nats.stop();
  await postgres.stop();
  rmSync(dir, { recursive: true, force: true });
}

/**
 * Takers' fills through one gateway against makers' orders on one market (each fill 3 at 60% against orders of 10 at
 * 40%: five fills per order), settled by a settlement process of its own; CPU per fill of each role, from the first
 * fill until the settlement process's replica covers the journal with no fill pending (every confirmation journaled).
 */
async function fillPhase(o: {
  admin: ReturnType<typeof httpClient>;
  gateway: ReturnType<typeof httpClient>;
  gatewayPid: number;
  sequencerPid: number;
  projectorPid: number | undefined;
  postmaster: number;
  start: (name: string, env: Record<string, string>, readyLine?: RegExp) => Promise<RoleProcess>;
}) {
  const admin = { authorization: `Bearer ${ADMIN}` };
  const [maker, taker] = [newAccount(), newAccount()];
  for (const a of [maker, taker]) {
    const res = await o.admin('POST', '/admin/faucet', { address: a.address, amount: (10n ** 9n * USDC).toString() }, admin);
    if (res.status !== 200) throw new Error(`faucet refused: ${res.body}`);
  }
  const active = JSON.parse((await o.admin('GET', '/markets/active?pageSize=100&type=52')).body) as { data: { markets: { marketHash: string; liveEnabled: boolean }[] } };
  const market = active.data.markets.filter((m) => !m.liveEnabled)[0]!.marketHash;
  // Makers of the order phases back outcome one: these back outcome two, so the takers (outcome one) meet these only.
  for (let b = 0; b < Math.ceil(fillCount / 5 / batch) + 1; b++) {
    const orders = Array.from({ length: batch }, () => signedOrder(maker, market, { odds: 40n * E18, size: 10n * USDC, outcomeOne: false }).body);
    const res = await o.gateway('POST', '/orders/new', { orders });
    if (res.status !== 200) throw new Error(`orders refused: ${res.body.slice(0, 300)}`);
  }
  // Its replica rebuilt from the journal (the order phases included) before anything is measured.
  const settlement = await o.start('settlement', { ODDEX_ROLES: 'settlement', ODDEX_LOG_LEVEL: 'info', ODDEX_CHAIN_CONFIRM_MS: '0' }, /settling fills on the chain/);
  const settlementMetrics = httpClient(settlement.url!);
  const gauge = async (client: ReturnType<typeof httpClient>, name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec((await client('GET', '/metrics')).body)?.[1] ?? NaN);
  const fills = Array.from({ length: fillCount }, () => signedFill(taker, market, { stake: 3n * USDC, odds: 60n * E18, outcomeOne: true }));
  const pids = { settlement: settlement.child.pid!, sequencer: o.sequencerPid, gateway: o.gatewayPid, projector: o.projectorPid };
  const cpu = () => ({
    settlement: processCpuSeconds(pids.settlement),
    sequencer: processCpuSeconds(pids.sequencer),
    gateway: processCpuSeconds(pids.gateway),
    projector: pids.projector ? processCpuSeconds(pids.projector) : 0,
    postgres: treeCpuSeconds(o.postmaster),
  });
  const before = cpu();
  const t0 = performance.now();
  let next = 0;
  let accepted = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      for (let i = next++; i < fills.length; i = next++) {
        const res = await o.gateway('POST', '/orders/fill/v2', fills[i]);
        if (res.status === 200) accepted++;
        else if (accepted === 0 && i < inFlight) console.log(`fill refused: ${res.status} ${res.body.slice(0, 300)}`);
      }
    }),
  );
  const filledIn = (performance.now() - t0) / 1000;
  // Settled: the replica covers what the journal held once the fills were in, and holds none pending.
  for (;;) {
    const journal = await gauge(o.admin, 'oddex_journal_position');
    if ((await gauge(settlementMetrics, 'oddex_settlement_position')) >= journal && (await gauge(settlementMetrics, 'oddex_settlement_pending_fills')) === 0) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const settledIn = (performance.now() - t0) / 1000;
  const after = cpu();
  const perFill = (k: keyof typeof before) => (((after[k] - before[k]) * 1000) / accepted).toFixed(3);
  console.log(
    `fills: ${accepted} of ${fillCount} accepted in ${filledIn.toFixed(1)} s (${Math.round(accepted / filledIn)}/s, ${inFlight} in flight, one gateway), all settled ${settledIn.toFixed(1)} s after the first; ` +
      `CPU ms per fill: settlement process ${perFill('settlement')}, sequencer ${perFill('sequencer')}, gateway ${perFill('gateway')}, ` +
      (pids.projector ? `projector process ${perFill('projector')}, ` : '') +
      `PostgreSQL ${perFill('postgres')}; load ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]}`,
  );
}
