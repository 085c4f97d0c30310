// Shared benchmark helpers: percentiles and an open-loop driver that sends at a fixed rate whatever the latency.
import http from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type * as Secp256k1 from 'secp256k1';
import { spawnExchange, type ChildExchange } from '../test/helpers/process.js';
import { orderHash, type OrderHashFields } from '../src/protocol/hashing.js';
import { signOrder } from '../src/protocol/signing.js';
// Benches hash tens of thousands of orders up front: with the WebAssembly keccak, as the server does.
import '../src/protocol/keccak-wasm.js';
import { openDatabase, openTradingConnection, type Db } from '../src/store/sqlite/db.js';
import { SqliteTradingStore } from '../src/store/sqlite/trading-store.js';
import { checkpointAll, totalPages, walPagesByTree } from '../src/store/sqlite/wal-pages.js';
import type { JournalEntry } from '../src/store/ports.js';
import { FillWorkload } from '../test/helpers/fill-workload.js';
import { Engine } from '../src/engine/engine.js';
import { defaultEngineParams } from '../test/helpers/engine-params.js';

/**
 * A trading store on a fresh file database in a temporary dir, with the fill workload's makers and takers funded
 * (test/helpers/fill-workload.ts). `use` runs on it; then the connection is closed and the dir removed.
 */
export async function withFillWorkloadStore<T>(
  name: string,
  use: (s: { db: Db; store: SqliteTradingStore; workload: FillWorkload }) => T | Promise<T>,
): Promise<T> {
  const token = '0x00000000000000000000000000000000000000C1';
  const dir = mkdtempSync(join(tmpdir(), `oddex-${name}-`));
  try {
    openDatabase(dir).close();
    const db = openTradingConnection(dir);
    try {
      const store = new SqliteTradingStore(db);
      const workload = new FillWorkload(new Engine(defaultEngineParams(token)), token);
      store.commit(workload.funding());
      return await use({ db, store, workload });
    } finally {
      db.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Pages written to the WAL since the last call (exact: the WAL is checkpointed each time, so it starts afresh). */
export function walFrameCounter(db: Db): () => number {
  db.pragma('wal_autocheckpoint = 0');
  const frames = () => {
    const n = (db.pragma('wal_checkpoint(PASSIVE)') as { log: number }[])[0]!.log;
    checkpointAll(db);
    return n;
  };
  frames();
  return frames;
}

/** This process's CPU time (ms, user and system) spent in `work`. */
export function cpuMsOf(work: () => void): number {
  const t = process.cpuUsage();
  work();
  const d = process.cpuUsage(t);
  return (d.user + d.system) / 1000;
}

/**
 * Writes `fills` fills of the workload in groups of `perGroup` (per group: their orders, the fills, their
 * confirmations, each written by one call of `write`) and prints, per tenth of the run and in all, `who`'s CPU per
 * fill in those calls and the pages they wrote, then the pages of one more group by table and index.
 */
export function measureFillWrites(db: Db, workload: FillWorkload, fills: number, perGroup: number, who: string, write: (entries: JournalEntry[]) => void): void {
  const walFrames = walFrameCounter(db);
  const tenth = Math.max(perGroup, Math.floor(fills / 10));
  const total = { cpu: 0, pages: 0 };
  let part = { cpu: 0, pages: 0, fills: 0 };
  console.log(`${fills} fills in groups of ${perGroup}; per fill, ${who} CPU and pages written for its order, itself and its confirmation:`);
  for (let done = 0; done < fills; ) {
    const n = Math.min(perGroup, fills - done);
    // The engine applies the commands (not timed) before each write, as the writer does.
    let cpu = 0;
    for (const entries of [() => workload.orders(done, n), () => workload.fills(done, n), () => workload.confirmations(done, n)]) {
      const group = entries();
      cpu += cpuMsOf(() => write(group));
    }
    const pages = walFrames();
    part = { cpu: part.cpu + cpu, pages: part.pages + pages, fills: part.fills + n };
    total.cpu += cpu;
    total.pages += pages;
    done += n;
    if (part.fills >= tenth || done === fills) {
      console.log(`  fills ${String(done).padStart(7)}: ${who} CPU ${(part.cpu / part.fills).toFixed(3)} ms, ${(part.pages / part.fills).toFixed(1)} pages written`);
      part = { cpu: 0, pages: 0, fills: 0 };
    }
  }
  console.log(`all ${fills}: ${who} CPU ${(total.cpu / fills).toFixed(3)} ms, ${(total.pages / fills).toFixed(1)} pages written per fill`);
  console.log(`pages written by one more group of ${perGroup}, by table and index:`);
  for (const [label, entries] of [['orders', workload.orders], ['fills', workload.fills], ['confirmations', workload.confirmations]] as const) {
    write(entries.call(workload, fills, perGroup));
    const byTree = walPagesByTree(db);
    const top = [...byTree].sort((a, b) => b[1] - a[1]).map(([tree, n]) => `${tree} ${n}`);
    console.log(`  ${label}: ${totalPages(byTree)} pages: ${top.join(', ')}`);
  }
}

/** An order signed by `key` with its hash, and the body POST /orders/new takes (apiExpiry = expiry). */
export function signedOrderBody(fields: OrderHashFields, key: Uint8Array, sign: (fields: OrderHashFields, key: Uint8Array) => string = signOrder) {
  const expiry = Number(fields.expiry);
  return {
    hash: orderHash(fields),
    body: {
      ...fields,
      totalBetSize: fields.totalBetSize.toString(),
      percentageOdds: fields.percentageOdds.toString(),
      expiry,
      apiExpiry: expiry,
      salt: fields.salt.toString(),
      signature: sign(fields, key),
    },
  };
}

/**
 * The real server as a child process on a fresh data dir with the demo catalogue and no rate limits;
 * `stop` ends it and removes the dir.
 */
export async function startBenchServer(adminToken: string, env: Record<string, string> = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'oddex-bench-'));
  const server: ChildExchange = await spawnExchange({
    ODDEX_DATA_DIR: dataDir,
    ODDEX_ADMIN_TOKEN: adminToken,
    ODDEX_DEMO: 'true',
    ODDEX_RATE_LIMITS: 'false',
    ODDEX_LOG_LEVEL: 'warn',
    ...env,
  });
  const stop = async () => {
    server.child.kill('SIGTERM');
    await server.exited;
    rmSync(dataDir, { recursive: true, force: true });
  };
  return { server, stop };
}

/** CPU seconds (user + system) a process, or one of its threads, has used so far, from /proc. */
export function processCpuSeconds(pid: number, tid?: number): number {
  const fields = readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * Resolves once process `pid` is quiet: two consecutive 250 ms intervals in which it used at most 10 ms of CPU (its
 * threads done starting: signature workers, the projector), or after `boundMs`. Resolves to the ms waited. A read
 * timed while the server still starts up measures its start-up, not the read.
 */
export async function untilQuiet(pid: number, boundMs = 10_000): Promise<number> {
  const started = performance.now();
  let quiet = 0;
  let last = processCpuSeconds(pid);
  while (quiet < 2 && performance.now() - started < boundMs) {
    await new Promise((r) => setTimeout(r, 250));
    const now = processCpuSeconds(pid);
    quiet = now - last <= 0.01 ? quiet + 1 : 0;
    last = now;
  }
  return performance.now() - started;
}

/** The machine's CPU time so far (jiffies, all cores) and the part the hypervisor stole (8th field of /proc/stat). */
function hostCpuJiffies(): { total: number; steal: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
  return { total: fields.reduce((a, b) => a + b, 0), steal: fields[7] ?? 0 };
}

export function percentiles(samplesMs: number[]): { p50: number; p95: number; p99: number; max: number } {
  const s = [...samplesMs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99), max: s[s.length - 1] ?? NaN };
}

export const fmt = (ms: number) => ms.toFixed(2) + ' ms';

/**
 * Sends `count` requests at `ratePerSecond`, each timed from its scheduled start (so a slow server cannot hide
 * its queueing delay by slowing the sender). Returns latencies in ms and how many failed.
 */
export async function openLoop(
  count: number,
  ratePerSecond: number,
  send: (i: number) => Promise<boolean>,
): Promise<{ latencies: number[]; failures: number; seconds: number; maxInFlight: number }> {
  const latencies: number[] = [];
  let failures = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  const start = performance.now();
  const interval = 1000 / ratePerSecond;
  const inflight: Promise<void>[] = [];
  let next = 0;
  while (next < count) {
    // Send everything that is due, then yield so responses are read while the schedule runs.
    const due = Math.min(count, Math.floor((performance.now() - start) / interval) + 1);
    for (; next < due; next++) {
      const scheduled = start + next * interval;
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      inflight.push(
        send(next).then(
          (ok) => {
            inFlight--;
            if (!ok) failures++;
            latencies.push(performance.now() - scheduled);
          },
          () => {
            inFlight--;
            failures++;
          },
        ),
      );
    }
    await sleep(1);
  }
  await Promise.all(inflight);
  return { latencies, failures, seconds: (performance.now() - start) / 1000, maxInFlight };
}

/** A small keep-alive HTTP/1.1 client on node:http: far cheaper per request than fetch, so the load generator
 * takes less of the cores it shares with the server. */
export function httpClient(baseUrl: string, maxSockets = 64) {
  const url = new URL(baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets });
  return (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          method,
          path,
          agent,
          headers: payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers } : headers,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
}

/** `value / baseline` as "1.23x" (the way every bench relates a figure to the baseline measured in the same run). */
export const ratio = (value: number, baseline: number) => (baseline > 0 ? (value / baseline).toFixed(2) + 'x' : 'n/a');

/** p50/p95/p99 of `samples` with each one's ratio to the same percentile of `baseline`. */
export function percentilesVs(samplesMs: number[], baselineMs: number[]): string {
  const s = percentiles(samplesMs);
  const b = percentiles(baselineMs);
  return (['p50', 'p95', 'p99'] as const).map((q) => `${q} ${fmt(s[q])} (${ratio(s[q], b[q])})`).join('  ') + `  max ${fmt(s.max)}`;
}

/**
 * Runs `work` and reports the CPU a process used meanwhile: per operation and as cores busy over the wall time; the
 * share of it on the main (writer) thread, which bounds throughput whatever the other threads do; and the machine's
 * conditions: the share of CPU time the host stole and the load average at the end (this VM is shared).
 */
export async function measureCpu<T>(pid: number, ops: number, work: () => Promise<T>) {
  const cpuBefore = processCpuSeconds(pid);
  const mainBefore = processCpuSeconds(pid, pid);
  const hostBefore = hostCpuJiffies();
  const benchBefore = process.cpuUsage();
  const t0 = performance.now();
  const result = await work();
  const seconds = (performance.now() - t0) / 1000;
  const bench = process.cpuUsage(benchBefore);
  const cpu = processCpuSeconds(pid) - cpuBefore;
  const mainCpu = processCpuSeconds(pid, pid) - mainBefore;
  const hostAfter = hostCpuJiffies();
  const hostTotal = hostAfter.total - hostBefore.total;
  return {
    result,
    seconds,
    cpuMsPerOp: (cpu * 1000) / ops,
    mainThreadMsPerOp: (mainCpu * 1000) / ops,
    coresUsed: cpu / seconds,
    /** Cores this process (the load generator) kept busy: on a shared machine, what the server could not have. */
    benchCores: (bench.user + bench.system) / 1e6 / seconds,
    stealShare: hostTotal > 0 ? (hostAfter.steal - hostBefore.steal) / hostTotal : 0,
    loadAverage: Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]),
  };
}

/** The machine conditions of a measureCpu result, for a bench's output line. */
export const conditions = (m: { stealShare: number; loadAverage: number; benchCores?: number }) =>
  (m.benchCores === undefined ? '' : `load generator ${m.benchCores.toFixed(2)} cores, `) +
  `host steal ${(100 * m.stealShare).toFixed(1)}%, load ${m.loadAverage.toFixed(1)}`;

/**
 * Signs digests with the native libsecp256k1 addon: benches sign tens of thousands of orders up front, and the
 * pure-JS signer would take minutes. Same wire format as src/protocol/signing.ts (r || s || v, v = 27 or 28, low s).
 */
const nativeSecp = createRequire(import.meta.url)('secp256k1') as typeof Secp256k1;
export function signDigestNative(digest: Uint8Array, key: Uint8Array): string {
  const { signature, recid } = nativeSecp.ecdsaSign(digest, key);
  return '0x' + Buffer.from(signature).toString('hex') + (27 + recid).toString(16);
}

/** CPU jiffies of the whole machine from /proc/stat's first line: all of them and those stolen by the host. */
function machineJiffies(): { total: number; steal: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
  return { total: fields.reduce((a, b) => a + b, 0), steal: fields[7] ?? 0 };
}

/**
 * What else ran on the machine during a bench, to judge its figures by: the load average now, and the share of
 * CPU time the host stole since `since` (take `since` with `machineConditions()` before the runs).
 */
export function machineConditions(since?: { total: number; steal: number }): { text: string; jiffies: { total: number; steal: number } } {
  const now = machineJiffies();
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  const stolen = since && now.total > since.total ? `, ${((100 * (now.steal - since.steal)) / (now.total - since.total)).toFixed(1)}% of CPU stolen by the host since the start` : '';
  return { text: `load average ${load}${stolen}`, jiffies: now };
}

