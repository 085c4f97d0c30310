// Restart and read cost against history length. For each size it builds a data dir of N journaled commands (most
// trades in settled markets, plus open orders resting in unsettled ones) straight through the engine and the store,
// with the catalogue's records of its markets (an exchange lists every market it trades),
// then starts the real server on it and prints: restart time, RSS after restart (next to an empty exchange's), and
// p50/p99 of GET /trades?bettor= and GET /trades/consolidated for one busy bettor.
//
//   npx tsx bench/history.ts [sizes=10000,100000,1000000] [openOrders=10000] [keepDir]
// With `keepDir`, each history is built once into keepDir/<size>-<openOrders> and reused by later runs (a 1M build
// takes minutes); without it each run builds into a temporary dir and removes it. ODDEX_NODE_ARGS (e.g. --trace-gc)
// is passed to the server. Each read also prints the server's CPU per request (from /proc), which the client's own
// work and the other processes on the machine do not inflate, the share of its replies the server's own duration
// histogram counted within 10 ms (the client's p99 adds this machine's scheduling of both processes and the
// transfer), and the load average and host CPU steal while it ran.
// Reads are timed once the restarted server is quiet (its threads done starting: `untilQuiet`), each sampled 1,000
// times after 200 untimed ones (earlier runs: 200 after 20, which timed V8's optimising of the route as well).
// With ODDEX_BENCH_STORES=postgres each history is also written to a database of a throw-away PostgreSQL cluster and
// the same figures are printed for an exchange on it, beside SQLite's. Restart is measured at a second start, after
// a first one projected the read models of the built journal and stopped cleanly, on both stores. With
// ODDEX_BENCH_POSTGRES_URL=postgres://…/postgres (a running server) and `keepDir`, each PostgreSQL history is kept
// in a database of that server, oddex_history_<size>_<openOrders>, and reused by later runs.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.js';
import { Engine } from '../src/engine/engine.js';
import type { Command, MarketRef } from '../src/engine/types.js';
import { openDatabase } from '../src/store/sqlite/db.js';
import { SqliteTradingStore } from '../src/store/sqlite/trading-store.js';
import { PostgresTradingStore } from '../src/store/postgres/trading-store.js';
import { PostgresCatalogueRecords } from '../src/store/postgres/catalogue-records.js';
import { SqliteCatalogueRecords } from '../src/catalogue/store.js';
import { FixtureStatus, reportedDate, type CatalogueSeed, type Fixture, type StoredMarket } from '../src/store/catalogue-records.js';
import { fmt, httpClient, machineConditions, percentiles, processCpuSeconds, untilQuiet } from './lib.js';
import type { JournalEntry } from '../src/store/ports.js';
import type { EngineSnapshot } from '../src/engine/snapshot.js';
import pg from 'pg';
import { startPostgres } from '../test/helpers/postgres.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const USDC = 1_000_000n;
const E18 = 10n ** 18n;
const PARTIES = 20;
const ROUNDS_PER_MARKET = 50;
/**
 * Each read is timed this many times, after this many untimed ones: a long-running exchange answers with optimised
 * code and warm caches, and a p99 of 1,000 samples is not its second-worst sample.
 */
const SAMPLES = 1000;
const WARM_UP = 200;
/** The history's markets are moneylines (two outcomes, no line). */
const MONEYLINE = 226;
const hex = (prefix: string, i: number) => '0x' + prefix + i.toString(16).padStart(63 - prefix.length + 1, '0');
const address = (prefix: string, i: number) => '0x' + prefix + i.toString(16).padStart(39, '0');
const makers = Array.from({ length: PARTIES }, (_, i) => address('a', i));
const takers = Array.from({ length: PARTIES }, (_, i) => address('b', i));

/** Where a history is written: the journal in groups, the catalogue's records of its markets, then a snapshot of the final state. */
interface HistoryStore {
  commit(entries: readonly JournalEntry[]): Promise<number>;
  catalogue(seed: CatalogueSeed): Promise<void>;
  finish(seq: number, state: EngineSnapshot): Promise<void>;
}

/** A data dir's SQLite store, or a PostgreSQL database's when `target` is a postgres:// URL. */
async function historyStore(target: string): Promise<HistoryStore> {
  if (target.startsWith('postgres://')) {
    const store = await PostgresTradingStore.open({ connectionString: target, holder: 'bench/history.ts build' });
    return {
      catalogue: async (seed) => {
        const pool = new pg.Pool({ connectionString: target, max: 1 });
        await (await PostgresCatalogueRecords.open(pool)).addAll(seed);
        await pool.end();
      },
      commit: async (entries) => {
        const seq = store.commit(entries);
        await store.sync();
        return seq;
      },
      finish: async (seq, state) => {
        store.snapshots.write(seq, state, Date.now());
        await store.sync();
        await store.close();
      },
    };
  }
  const db = openDatabase(target);
  const store = new SqliteTradingStore(db);
  return {
    commit: (entries) => Promise.resolve(store.commit(entries)),
    catalogue: (seed) => new SqliteCatalogueRecords(db).addAll(seed),
    finish: (seq, state) => {
      store.snapshots.write(seq, state, Date.now());
      db.close();
      return Promise.resolve();
    },
  };
}

/**
 * Builds the history in the data dir `dir`, or the database `target` names: rounds of post, fill and confirm per
 * market, each market reported after 50 rounds.
 */
async function build(commands: number, openOrders: number, dir: string, target: string): Promise<void> {
  const config = loadConfig({}, [], { dataDir: dir, demo: false, logLevel: 'silent' });
  const store = await historyStore(target);
  const params = {
    oddsLadderStepSize: config.oddsLadderStepSize,
    makerMinimum: config.makerMinimum,
    takerMinimum: config.takerMinimum,
    cancelMaxSkewSeconds: config.cancelMaxSkewSeconds,
    baseToken: config.baseTokenAddress,
    affiliate: config.exchangeAffiliate,
    restrictionWindowMs: config.restriction.windowMs,
    restrictionThreshold: config.restriction.threshold,
    restrictionMs: config.restriction.durationMs,
  };
  const engine = new Engine(params);
  const expiry = Math.floor(Date.now() / 1000) + 30 * 86_400;
  let at = Date.now() - commands * 2;
  let batch: JournalEntry[] = [];
  let written = 0;
  let lastSeq = 0;
  // Groups of 2,000 are written one after the other while the engine runs the next ones, at most 4 groups ahead.
  let writing = Promise.resolve();
  let unwritten = 0;
  const run = async (cmd: Command) => {
    batch.push({ cmd, changes: engine.apply(cmd).changes });
    written++;
    if (batch.length < 2000) return;
    flush();
    if (unwritten > 4) await writing;
  };
  const flush = () => {
    const group = batch;
    batch = [];
    if (group.length === 0) return;
    unwritten++;
    writing = writing.then(async () => {
      lastSeq = await store.commit(group);
      unwritten--;
    });
  };
  const order = (i: number, market: MarketRef, maker: string, size: bigint, one: boolean) => ({
    orderHash: hex('d', i),
    marketHash: market.marketHash,
    maker,
    baseToken: config.baseTokenAddress,
    executor: config.executorAddress,
    totalBetSize: size,
    percentageOdds: 50n * E18,
    expiry,
    apiExpiry: expiry,
    salt: String(i),
    isMakerBettingOutcomeOne: one,
    signature: '0x',
  });

  for (const a of [...makers, ...takers]) await run({ kind: 'faucet', at: (at += 2), address: a, amount: 10n ** 12n * USDC });
  const openMarket: MarketRef = { marketHash: hex('e', 0), exchangeEventId: 'open', tradeable: true };
  // The catalogue's records of every market traded, as an exchange that listed them holds them: a fixture each, the
  // history's ones finished and their markets settled, the open market's ahead.
  const fixtureOf = (exchangeEventId: string, atMs: number): Fixture => ({ exchangeEventId, leagueId: 1, teamOneId: 1, teamTwoId: 2, gameTime: Math.floor(atMs / 1000), status: FixtureStatus.NOT_STARTED });
  const marketOf = (m: MarketRef): StoredMarket => ({ marketHash: m.marketHash, exchangeEventId: m.exchangeEventId, type: MONEYLINE, status: 'ACTIVE', liveEnabled: false });
  const fixtures: Fixture[] = [fixtureOf(openMarket.exchangeEventId, expiry * 1000)];
  const markets: StoredMarket[] = [marketOf(openMarket)];
  const historyBudget = commands - openOrders / 100 - 2 * PARTIES;
  let orderIndex = 0;
  for (let m = 1; written < historyBudget; m++) {
    const market: MarketRef = { marketHash: hex('f', m), exchangeEventId: `ev${m}`, tradeable: true };
    for (let r = 0; r < ROUNDS_PER_MARKET && written < historyBudget; r++) {
      const k = orderIndex++;
      const maker = makers[k % PARTIES]!;
      const taker = takers[(k >> 3) % PARTIES]!;
      await run({ kind: 'postOrders', at: (at += 2), orders: [order(k, market, maker, 2n * USDC, k % 2 === 0)], markets: [market] });
      const fillHash = hex('c', k);
      await run({
        kind: 'fill',
        at: (at += 2),
        fillHash,
        market,
        taker,
        baseToken: config.baseTokenAddress,
        isTakerBettingOutcomeOne: k % 2 !== 0,
        stakeWei: 2n * USDC,
        desiredOdds: 50n * E18,
        oddsSlippage: 0,
        fillSalt: String(k),
      });
      await run({ kind: 'confirmFill', at: (at += 2), fillHash });
    }
    const outcome = (m % 3) as 0 | 1 | 2;
    await run({ kind: 'reportMarkets', at: (at += 2), reports: [{ marketHash: market.marketHash, outcome }] });
    fixtures.push({ ...fixtureOf(market.exchangeEventId, at), status: FixtureStatus.FINISHED });
    markets.push({ ...marketOf(market), status: 'SETTLED', outcome, reportedDate: reportedDate(at) });
  }
  // Open orders rest in an unsettled market, 100 per command.
  for (let i = 0; i < openOrders; i += 100) {
    const orders = Array.from({ length: Math.min(100, openOrders - i) }, (_, j) =>
      order(1_000_000_000 + i + j, openMarket, makers[(i + j) % PARTIES]!, 10n * USDC, true),
    );
    await run({ kind: 'postOrders', at: (at += 2), orders, markets: [openMarket] });
  }
  flush();
  await writing;
  await store.catalogue({
    sports: [{ sportId: 1, label: 'Soccer' }],
    leagues: [{ leagueId: 1, sportId: 1, label: 'Bench league', active: true }],
    teams: [{ teamId: 1, sportId: 1, name: 'Home' }, { teamId: 2, sportId: 1, name: 'Away' }],
    fixtures,
    markets,
    liveScores: [],
  });
  // What a clean stop leaves behind: a snapshot of the final state.
  await store.finish(lastSeq, engine.snapshot());
  console.log(JSON.stringify({ commands: written, trades: engine.stats().trades, openOrders: engine.openOrderCount() }));
}

/**
 * Starts the server on `dir` (and the database `env` may name) in a child process; resolves once it listens. Its log
 * (a JSON line per request at info) goes to a file, as under a process manager: this process reading it would wake
 * on every request, on the same two cores as the server it times. With --trace-gc in ODDEX_NODE_ARGS the log comes
 * through a pipe instead, and GC lines are printed beside the reads.
 */
function startServer(dir: string, env: Record<string, string> = {}): Promise<{ url: string; pid: number; ms: number; rebuildMs: number; stop: () => void; stopCleanly: () => Promise<void> }> {
  const started = performance.now();
  const nodeArgs = process.env.ODDEX_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const passOn = nodeArgs.some((a) => a.startsWith('--trace-gc'));
  const logFile = join(tmpdir(), `oddex-history-server-${process.pid}-${++serversStarted}.log`);
  const logFd = passOn ? undefined : openSync(logFile, 'w');
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, ODDEX_DATA_DIR: dir, ODDEX_PORT: '0', ODDEX_HOST: '127.0.0.1', ODDEX_LOG_LEVEL: 'info', ODDEX_DEMO: 'false', ODDEX_RATE_LIMITS: 'false', ODDEX_ADMIN_TOKEN: 'bench', ...env },
    stdio: ['ignore', logFd ?? 'pipe', 'inherit'],
  });
  if (logFd !== undefined) closeSync(logFd);
  let rebuildMs = NaN;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      rmSync(logFile, { force: true });
      resolve();
    }),
  );
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
    let listening = false;
    const onLine = (line: string) => {
      if (passOn && !line.startsWith('{')) console.log(`  [server] ${line}`);
      const rebuilt = /"rebuildMs":(\d+)/.exec(line);
      if (rebuilt) rebuildMs = Number(rebuilt[1]);
      const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(line);
      if (m && !listening) {
        listening = true;
        resolve({
          url: m[1]!, pid: child.pid!, ms: performance.now() - started, rebuildMs,
          stop: () => child.kill('SIGKILL'),
          stopCleanly: () => (child.kill('SIGTERM'), exited),
        });
      }
    };
    if (passOn) {
      createInterface({ input: child.stdout! }).on('line', onLine);
      return;
    }
    // The log file is read until the server listens, then left to it.
    const poll = setInterval(() => {
      if (listening || child.exitCode !== null) return clearInterval(poll);
      for (const line of readFileSync(logFile, 'utf8').split('\n')) if (!listening) onLine(line);
    }, 10);
  });
}
let serversStarted = 0;

async function rssMb(call: ReturnType<typeof httpClient>): Promise<number> {
  const text = (await call('GET', '/metrics')).body;
  const m = /^oddex_process_(?:process_)?resident_memory_bytes (\S+)/m.exec(text);
  return m ? Number(m[1]) / 1_048_576 : NaN;
}

/**
 * How many 200 replies of a route the server's own duration histogram (GET /metrics) has counted, and how many of
 * them it finished within 10 ms: the time from the request's arrival to its reply's last byte handed to the socket.
 */
async function handledWithin10ms(call: ReturnType<typeof httpClient>, route: string): Promise<{ all: number; within: number }> {
  const text = (await call('GET', '/metrics')).body;
  const bucket = (le: string) => {
    const m = new RegExp(`^oddex_http_request_duration_seconds_bucket\\{le="${le.replace('+', '\\+')}",method="GET",route="${route}",status="200"\\} (\\d+)`, 'm').exec(text);
    return m ? Number(m[1]) : 0;
  };
  return { all: bucket('+Inf'), within: bucket('0.01') };
}

async function timeReads(call: ReturnType<typeof httpClient>, serverPid: number, path: string, n = SAMPLES): Promise<string> {
  const route = path.split('?')[0]!;
  // Untimed warm-up: the first requests after start compile the route's code (V8 optimises a function only after it
  // ran many times, on a thread of its own whose CPU counts here) and fill the databases' page caches.
  for (let i = 0; i < WARM_UP; i++) await call('GET', path);
  const samples: number[] = [];
  const machine = machineConditions();
  const cpuBefore = processCpuSeconds(serverPid);
  const handledBefore = await handledWithin10ms(call, route);
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const res = await call('GET', path);
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.body.slice(0, 200)}`);
    samples.push(performance.now() - t);
  }
  const cpuMs = ((processCpuSeconds(serverPid) - cpuBefore) * 1000) / n;
  const handled = await handledWithin10ms(call, route);
  const within = (100 * (handled.within - handledBefore.within)) / (handled.all - handledBefore.all);
  const p = percentiles(samples);
  return (
    `p50 ${fmt(p.p50)}  p99 ${fmt(p.p99)}  max ${fmt(p.max)}  server CPU ${fmt(cpuMs)}/request, ${within.toFixed(1)}% handled ` +
    `within 10 ms by the server's clock  (${machineConditions(machine.jiffies).text})`
  );
}

function buildInChild(commands: number, openOrders: number, dir: string, target = dir): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/history.ts', 'build', String(commands), String(openOrders), dir, target], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.once('exit', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`build exited with ${code}`))));
  });
}

async function main(): Promise<void> {
  if (process.argv[2] === 'build') {
    await build(Number(process.argv[3]), Number(process.argv[4]), process.argv[5]!, process.argv[6] ?? process.argv[5]!);
    return;
  }
  const sizes = (process.argv[2] ?? '10000,100000,1000000').split(',').map(Number);
  const openOrders = Number(process.argv[3] ?? 10_000);
  const keepDir = process.argv[4];
  const postgres = process.env.ODDEX_BENCH_STORES === 'postgres' ? await postgresServer(keepDir) : undefined;

  const emptyDir = mkdtempSync(join(tmpdir(), 'oddex-history-empty-'));
  const empty = await startServer(emptyDir);
  await new Promise((r) => setTimeout(r, 500));
  const emptyRss = await rssMb(httpClient(empty.url));
  empty.stop();
  rmSync(emptyDir, { recursive: true, force: true });
  console.log(`empty exchange: process start to listening ${fmt(empty.ms)}, RSS ${emptyRss.toFixed(0)} MB`);

  for (const size of sizes) {
    const dir = keepDir ? join(keepDir, `${size}-${openOrders}`) : mkdtempSync(join(tmpdir(), 'oddex-history-'));
    const builtFile = join(dir, 'history-built.json');
    if (keepDir && existsSync(builtFile)) {
      console.log(`\n${size} commands: reusing ${dir} ${readFileSync(builtFile, 'utf8')}`);
    } else {
      if (keepDir) rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      const t = performance.now();
      const built = await buildInChild(size, openOrders, dir);
      if (keepDir) writeFileSync(builtFile, built);
      console.log(`\n${size} commands: built in ${((performance.now() - t) / 1000).toFixed(1)} s ${built}`);
    }
    await measure('SQLite', dir, {}, empty.ms, emptyRss);
    if (postgres) {
      const { url, built } = await postgres.database(`oddex_history_${size}_${openOrders}`);
      const pgDir = mkdtempSync(join(tmpdir(), 'oddex-history-pg-'));
      if (built) {
        console.log(`  reusing the PostgreSQL history in ${url}`);
      } else {
        const t = performance.now();
        await buildInChild(size, openOrders, pgDir, url);
        console.log(`  the same history written to PostgreSQL in ${((performance.now() - t) / 1000).toFixed(1)} s`);
      }
      await measure('PostgreSQL', pgDir, { ODDEX_DATABASE_URL: url }, empty.ms, emptyRss);
      rmSync(pgDir, { recursive: true, force: true });
    }
    if (!keepDir) rmSync(dir, { recursive: true, force: true });
  }
  await postgres?.stop();
}

/**
 * Where PostgreSQL histories go: the server ODDEX_BENCH_POSTGRES_URL names (a database per history, kept when
 * `keepDir` is given and reused when it holds a snapshot), or a throw-away cluster with a fresh database for each.
 */
async function postgresServer(keepDir: string | undefined): Promise<{ database(name: string): Promise<{ url: string; built: boolean }>; stop(): Promise<void> }> {
  const given = process.env.ODDEX_BENCH_POSTGRES_URL;
  if (!given) {
    const cluster = await startPostgres();
    return { database: async () => ({ url: await cluster.createDatabase(), built: false }), stop: () => cluster.stop() };
  }
  const admin = new pg.Client({ connectionString: given });
  await admin.connect();
  return {
    async database(name) {
      const url = new URL(given);
      url.pathname = `/${name}`;
      const exists = (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
      if (exists && keepDir) {
        const db = new pg.Client({ connectionString: url.toString() });
        await db.connect();
        const snapshots = await db.query("SELECT 1 FROM pg_tables WHERE tablename = 'snapshots'").then(async (t) =>
          t.rowCount === 1 ? (await db.query('SELECT count(*)::int AS n FROM snapshots')).rows[0].n : 0,
        );
        await db.end();
        if (snapshots > 0) return { url: url.toString(), built: true };
      }
      if (exists) await admin.query(`DROP DATABASE ${name}`);
      await admin.query(`CREATE DATABASE ${name}`);
      return { url: url.toString(), built: false };
    },
    stop: () => admin.end(),
  };
}

/**
 * Starts an exchange on a built history twice: the first start projects the read models of the built journal and
 * stops cleanly; the second is the restart measured, then its reads.
 */
async function measure(store: string, dir: string, env: Record<string, string>, emptyMs: number, emptyRss: number): Promise<void> {
  const first = await startServer(dir, env);
  await first.stopCleanly();
  console.log(`  ${store}: first start (projects the read models) listening after ${fmt(first.ms)}`);
  const server = await startServer(dir, env);
  const call = httpClient(server.url, 1);
  const settling = await untilQuiet(server.pid);
  console.log(`  ${store} restart: engine rebuilt in ${fmt(server.rebuildMs)} (process start to listening ${fmt(server.ms)}, empty ${fmt(emptyMs)}; busy starting its threads for ${fmt(settling)} more)`);
  console.log(`  RSS after restart: ${(await rssMb(call)).toFixed(0)} MB (empty: ${emptyRss.toFixed(0)} MB)`);
  const bettor = takers[0]!;
  console.log(`  GET /trades?bettor=                              ${await timeReads(call, server.pid, `/trades?bettor=${bettor}`)}`);
  console.log(`  GET /trades?bettor=&settled=false               ${await timeReads(call, server.pid, `/trades?bettor=${bettor}&settled=false`)}`);
  console.log(`  GET /trades/consolidated?bettor=&settled=false    ${await timeReads(call, server.pid, `/trades/consolidated?bettor=${bettor}&settled=false&page=0&perPage=50&sortAsc=false`)}`);
  console.log(`  GET /trades/consolidated?bettor=&settled=true     ${await timeReads(call, server.pid, `/trades/consolidated?bettor=${bettor}&settled=true&page=0&perPage=50&sortAsc=false`)}`);
  server.stop();
}

await main();
