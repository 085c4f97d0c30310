// Soak: makers quoting both sides of several markets and takers filling both sides (so refunds are paid) against
// the real server process, for a fixed time, through the public HTTP API only. Every minute it prints fills/s,
// p99 fill and create latency, the server's RSS and heap, and its CPU per fill; at the end, RSS and CPU per fill
// after 10k fills against the last minute, the figures that must stay flat.
// Usage: npx tsx bench/soak.ts [--minutes 10] [--makers 4] [--takers 4] [--markets 4]
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { addressOf, signCancelAll, signFill } from '../src/sdk/signing.js';
import { httpClient, percentiles, processCpuSeconds, signedOrderBody, startBenchServer } from './lib.js';

const { values: args } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    makers: { type: 'string', default: '4' },
    takers: { type: 'string', default: '4' },
    markets: { type: 'string', default: '4' },
    'report-seconds': { type: 'string', default: '60' },
  },
});
const MINUTES = Number(args.minutes);
const MAKERS = Number(args.makers);
const TAKERS = Number(args.takers);
const MARKETS = Number(args.markets);
const REPORT_MS = Number(args['report-seconds']) * 1000;
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
/** The server's V8 heap: in use, and committed (what the heap holds of the RSS, garbage included). */
async function serverHeap(): Promise<{ used: number; total: number }> {
  const text = (await request('GET', '/metrics')).body;
  const gauge = (name: string) => Number(new RegExp(`^oddex_process_nodejs_heap_size_${name}_bytes (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return { used: gauge('used'), total: gauge('total') };
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
  const running = () => Date.now() < deadline;

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
  console.log('   min | fills | fills/s | fill p99 | create p99 | fill errors | RSS | heap used | heap total | server CPU/fill');
  const started = Date.now();
  let last = { at: started, fills: 0, cpu: serverProcess().cpuSeconds };
  let at10k: { rss: number; cpuPerFill: number } | undefined;
  let lastLine = { rss: 0, cpuPerFill: 0 };
  const reporter = (async () => {
    for (let minute = 1; running(); minute++) {
      await sleep(Math.max(0, started + minute * REPORT_MS - Date.now()));
      const now = Date.now();
      const proc = serverProcess();
      const heap = await serverHeap();
      const fills = stats.fills - last.fills;
      const cpuPerFill = fills > 0 ? ((proc.cpuSeconds - last.cpu) * 1000) / fills : NaN;
      const fillP99 = percentiles(stats.fillMs).p99;
      const createP99 = percentiles(stats.createMs).p99;
      console.log(
        `${((now - started) / 60_000).toFixed(1).padStart(6)} | ${String(stats.fills).padStart(7)} | ${(fills / ((now - last.at) / 1000)).toFixed(0).padStart(7)} | ` +
          `${fillP99.toFixed(1).padStart(6)} ms | ${createP99.toFixed(1).padStart(7)} ms | ${String(stats.fillErrors).padStart(6)} | ` +
          `${mb(proc.rss).padStart(7)} | ${mb(heap.used).padStart(7)} | ${mb(heap.total).padStart(8)} | ${cpuPerFill.toFixed(2)} ms`,
      );
      stats.fillMs = [];
      stats.createMs = [];
      lastLine = { rss: proc.rss, cpuPerFill };
      if (!at10k && stats.fills >= 10_000) at10k = lastLine;
      last = { at: now, fills: stats.fills, cpu: proc.cpuSeconds };
    }
  })();
  await Promise.all([...makers.map(maker), ...takers.map(taker), reporter]);

  console.log(`total: ${stats.fills} fills, ${stats.creates} orders accepted, ${stats.createErrors} refused order batches`);
  if (at10k) {
    const pct = (a: number, b: number) => `${(((b - a) / a) * 100).toFixed(0)}%`;
    console.log(
      `after 10k fills: RSS ${mb(at10k.rss)}, CPU/fill ${at10k.cpuPerFill.toFixed(2)} ms; at the end: RSS ${mb(lastLine.rss)} (${pct(at10k.rss, lastLine.rss)}), ` +
        `CPU/fill ${lastLine.cpuPerFill.toFixed(2)} ms (${pct(at10k.cpuPerFill, lastLine.cpuPerFill)})`,
    );
  } else {
    console.log('fewer than 10k fills: run longer for the flatness figures');
  }
  for (const [what, n] of [...errorSamples].sort((a, b) => b[1] - a[1]).slice(0, 5)) console.log(`  ${n} x ${what}`);
} finally {
  await stop();
}
