// Soak: makers quoting both sides of several markets and takers filling both sides (so refunds are paid) against
// the real server process, for a fixed time, through the public HTTP API only. Every minute it prints fills/s,
// p99 fill and create latency, the server's RSS and heap, and its CPU per fill. RSS is also sampled every second, so
// the end names the figures the target needs: RSS right after 10k and 100k fills (or at the end, if the run stops
// earlier), its minimum and maximum over the run, and CPU per fill in the reporting interval of each mark.
// Usage: npx tsx bench/soak.ts [--minutes 10] [--max-fills N] [--makers 4] [--takers 4] [--markets 4]
//   [--heap-snapshots DIR]: heap snapshots of the server at 10k and 100k fills, written into DIR (for diagnosis: a
//   snapshot takes seconds and itself adds resident memory, so runs quoted for the target take none).
// The server's node flags come from ODDEX_NODE_ARGS, as in the tests (to compare V8 settings). One sample of RSS lands anywhere in V8's collection
// cycle, so the end also prints the median of the 30 s of samples up to each mark.
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { addressOf, signCancelAll, signFill } from '../src/protocol/signing.js';
import { httpClient, percentiles, processCpuSeconds, signedOrderBody, startBenchServer } from './lib.js';

const { values: args } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    makers: { type: 'string', default: '4' },
    takers: { type: 'string', default: '4' },
    markets: { type: 'string', default: '4' },
    'report-seconds': { type: 'string', default: '60' },
    'max-fills': { type: 'string', default: 'Infinity' },
    'heap-snapshots': { type: 'string' },
  },
});
const MINUTES = Number(args.minutes);
const MAKERS = Number(args.makers);
const TAKERS = Number(args.takers);
const MARKETS = Number(args.markets);
const REPORT_MS = Number(args['report-seconds']) * 1000;
const MAX_FILLS = Number(args['max-fills']);
const SNAPSHOT_DIR = args['heap-snapshots'] === undefined ? undefined : resolve(args['heap-snapshots']);
/** The fill counts whose RSS and CPU per fill the target compares. */
const MARKS = [10_000, 100_000];
/** The window before each mark whose median RSS is printed beside the mark's own sample. */
const MEDIAN_WINDOW_MS = 30_000;
const ADMIN = 'soak-admin';
const E18 = 10n ** 18n;
const USDC = 1_000_000n;
/** Maker odds: outcome one at 45%, outcome two at 50%; a taker gets the complement (55% and 50%). */
const MAKER_ODDS = { one: 45n * E18, two: 50n * E18 };

interface Metadata {
  executorAddress: string;
  chainId: number;
  EIP712FillHasher: string;
  domainNames: { fill: string; cancelAll: string };
  addresses: Record<string, { USDC: string }>;
}

if (SNAPSHOT_DIR) {
  mkdirSync(SNAPSHOT_DIR, { recursive: true });
  process.env.ODDEX_NODE_ARGS = `${process.env.ODDEX_NODE_ARGS ?? ''} --heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${SNAPSHOT_DIR}`;
}
const { server, stop } = await startBenchServer(ADMIN, { ODDEX_DELAY_PREGAME_MS: '0', ODDEX_CHAIN_CONFIRM_MS: '200' });
const request = httpClient(server.url, 32);
/** A call's status and `data`, or for a failure the whole envelope (errorCode, message) in `data`. */
async function call<T>(method: string, path: string, body?: unknown, admin = false): Promise<{ status: number; data: T }> {
  const res = await request(method, path, body, admin ? { authorization: `Bearer ${ADMIN}` } : {});
  const parsed = JSON.parse(res.body) as { data?: T };
  return { status: res.status, data: res.status === 200 ? (parsed.data as T) : (parsed as T) };
}

/** The server's resident set (bytes) and CPU seconds so far, from /proc. */
function serverProcess(): { rss: number; cpuSeconds: number } {
  const status = readFileSync(`/proc/${server.child.pid}/status`, 'utf8');
  const rss = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
  return { rss, cpuSeconds: processCpuSeconds(server.child.pid!) };
}
/** The server's memory by part, from its /metrics: V8 heap in use and committed, new space committed, external. */
async function serverHeap(): Promise<{ used: number; total: number; newSpace: number; external: number }> {
  const text = (await request('GET', '/metrics')).body;
  const gauge = (pattern: string) => Number(new RegExp(`^oddex_process_nodejs_${pattern} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return {
    used: gauge('heap_size_used_bytes'),
    total: gauge('heap_size_total_bytes'),
    newSpace: gauge('heap_space_size_total_bytes\\{space="new"\\}'),
    external: gauge('external_memory_bytes'),
  };
}
/** The server's resident memory split into anonymous (heaps, malloc) and file-backed pages, from /proc. */
function serverRollup(): { anon: number; file: number } {
  const text = readFileSync(`/proc/${server.child.pid}/smaps_rollup`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0) * 1024;
  return { anon: kb('Anonymous'), file: kb('Rss') - kb('Anonymous') };
}

const mb = (bytes: number) => (bytes / 1_048_576).toFixed(0) + ' MB';
const stats = { fills: 0, fillErrors: 0, creates: 0, createErrors: 0, fillMs: [] as number[], createMs: [] as number[] };
const errorSamples = new Map<string, number>();
const noteError = (what: string, status: number, body: unknown) => {
  const key = `${what} ${status} ${JSON.stringify(body).slice(0, 120)}`;
  errorSamples.set(key, (errorSamples.get(key) ?? 0) + 1);
};

try {
  const meta = (await call<Metadata>('GET', '/metadata')).data;
  const baseToken = meta.addresses[String(meta.chainId)]!.USDC;
  const fillDomain = { name: meta.domainNames.fill, version: '1.0', chainId: meta.chainId, verifyingContract: meta.EIP712FillHasher };
  const active = (await call<{ markets: { marketHash: string; liveEnabled: boolean }[] }>('GET', '/markets/active?pageSize=100&type=52')).data.markets;
  const markets = active.filter((m) => !m.liveEnabled).slice(0, MARKETS).map((m) => m.marketHash);
  if (markets.length < MARKETS) throw new Error(`only ${markets.length} pre-game markets`);
  const wallet = () => {
    const key = secp256k1.utils.randomSecretKey();
    return { key, address: addressOf(key) };
  };
  const makers = Array.from({ length: MAKERS }, wallet);
  const takers = Array.from({ length: TAKERS }, wallet);
  for (const w of [...makers, ...takers]) {
    await call('POST', '/admin/faucet', { address: w.address, amount: (10n ** 12n * USDC).toString() }, true);
  }

  const deadline = Date.now() + MINUTES * 60_000;
  const running = () => Date.now() < deadline && stats.fills < MAX_FILLS;

  /** A maker posts both sides of every market per round, and cancels all it has every 20 rounds. */
  async function maker(m: { key: Uint8Array; address: string }): Promise<void> {
    for (let round = 0; running(); round++) {
      if (round > 0 && round % 20 === 0) {
        const timestamp = Math.floor(Date.now() / 1000);
        const salt = '0x' + randomBytes(32).toString('hex');
        const domain = { name: meta.domainNames.cancelAll, version: '1.0', chainId: meta.chainId, salt };
        const signature = signCancelAll(domain, { timestamp: BigInt(timestamp) }, m.key);
        const res = await call('POST', '/orders/cancel/all', { signature, salt, maker: m.address, timestamp });
        if (res.status !== 200) noteError('cancel/all', res.status, res.data);
      }
      const expiry = Math.floor(Date.now() / 1000) + 3600;
      const orders = markets.flatMap((marketHash) =>
        ([true, false] as const).map((one) => {
          const fields = {
            marketHash,
            baseToken,
            totalBetSize: 40n * USDC,
            percentageOdds: one ? MAKER_ODDS.one : MAKER_ODDS.two,
            expiry: BigInt(expiry),
            salt: BigInt('0x' + randomBytes(32).toString('hex')),
            maker: m.address,
            executor: meta.executorAddress,
            isMakerBettingOutcomeOne: one,
          };
          return signedOrderBody(fields, m.key).body;
        }),
      );
      const t0 = performance.now();
      const res = await call<{ statuses: Record<string, string> }>('POST', '/orders/new', { orders });
      stats.createMs.push(performance.now() - t0);
      if (res.status === 200) stats.creates += Object.values(res.data.statuses).filter((s) => s === 'OK').length;
      else {
        stats.createErrors++;
        noteError('orders/new', res.status, res.data);
      }
      await sleep(250);
    }
  }

  /** A taker fills both sides of every market in turn: holding both sides of a market earns refunds. */
  async function taker(t: { key: Uint8Array; address: string }, index: number): Promise<void> {
    for (let i = index; running(); i++) {
      const marketHash = markets[i % markets.length]!;
      const one = Math.floor(i / markets.length) % 2 === 0;
      const fill = {
        market: marketHash,
        baseToken,
        stakeWei: 2n * USDC,
        // Taker odds are the complement of the maker's on the other side.
        desiredOdds: one ? 100n * E18 - MAKER_ODDS.two : 100n * E18 - MAKER_ODDS.one,
        oddsSlippage: 5,
        isTakerBettingOutcomeOne: one,
        fillSalt: BigInt('0x' + randomBytes(32).toString('hex')),
      };
      const body = {
        ...fill,
        stakeWei: fill.stakeWei.toString(),
        desiredOdds: fill.desiredOdds.toString(),
        fillSalt: fill.fillSalt.toString(),
        taker: t.address,
        takerSig: signFill(fillDomain, fill, t.key),
      };
      const t0 = performance.now();
      const res = await call('POST', '/orders/fill/v2', body);
      if (res.status === 200) {
        stats.fills++;
        stats.fillMs.push(performance.now() - t0);
      } else {
        stats.fillErrors++;
        noteError('fill/v2', res.status, res.data);
        await sleep(50); // the book is empty on that side for now: let the makers refill it
      }
    }
  }

  console.log(
    `soak: ${MAKERS} makers, ${TAKERS} takers, ${markets.length} markets, ${MINUTES} min; server pid ${server.child.pid}`,
  );
  console.log(
    '   min | fills | fills/s | fill p99 | create p99 | fill errors | RSS | heap used | heap total | new space | external | anon | server CPU/fill',
  );
  const started = Date.now();
  let last = { at: started, fills: 0, cpu: serverProcess().cpuSeconds };
  /** RSS once a mark's fill count is passed (first 1 s sample after it), and CPU per fill of the interval holding it. */
  const marks = new Map<number, { fills: number; rss: number; at: number }>();
  const cpuPerFillAt = new Map<number, number>();
  const rssRange = { min: Infinity, max: 0 };
  let lastSample = { fills: 0, rss: 0 };
  /** Every 1 s sample, for the median around each mark (about 60 a minute: a 16-minute run keeps under 1,000). */
  const samples: { at: number; rss: number }[] = [];
  const sampleRss = async () => {
    // Samples once more after the run stops: a run cut at --max-fills still gets its last mark.
    for (;;) {
      const { rss } = serverProcess();
      lastSample = { fills: stats.fills, rss };
      samples.push({ at: Date.now(), rss });
      for (const mark of MARKS) if (stats.fills >= mark && !marks.has(mark)) marks.set(mark, { fills: stats.fills, rss, at: Date.now() });
      // The range counts from the first mark: before it the heap is still growing to its working size.
      if (marks.size > 0) {
        rssRange.min = Math.min(rssRange.min, rss);
        rssRange.max = Math.max(rssRange.max, rss);
      }
      if (SNAPSHOT_DIR) await snapshotAtMarks();
      if (!running()) break;
      await sleep(1000);
    }
  };
  const snapshotsTaken = new Set<number>();
  const snapshotAtMarks = async () => {
    for (const mark of marks.keys()) {
      if (snapshotsTaken.has(mark)) continue;
      snapshotsTaken.add(mark);
      const before = new Set(readdirSync(SNAPSHOT_DIR!));
      server.child.kill('SIGUSR2');
      // The server writes the snapshot synchronously on its main thread; wait until the file appears and stops growing.
      for (let size = -1; ; await sleep(2000)) {
        const added = readdirSync(SNAPSHOT_DIR!).filter((f) => !before.has(f) && f.endsWith('.heapsnapshot'));
        if (added.length === 0) continue;
        const now = statSync(resolve(SNAPSHOT_DIR!, added[0]!)).size;
        if (now === size && now > 0) {
          console.log(`heap snapshot at ${stats.fills} fills (mark ${mark}): ${resolve(SNAPSHOT_DIR!, added[0]!)}`);
          break;
        }
        size = now;
      }
    }
  };
  const reporter = async () => {
    // Reports at every interval, and once more for the last partial one when the run stops.
    for (let minute = 1; ; minute++) {
      while (running() && Date.now() < started + minute * REPORT_MS) await sleep(Math.min(1000, started + minute * REPORT_MS - Date.now()));
      const now = Date.now();
      const proc = serverProcess();
      const heap = await serverHeap();
      const rollup = serverRollup();
      const fills = stats.fills - last.fills;
      const cpuPerFill = fills > 0 ? ((proc.cpuSeconds - last.cpu) * 1000) / fills : NaN;
      const fillP99 = percentiles(stats.fillMs).p99;
      const createP99 = percentiles(stats.createMs).p99;
      console.log(
        `${((now - started) / 60_000).toFixed(1).padStart(6)} | ${String(stats.fills).padStart(7)} | ${(fills / ((now - last.at) / 1000)).toFixed(0).padStart(7)} | ` +
          `${fillP99.toFixed(1).padStart(6)} ms | ${createP99.toFixed(1).padStart(7)} ms | ${String(stats.fillErrors).padStart(6)} | ` +
          `${mb(proc.rss).padStart(7)} | ${mb(heap.used).padStart(7)} | ${mb(heap.total).padStart(8)} | ${mb(heap.newSpace).padStart(6)} | ` +
          `${mb(heap.external).padStart(6)} | ${mb(rollup.anon).padStart(7)} | ${cpuPerFill.toFixed(2)} ms`,
      );
      stats.fillMs = [];
      stats.createMs = [];
      // By the mark's fill count, not by `marks`: the RSS sampler may record the last mark after this final report.
      for (const mark of MARKS) if (last.fills < mark && stats.fills >= mark) cpuPerFillAt.set(mark, cpuPerFill);
      last = { at: now, fills: stats.fills, cpu: proc.cpuSeconds };
      if (!running()) break;
    }
  };
  await Promise.all([...makers.map(maker), ...takers.map(taker), reporter(), sampleRss()]);

  console.log(`total: ${stats.fills} fills, ${stats.creates} orders accepted, ${stats.createErrors} refused order batches`);
  const first = marks.get(MARKS[0]!);
  if (first) {
    const second = marks.get(MARKS[1]!);
    const end = second ?? lastSample;
    const [firstCpu, endCpu] = MARKS.map((mark) => cpuPerFillAt.get(mark) ?? NaN) as [number, number];
    const pct = (a: number, b: number) => `${b >= a ? '+' : ''}${(((b - a) / a) * 100).toFixed(0)}%`;
    console.log(`RSS after ${first.fills} fills: ${mb(first.rss)}; CPU/fill in that interval ${firstCpu.toFixed(2)} ms`);
    console.log(
      `RSS ${second ? `after ${end.fills} fills` : `at the end (${end.fills} fills, before ${MARKS[1]})`}: ${mb(end.rss)} (${pct(first.rss, end.rss)})` +
        (second ? `; CPU/fill in that interval ${endCpu.toFixed(2)} ms (${pct(firstCpu, endCpu)})` : ''),
    );
    // One sample lands anywhere in V8's collection cycle (the old generation fills with garbage and is swept, moving
    // RSS by 100 MB within a minute), so the median of the samples just before each mark is printed beside it.
    const medianBefore = (at: number) => {
      const window = samples.filter((s) => s.at > at - MEDIAN_WINDOW_MS && s.at <= at).map((s) => s.rss).sort((a, b) => a - b);
      return window[Math.floor(window.length / 2)] ?? NaN;
    };
    const firstMedian = medianBefore(first.at);
    const endMedian = medianBefore(second?.at ?? samples[samples.length - 1]!.at);
    console.log(
      `median RSS of the 1 s samples in the ${MEDIAN_WINDOW_MS / 1000} s up to each mark: ${mb(firstMedian)} at ${MARKS[0]}, ` +
        `${mb(endMedian)} at ${second ? MARKS[1] : 'the end'} (${pct(firstMedian, endMedian)})`,
    );
    console.log(
      `RSS from ${MARKS[0]} fills to the end, 1 s samples: min ${mb(rssRange.min)}, max ${mb(rssRange.max)} ` +
        `(${pct(first.rss, rssRange.min)} / ${pct(first.rss, rssRange.max)} of the ${MARKS[0]} figure)`,
    );
  } else {
    console.log('fewer than 10k fills: run longer for the flatness figures');
  }
  for (const [what, n] of [...errorSamples].sort((a, b) => b[1] - a[1]).slice(0, 5)) console.log(`  ${n} x ${what}`);
} finally {
  await stop();
}
