// What a group commit costs the writer thread, in one run on one disk: the design before (the trading store commits
// on a synchronous=FULL connection, so the thread waits for the WAL's sync inside every commit) against the pipeline
// (a synchronous=NORMAL commit on the thread, the WAL sync on libuv's pool while the next group is written). Groups
// are journal rows of real engine commands (faucets) with their change records. Prints the writer thread's time per
// group (p50/p99), the total time it was held, and groups per second with one client waiting on each group.
// Usage: npx tsx bench/commit.ts [groups = 2000] [commands per group = 4]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, openTradingConnection } from '../src/store/sqlite/db.js';
import { SqliteTradingStore } from '../src/store/sqlite/trading-store.js';
import { walSyncOf } from '../src/store/sqlite/wal-sync.js';
import { Checkpointer } from '../src/store/sqlite/checkpointer.js';
import { Engine } from '../src/engine/engine.js';
import { defaultEngineParams, USDC } from '../test/helpers/engine-params.js';
import type { Command } from '../src/engine/types.js';
import { fmt, percentiles, ratio } from './lib.js';
import type { JournalEntry } from '../src/store/ports.js';

const [groups = 2000, perGroup = 4] = process.argv.slice(2).map(Number);
const TOKEN = '0x00000000000000000000000000000000000000B1';

/** Journal entries of faucets to fresh addresses: one journal row and one wallet change each. */
function entries(engine: Engine, start: number): JournalEntry[] {
  return Array.from({ length: perGroup }, (_, k) => {
    const cmd: Command = { kind: 'faucet', at: 1000, address: '0x' + (start + k + 1).toString(16).padStart(40, '0'), amount: 10n * USDC };
    return { cmd, changes: engine.apply(cmd).changes };
  });
}

interface Figures {
  threadMs: number[];
  groupsPerSecond: number;
}

/**
 * Writes `groups` groups one after the other through `commitGroup`, timing the part that holds the writer thread;
 * waits for the promise it may return (the group's durability) before the next group, as a lone client would.
 */
async function timeGroups(commitGroup: (batch: JournalEntry[]) => Promise<void> | undefined): Promise<Figures> {
  const engine = new Engine(defaultEngineParams(TOKEN));
  const threadMs: number[] = [];
  const start = performance.now();
  for (let g = 0; g < groups; g++) {
    const batch = entries(engine, g * perGroup);
    const t0 = performance.now();
    const durable = commitGroup(batch);
    threadMs.push(performance.now() - t0);
    await durable;
  }
  return { threadMs, groupsPerSecond: groups / ((performance.now() - start) / 1000) };
}

/** Before: every commit syncs on the writer thread. */
async function fullCommits(dir: string): Promise<Figures> {
  const db = openDatabase(dir);
  const store = new SqliteTradingStore(db);
  const figures = await timeGroups((batch) => {
    store.commit(batch);
    return undefined;
  });
  db.close();
  return figures;
}

/** After: the commit is written on the thread and synced off it (WAL checkpoints on their own thread too). */
async function pipelinedCommits(dir: string): Promise<Figures> {
  const main = openDatabase(dir);
  const db = openTradingConnection(dir);
  const wal = walSyncOf(db);
  const checkpointer = new Checkpointer(db, { onProblem: (err) => console.error(err) });
  const store = new SqliteTradingStore(db, wal);
  const figures = await timeGroups((batch) => {
    store.commit(batch);
    return store.sync();
  });
  checkpointer.stop();
  wal.close();
  db.close();
  main.close();
  return figures;
}

const line = (name: string, f: Figures) => {
  const p = percentiles(f.threadMs);
  const busy = f.threadMs.reduce((a, b) => a + b, 0) / 1000;
  return `${name} writer thread per group p50 ${fmt(p.p50)}  p99 ${fmt(p.p99)}  max ${fmt(p.max)}; ${Math.round(f.groupsPerSecond)} groups/s; thread held ${busy.toFixed(2)} s`;
};

const dirs = [0, 1].map(() => mkdtempSync(join(tmpdir(), 'oddex-commit-bench-')));
try {
  console.log(`${groups} groups of ${perGroup} faucet commands, each group waited on before the next (one client)`);
  const before = await fullCommits(dirs[0]!);
  const after = await pipelinedCommits(dirs[1]!);
  console.log(line('synchronous=FULL commit on the thread', before));
  console.log(line('NORMAL commit + WAL sync off the thread', after));
  const p = (f: Figures) => percentiles(f.threadMs);
  console.log(`ratio after / before: thread p50 ${ratio(p(after).p50, p(before).p50)}, p99 ${ratio(p(after).p99, p(before).p99)}; groups/s ${ratio(after.groupsPerSecond, before.groupsPerSecond)}`);
} finally {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}
