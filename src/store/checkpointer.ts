// Checkpoints the database's WAL (copies committed pages back into the database file and syncs it) on a thread of
// its own with its own connection. SQLite otherwise checkpoints inside whichever commit finds the WAL past 1,000
// pages, and that commit (on the writer thread) waits for the copy and two syncs: a stall of many milliseconds every
// few hundred group commits. A PASSIVE checkpoint never blocks writers, so the trading connection turns its own
// automatic checkpoints off while this thread runs, and turns them back on if the thread fails.
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import type { Db } from './db.js';

/** Plain CommonJS, so the thread starts without the TypeScript loader. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
const run = () => {
  try {
    const [r] = db.pragma('wal_checkpoint(PASSIVE)');
    if (r.log > 0) parentPort.postMessage({ walFrames: r.log, checkpointed: r.checkpointed });
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
}

export interface CheckpointerOptions {
  everyMs?: number;
  onRun?: (run: CheckpointRun) => void;
  onProblem: (err: unknown) => void;
}

const SQLITE_DEFAULT_AUTOCHECKPOINT = 1000;

export class Checkpointer {
  private readonly worker: Worker;
  private stopped = false;

  /** Starts checkpointing the database that `writer` (a file connection) writes to, and stops `writer`'s own. */
  constructor(writer: Db, opts: CheckpointerOptions) {
    writer.pragma('wal_autocheckpoint = 0');
    const fallBack = (err: unknown) => {
      if (this.stopped) return;
      this.stopped = true;
      writer.pragma(`wal_autocheckpoint = ${SQLITE_DEFAULT_AUTOCHECKPOINT}`);
      opts.onProblem(err);
    };
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { driver: createRequire(import.meta.url).resolve('better-sqlite3'), path: writer.name, everyMs: opts.everyMs ?? 100 },
    });
    this.worker.unref();
    this.worker.on('message', (m: CheckpointRun | { error: string }) => {
      if ('error' in m) opts.onProblem(new Error(`WAL checkpoint failed: ${m.error}`));
      else opts.onRun?.(m);
    });
    this.worker.on('error', fallBack);
    this.worker.on('exit', (code) => fallBack(new Error(`the WAL checkpoint thread exited (code ${code})`)));
  }

  /** Asks the thread to close its connection and end; the writer's connection closes right after, so no fallback. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.worker.postMessage('stop');
  }
}
