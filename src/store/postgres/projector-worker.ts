// The read-model projector's thread on PostgreSQL, as sqlite/projector-worker.ts is on SQLite: follows the journal
// from the read models' checkpoint, in batches, on connections of its own, and reports each batch's position to the
// writer's thread through shared memory and a message. The writer's thread tells it how far the journal has been
// acknowledged; it never waits for this thread. Building a batch's rows is JavaScript work that would otherwise
// share the writer's thread.
import { parentPort, workerData } from 'node:worker_threads';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FromProjector, ProjectorThreadData, ToProjector } from '../projector-thread.js';
import type { ProjectedEntry } from '../ports.js';
import { openPool } from './pool.js';
import { PostgresProjector } from './projector.js';
import { journalChangesAfter } from './trading-store.js';

const data = workerData as ProjectorThreadData;
if (data.store.kind !== 'postgres') throw new Error(`the PostgreSQL projector thread was given a ${data.store.kind} store`);
const port = parentPort!;
const shared = new BigInt64Array(data.position);
const post = (m: FromProjector) => port.postMessage(m);
const pool = openPool(data.store.databaseUrl, 2);
const projector = new PostgresProjector(pool);

let position: number | undefined;
let target = 0;
let stopping = false;
/** The loop running now, if any: one at a time. */
let running: Promise<void> | undefined;

/** One batch after the checkpoint, up to `maxBatch` commands; false when the journal holds nothing more. */
async function projectBatch(): Promise<boolean> {
  if (position === undefined) {
    position = await projector.position();
    // Whoever waits for a position the read models already cover learns it now, batch or not.
    Atomics.store(shared, 0, BigInt(position));
    Atomics.notify(shared, 0);
  }
  const rows = await journalChangesAfter(pool, position, data.maxBatch);
  if (rows.length === 0) return false;
  // Positions have no gaps: a missing row was archived before these read models covered it (a restored backup of
  // the read models, say). Projecting on would skip its changes for good, so this refuses until it is restored.
  if (rows[0]!.seq !== position + 1) {
    throw new Error(`journal rows ${position + 1} to ${rows[0]!.seq - 1} are archived but not projected: restore them into the journal`);
  }
  const entries: ProjectedEntry[] = rows.map((r) => {
    if (!r.changes) throw new Error(`journal row ${r.seq} holds no change records: the exchange projects it at start-up`);
    return { seq: r.seq, at: r.at, changes: r.changes };
  });
  const started = performance.now();
  await projector.project([entries]);
  position = entries[entries.length - 1]!.seq;
  Atomics.store(shared, 0, BigInt(position));
  Atomics.notify(shared, 0);
  post({ type: 'projected', position, commands: entries.length, ms: performance.now() - started });
  return true;
}

/** Projects until the read models reach the acknowledged position (or, stopping, the journal's end). */
async function follow(): Promise<void> {
  for (;;) {
    if (!stopping && position !== undefined && position >= target) return;
    if (data.delayMs > 0) await sleep(data.delayMs);
    try {
      if (!(await projectBatch())) return;
    } catch (err) {
      // Whether the failed batch committed is read again from the checkpoint.
      position = undefined;
      post({ type: 'problem', message: err instanceof Error ? err.message : String(err) });
      if (stopping) return;
      await sleep(data.retryMs);
    }
  }
}

function run(): void {
  running ??= follow().finally(() => {
    running = undefined;
    if (!stopping && position !== undefined && position < target) run();
  });
}

port.on('message', (m: ToProjector) => {
  if (m.type === 'advance') {
    target = Math.max(target, m.through);
    run();
    return;
  }
  stopping = true;
  // Projects what was acknowledged before stopping, so a clean stop leaves the read models current.
  void (async () => {
    await running;
    await follow();
    Atomics.notify(shared, 0);
    await pool.end();
    port.close();
  })();
});
post({ type: 'loaded' });
