// Journal group commits per second on PostgreSQL against SQLite, in one run on one machine. Groups are journal rows
// of real engine commands (faucets to fresh addresses) with their change records; each is made durable (SQLite: its
// WAL synced off the thread, as the exchange runs it; PostgreSQL: one transaction, synchronous_commit=on) before the
// next, as a lone client waiting on each would see it. Then the same through the engine runner with many callers at
// once, where a group gathers every command applied while the previous group was syncing.
// PostgreSQL is a throw-away local cluster (test/helpers/postgres.ts; fsync on), or ODDEX_BENCH_DATABASE_URL (an
// empty database) if set.
// Usage: npx tsx bench/journal-commit.ts [seconds per figure = 3] [group sizes = 1,10,100] [callers = 64]
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine } from '../src/engine/engine.js';
import type { Command } from '../src/engine/types.js';
import { PostgresTradingStore } from '../src/store/postgres/trading-store.js';
import { StoreBusyError, type JournalEntry, type TradingStore } from '../src/store/ports.js';
import { EngineRunner } from '../src/store/runner.js';
import { Checkpointer } from '../src/store/sqlite/checkpointer.js';
import { openDatabase, openTradingConnection } from '../src/store/sqlite/db.js';
import { SqliteTradingStore } from '../src/store/sqlite/trading-store.js';
import { walSyncOf } from '../src/store/sqlite/wal-sync.js';
import { defaultEngineParams, USDC } from '../test/helpers/engine-params.js';
import { startPostgres } from '../test/helpers/postgres.js';

const seconds = Number(process.argv[2] ?? 3);
const sizes = (process.argv[3] ?? '1,10,100').split(',').map(Number);
const callers = Number(process.argv[4] ?? 64);
const TOKEN = '0x00000000000000000000000000000000000000B1';

let address = 0;
const faucet = (): Command => ({ kind: 'faucet', at: 1000, address: '0x' + (++address).toString(16).padStart(40, '0'), amount: 10n * USDC });

/** Groups of `size` written and made durable one after the other for `seconds`. */
async function loneClient(store: TradingStore, size: number): Promise<number> {
  const engine = new Engine(defaultEngineParams(TOKEN));
  const end = performance.now() + seconds * 1000;
  let groups = 0;
  const start = performance.now();
  while (performance.now() < end) {
    const batch: JournalEntry[] = Array.from({ length: size }, () => {
      const cmd = faucet();
      return { cmd, changes: engine.apply(cmd).changes };
    });
    // A WAL checkpoint holds SQLite's lock for a moment: written again a millisecond later, as the runner does.
    for (;;) {
      try {
        store.commit(batch);
        break;
      } catch (err) {
        if (!(err instanceof StoreBusyError)) throw err;
        await new Promise((r) => setTimeout(r, 1));
      }
    }
    await store.sync();
    groups++;
  }
  return groups / ((performance.now() - start) / 1000);
}

/** `callers` callers each submitting a command as soon as its last one is answered, through the runner. */
async function throughRunner(store: TradingStore): Promise<{ commands: number; groups: number }> {
  let syncs = 0;
  const counted: TradingStore = {
    snapshots: store.snapshots,
    commit: (e) => store.commit(e),
    sync: () => (syncs++, store.sync()),
    syncNow: () => store.syncNow(),
    replay: (a) => store.replay(a),
    changesAfter: (a, l) => store.changesAfter(a, l),
  };
  const runner = new EngineRunner(counted, {
    createEngine: () => new Engine(defaultEngineParams(TOKEN)),
    projection: { position: Number.MAX_SAFE_INTEGER, enqueue: () => {}, flushNow: () => {}, flush: async () => {} },
    onStorageFailure: (err) => console.error(err),
    now: () => 1000,
    snapshotEveryCommands: 1e12,
    snapshotEveryMs: 1e12,
    busyRetry: { forMs: 1000, delayMs: 1 },
  });
  await runner.replay();
  const from = runner.durableSeq;
  const end = performance.now() + seconds * 1000;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (performance.now() < end) await runner.submit(faucet());
    }),
  );
  const s = (performance.now() - start) / 1000;
  return { commands: (runner.durableSeq - from) / s, groups: syncs / s };
}

async function figures(name: string, store: TradingStore): Promise<void> {
  for (const size of sizes) {
    const rate = await loneClient(store, size);
    console.log(`${name.padEnd(10)} lone client, groups of ${String(size).padStart(3)}: ${rate.toFixed(0).padStart(6)} groups/s ${(rate * size).toFixed(0).padStart(7)} commands/s`);
  }
  const r = await throughRunner(store);
  console.log(`${name.padEnd(10)} runner, ${callers} callers:       ${r.groups.toFixed(0).padStart(6)} groups/s ${r.commands.toFixed(0).padStart(7)} commands/s (${(r.commands / r.groups).toFixed(1)} a group)`);
}

const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');
console.log(`${seconds} s a figure; load average ${load()}`);

const dir = mkdtempSync(join(tmpdir(), 'oddex-journal-bench-'));
try {
  const main = openDatabase(dir);
  const db = openTradingConnection(dir);
  const wal = walSyncOf(db);
  const checkpointer = new Checkpointer(db, { onProblem: (err) => console.error(err) });
  await figures('SQLite', new SqliteTradingStore(db, wal));
  checkpointer.stop();
  wal.close();
  db.close();
  main.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const cluster = process.env.ODDEX_BENCH_DATABASE_URL ? undefined : await startPostgres();
try {
  const url = process.env.ODDEX_BENCH_DATABASE_URL ?? (await cluster!.createDatabase());
  const store = await PostgresTradingStore.open({ connectionString: url, holder: 'bench' });
  await figures('PostgreSQL', store);
  await store.close();
} finally {
  await cluster?.stop();
}
console.log(`load average at the end ${load()}`);
