// The read-model projector's thread on PostgreSQL, as sqlite/projector-worker.ts is on SQLite: follows the journal
// from the read models' checkpoint, in batches, on connections of its own, and reports each batch's position to the
// writer's thread through shared memory and a message. The writer's thread tells it how far the journal has been
// acknowledged; it never waits for this thread. Building a batch's rows is JavaScript work that would otherwise
// share the writer's thread.
import { parentPort, workerData } from 'node:worker_threads';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FromProjector, ProjectorThreadData, ToProjector } from '../projector-thread.js';
import { openPool } from './pool.js';
import { JournalProjection } from './journal-projection.js';

const data = workerData as ProjectorThreadData;
if (data.store.kind !== 'postgres') throw new Error(`the PostgreSQL projector thread was given a ${data.store.kind} store`);
const port = parentPort!;
const shared = new BigInt64Array(data.position);
const post = (m: FromProjector) => port.postMessage(m);
const pool = openPool(data.store.databaseUrl, 2);
const projection = new JournalProjection(pool, data.maxBatch);

let target = 0;
let stopping = false;
/** The loop running now, if any: one at a time. */
let running: Promise<void> | undefined;

function share(position: number): void {
  Atomics.store(shared, 0, BigInt(position));
  Atomics.notify(shared, 0);
}

/** One batch after the checkpoint, up to `maxBatch` commands; false when the journal holds nothing more. */
async function projectBatch(): Promise<boolean> {
  // Whoever waits for a position the read models already cover learns it now, batch or not.
  if (projection.position === undefined) share(await projection.readPosition());
  const batch = await projection.next();
  if (!batch) return false;
  share(batch.position);
  post({ type: 'projected', position: batch.position, commands: batch.commands, ms: batch.ms });
  return true;
}

/** Projects until the read models reach the acknowledged position (or, stopping, the journal's end). */
async function follow(): Promise<void> {
  for (;;) {
    const position = projection.position;
    if (!stopping && position !== undefined && position >= target) return;
    if (data.delayMs > 0) await sleep(data.delayMs);
    try {
      if (!(await projectBatch())) return;
    } catch (err) {
      // Whether the failed batch committed is read again from the checkpoint.
      post({ type: 'problem', message: err instanceof Error ? err.message : String(err) });
      if (stopping) return;
      await sleep(data.retryMs);
    }
  }
}

function run(): void {
  running ??= follow().finally(() => {
    running = undefined;
    const position = projection.position;
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
