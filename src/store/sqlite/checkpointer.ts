// Checkpoints the database's WAL (copies committed pages back into the database file and syncs it) on a thread of
// its own with its own connection. SQLite otherwise checkpoints inside whichever commit finds the WAL past 1,000
// pages, and that commit (on the writer thread) waits for the copy and two syncs: a stall of many milliseconds every
// few hundred group commits. A PASSIVE checkpoint never blocks writers, so the trading connection turns its own
// automatic checkpoints off while this thread runs, and turns them back on if the thread fails.
// A passive checkpoint copies only the frames that existed when it began; under commits without pauses the writer
// has always appended more by then, so SQLite never starts the WAL afresh and the file grows for as long as the load
// lasts (900 MB in a 3-minute soak). Past `restartAtFrames` the thread therefore runs one RESTART checkpoint: it
// holds new commits back while it copies the frames written since the passive runs just before (run back to back
// until they catch up, so few are left: a whole WAL's copy lets commits append hundreds), and the next commit
// writes the WAL from its start again; with `journal_size_limit` (twice that size) that commit also cuts a file a
// burst grew past the limit back to it. A TRUNCATE checkpoint would empty the file, but cutting it to zero under the
// write lock held commits back 55-125 ms per run, against 9-45 ms for RESTART (fills from 16 clients: p99 102-129 ms
// with TRUNCATE, 69-74 ms with RESTART). While a RESTART checkpoint waits for readers it holds the write lock, so a
// read transaction left open (an operator's sqlite3 shell, a backup) would hold every commit back behind it, and fail
// them past the writer's busy timeout. Such a reader also stops passive runs from copying further, so the thread runs
// a RESTART only when the passive run just before made progress or left nothing to copy, and not again on an
// unchanged WAL after one found a reader in its way; it waits at most `busyMs`
// for the writer and readers, and tries again on a later run.
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import type { Db } from './db.js';

/** Passive runs before a RESTART: until one finds at most CATCH_UP_FRAMES new frames, at most CATCH_UP_RUNS of them. */
const CATCH_UP_RUNS = 8;
const CATCH_UP_FRAMES = 64;

/** Plain CommonJS, so the thread starts without the TypeScript loader. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { timeout: workerData.busyMs });
let last = { log: 0, checkpointed: 0 };
// Where the last RESTART found a reader in its way: the same WAL with nothing new copied means the reader is still
// there (an idle writer leaves nothing to copy, which alone would otherwise pass for progress on every run).
let busyAt = null;
const run = () => {
  try {
    let [r] = db.pragma('wal_checkpoint(PASSIVE)');
    // -1: it could not run this time (a lock of another connection's); nothing to compare with the run before.
    if (r.log < 0) return;
    // A WAL that started afresh, more frames copied than last time, or none left: no reader holds an old snapshot.
    const progressed = (r.log < last.log || r.checkpointed > last.checkpointed || r.checkpointed === r.log) &&
      !(busyAt && r.log === busyAt.log && r.checkpointed === busyAt.checkpointed);
    last = r;
    if (r.log >= workerData.restartAtFrames && progressed) {
      // Catch up first: the RESTART holds commits back while it copies what was appended since the passive run before
      // it, and that run took long enough (a whole WAL's copy and sync) for commits to append hundreds of frames.
      for (let i = 0; i < ${CATCH_UP_RUNS}; i++) {
        const before = r.log;
        const [next] = db.pragma('wal_checkpoint(PASSIVE)');
        if (next.log < 0) break;
        r = last = next;
        if (r.log - before <= ${CATCH_UP_FRAMES}) break;
      }
      const [t] = db.pragma('wal_checkpoint(RESTART)');
      // The RESTART copies too: what it leaves is the state the next run compares with.
      if (t.log >= 0) last = t;
      busyAt = t.busy === 0 ? null : last;
      parentPort.postMessage({ walFrames: r.log, checkpointed: r.checkpointed, restart: t.busy === 0 ? 'done' : 'busy' });
    } else if (r.log > 0) parentPort.postMessage({ walFrames: r.log, checkpointed: r.checkpointed, restart: 'none' });
  } catch (err) {
    parentPort.postMessage({ error: String((err && err.message) || err) });
  }
};
const timer = setInterval(run, workerData.everyMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export interface CheckpointRun {
  /** Frames in the WAL when the checkpoint ran, and how many of them are now in the database file. */
  walFrames: number;
  checkpointed: number;
  /** Whether a RESTART checkpoint followed: done (the next commit starts the WAL again), or busy. */
  restart: 'none' | 'done' | 'busy';
}

export interface CheckpointerOptions {
  everyMs?: number;
  /**
   * WAL frames (pages) past which the WAL is checkpointed in full and written from its start again: 8,192 (32 MB of
   * 4 KB pages). The file is kept within twice that size.
   */
  restartAtFrames?: number;
  onRun?: (run: CheckpointRun) => void;
  onProblem: (err: unknown) => void;
}

const SQLITE_DEFAULT_AUTOCHECKPOINT = 1000;

export class Checkpointer {
  private readonly worker: Worker;
  private readonly exited: Promise<void>;
  private stopped = false;

  /** Starts checkpointing the database that `writer` (a file connection) writes to, and stops `writer`'s own. */
  constructor(writer: Db, opts: CheckpointerOptions) {
    const restartAtFrames = opts.restartAtFrames ?? 8192;
    writer.pragma('wal_autocheckpoint = 0');
    const pageSize = writer.pragma('page_size', { simple: true }) as number;
    writer.pragma(`journal_size_limit = ${Math.min(Number.MAX_SAFE_INTEGER, 2 * restartAtFrames * pageSize)}`);
    const fallBack = (err: unknown) => {
      if (this.stopped) return;
      this.stopped = true;
      writer.pragma(`wal_autocheckpoint = ${SQLITE_DEFAULT_AUTOCHECKPOINT}`);
      opts.onProblem(err);
    };
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        driver: createRequire(import.meta.url).resolve('better-sqlite3'),
        path: writer.name,
        everyMs: opts.everyMs ?? 100,
        restartAtFrames,
        busyMs: 100,
      },
    });
    this.worker.unref();
    this.exited = new Promise((resolve) => this.worker.once('exit', () => resolve()));
    this.worker.on('message', (m: CheckpointRun | { error: string }) => {
      if ('error' in m) opts.onProblem(new Error(`WAL checkpoint failed: ${m.error}`));
      else opts.onRun?.(m);
    });
    this.worker.on('error', fallBack);
    this.worker.on('exit', (code) => fallBack(new Error(`the WAL checkpoint thread exited (code ${code})`)));
  }

  /**
   * Asks the thread to close its connection and resolves once it has ended, so no checkpoint is still inside SQLite
   * when the caller closes the writer, gives the data dir's lock up or lets the process exit (a thread torn down by
   * process exit in the middle of a native call can crash it). The thread finishes a running checkpoint first: at most
   * `busyMs` of waiting plus the copy.
   */
  stop(): Promise<void> {
    if (!this.stopped) {
      this.stopped = true;
      this.worker.ref(); // an unreferenced thread's exit would not keep the event loop alive for whoever awaits it
      this.worker.postMessage('stop');
    }
    return this.exited;
  }
}
