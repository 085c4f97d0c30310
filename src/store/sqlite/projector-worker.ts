// The read-model projector's thread: follows the journal from the read models' checkpoint, in batches, with its own
// connections (the journal read-only, the read models' database to write), and reports each batch's position to
// the writer's thread through shared memory and a message. The writer's thread tells it how far the journal has
// been acknowledged; it never waits for this thread.
import { parentPort, workerData } from 'node:worker_threads';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { DB_FILE, openReadModelsDatabase } from './db.js';
import { JournalReader } from './journal.js';
import { ReadModelProjector } from './projector.js';
import type { ProjectorThreadData, ToProjector, FromProjector } from '../projector-thread.js';

const data = workerData as ProjectorThreadData;
if (data.store.kind !== 'sqlite') throw new Error(`the SQLite projector thread was given a ${data.store.kind} store`);
const store = data.store;
const port = parentPort!;
const shared = new BigInt64Array(data.position);
const post = (m: FromProjector) => port.postMessage(m);

/**
 * Opened on the first message, not at load: the writer's thread projects until this thread has loaded and is told to
 * take over, so what the projector holds in memory is read only once nobody else writes the read models.
 */
let opened: { readModels: Database.Database; journalDb: Database.Database; journal: JournalReader; projector: ReadModelProjector } | undefined;
function open() {
  if (!opened) {
    const readModels = openReadModelsDatabase(store.dataDir, { busyTimeoutMs: store.busyTimeoutMs });
    const journalDb = new Database(join(store.dataDir, DB_FILE), { readonly: true, timeout: store.busyTimeoutMs });
    opened = { readModels, journalDb, journal: new JournalReader(journalDb), projector: new ReadModelProjector(readModels) };
    Atomics.store(shared, 0, BigInt(opened.projector.position()));
  }
  return opened;
}

let target = 0;
let running = false;
let stopped = false;
/** The wait before the next batch (a retry's, or a slowed projector's): cleared by a stop, so the thread ends at once. */
let timer: NodeJS.Timeout | undefined;

/** Projects batches until the read models reach the acknowledged position; waits `delayMs` before each (tests). */
function run(): void {
  if (running || stopped) return;
  running = true;
  const { projector, journal } = open();
  const step = () => {
    try {
      if (stopped || projector.position() >= target) {
        running = false;
        return;
      }
      // Only what the writer has acknowledged: it commits before it syncs, so a later row may not be durable yet.
      const rows = journal.changesAfter(projector.position(), data.maxBatch, target);
      if (rows.length === 0) {
        running = false;
        return;
      }
      const entries = rows.map((r) => {
        if (!r.changes) throw new Error(`journal row ${r.seq} holds no change records: the exchange projects it at start-up`);
        return { seq: r.seq, at: r.at, changes: r.changes };
      });
      const started = performance.now();
      projector.project([entries]);
      const position = entries[entries.length - 1]!.seq;
      Atomics.store(shared, 0, BigInt(position));
      Atomics.notify(shared, 0);
      post({ type: 'projected', position, commands: entries.length, ms: performance.now() - started });
    } catch (err) {
      post({ type: 'problem', message: err instanceof Error ? err.message : String(err) });
      timer = setTimeout(step, data.retryMs);
      return;
    }
    if (data.delayMs > 0) timer = setTimeout(step, data.delayMs);
    else setImmediate(step);
  };
  if (data.delayMs > 0) timer = setTimeout(step, data.delayMs);
  else setImmediate(step);
}

port.on('message', (m: ToProjector) => {
  if (m.type === 'advance') {
    target = Math.max(target, m.through);
    run();
  } else {
    stopped = true;
    clearTimeout(timer);
    const { projector, journal, journalDb, readModels } = open();
    // Projects what was acknowledged before stopping, so a clean stop leaves the read models current. A database that
    // refuses the write (a full disk) is reported as any batch's problem, with its message: thrown out of the thread,
    // a SqliteError reaches the writer's thread as `{ code }` alone. The next start projects the rest.
    try {
      const page = () => journal.changesAfter(projector.position(), data.maxBatch, target);
      for (let rows = page(); rows.length > 0; rows = page()) {
        projector.project([rows.map((r) => ({ seq: r.seq, at: r.at, changes: r.changes ?? [] }))]);
        Atomics.store(shared, 0, BigInt(projector.position()));
      }
    } catch (err) {
      post({ type: 'problem', message: `not projected at the stop: ${err instanceof Error ? err.message : String(err)}` });
    }
    Atomics.notify(shared, 0);
    journalDb.close();
    readModels.close();
    port.close();
  }
});
post({ type: 'loaded' });
