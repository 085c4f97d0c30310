// A pool of worker threads that hash signed commands and recover their signers, so the writer thread spends its
// time on validation, the engine, the commit and the reply. Jobs queued during one event-loop turn leave as one
// message per worker. Whenever no worker can take them (not started yet, still loading, crashed, stalled, or the
// pool is sized 0), jobs run on the calling thread: same results, only slower.
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { extname } from 'node:path';
import { runVerifyJob, type Verified, type VerifyJob } from './jobs.js';
import type { FromWorker, JobOutcome, ToWorker } from './messages.js';
import { workerSource, type WorkerSource } from '../store/worker-source.js';
import { toWire } from './wire.js';

export interface PoolLog {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface VerifyPoolOptions {
  /** Worker threads; 0 runs every job on the calling thread. */
  threads: number;
  log: PoolLog;
  /** A batch unanswered for this long means its worker is stuck: it is terminated and its jobs run inline. */
  stallMs?: number;
  /** The module a worker runs (tests substitute misbehaving ones); default ./worker. */
  workerModule?: string;
  /** A failed worker is replaced after this long, doubled per failure in a row up to a minute; default 1 s. */
  respawnMs?: number;
}

const MAX_RESPAWN_MS = 60_000;

/** Where jobs ran, counted since the pool was built. */
export interface VerifyPoolStats {
  jobsOnWorkers: number;
  jobsInline: number;
}

/** The smallest share of a turn's jobs worth a message of its own. */
const MIN_JOBS_PER_MESSAGE = 4;

interface PendingRequest {
  results: Verified[];
  left: number;
  failed: boolean;
  resolve: (results: Verified[]) => void;
  reject: (err: Error) => void;
}

interface Entry {
  job: VerifyJob;
  request: PendingRequest;
  index: number;
}

interface PoolWorker {
  thread: Worker;
  ready: boolean;
  dead: boolean;
  jobsInFlight: number;
  batches: Map<number, { entries: Entry[]; sentAt: number }>;
}

const defaultWorkerModule = new URL(`./worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url).href;

export class VerifyPool {
  private readonly workers: PoolWorker[] = [];
  private queue: Entry[] = [];
  private flushScheduled = false;
  private nextBatch = 1;
  private started = false;
  private closed = false;
  private watchdog: NodeJS.Timeout | undefined;
  private readonly stallMs: number;
  private source: WorkerSource | undefined;
  /** Failures since a worker last answered a batch: how long the next replacement waits. */
  private failuresInARow = 0;
  private readonly respawns = new Set<NodeJS.Timeout>();
  readonly stats: VerifyPoolStats = { jobsOnWorkers: 0, jobsInline: 0 };

  constructor(private readonly opts: VerifyPoolOptions) {
    this.stallMs = opts.stallMs ?? 5000;
  }

  /** Worker threads running, whether ready or still loading (tests). */
  get threadCount(): number {
    return this.workers.length;
  }

  /** Workers that are up and answering (tests and metrics). */
  get liveWorkers(): number {
    return this.workers.filter((w) => w.ready && !w.dead).length;
  }

  /** Resolves with each job's result, in order. Rejects only when a job threw (a field the schema let through). */
  verify(jobs: readonly VerifyJob[]): Promise<Verified[]> {
    if (jobs.length === 0) return Promise.resolve([]);
    this.start();
    return new Promise((resolve, reject) => {
      const request: PendingRequest = { results: new Array(jobs.length), left: jobs.length, failed: false, resolve, reject };
      jobs.forEach((job, index) => this.queue.push({ job, request, index }));
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /**
   * Ends the workers; jobs still queued or in flight are finished on this thread. Each worker is asked to end and
   * exits once it is between batches: terminating a thread inside the native signature addon (loading it, or in a
   * call) makes the addon throw a C++ exception nothing catches, which aborts the whole process. Only a worker that
   * has not ended after the stall timeout is terminated.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.watchdog) clearInterval(this.watchdog);
    for (const t of this.respawns) clearTimeout(t);
    this.respawns.clear();
    const workers = this.workers.splice(0);
    for (const w of workers) this.retire(w);
    this.flush();
    await Promise.all(workers.map((w) => this.end(w.thread)));
  }

  private end(thread: Worker): Promise<void> {
    if (thread.threadId === -1) return Promise.resolve(); // already exited
    const exited = new Promise<void>((resolve) => thread.once('exit', () => resolve()));
    thread.ref(); // an unreferenced thread's exit would not keep the event loop alive for whoever awaits it
    thread.postMessage({ close: true } satisfies ToWorker);
    const deadline = setTimeout(() => void thread.terminate(), this.stallMs);
    return exited.finally(() => clearTimeout(deadline));
  }

  /**
   * Starts the threads in the background (the worker code is prepared asynchronously); jobs run inline until they
   * are up. Called at server start, so their start-up does not compete with the first trades; the first job starts
   * them too if nobody did.
   */
  start(): void {
    if (this.started || this.closed || this.opts.threads <= 0) return;
    this.started = true;
    const onBundleError = (err: unknown) => this.opts.log.warn({ err }, 'verification worker could not be bundled; loading it through tsx');
    void workerSource(this.opts.workerModule ?? defaultWorkerModule, onBundleError).then((source) => {
      if (this.closed) return;
      this.source = source;
      for (let i = 0; i < this.opts.threads; i++) this.spawn(source);
      if (this.workers.length === 0) return;
      this.watchdog = setInterval(() => this.checkStalls(), Math.max(50, this.stallMs / 2));
      this.watchdog.unref();
    });
  }

  private spawn(source: WorkerSource): void {
    let thread: Worker;
    try {
      thread = new Worker(source.url, { workerData: source.workerData });
    } catch (err) {
      this.opts.log.error({ err }, 'verification worker could not start; verifying on the main thread');
      return;
    }
    thread.unref(); // a pool nobody closed must not keep the process alive
    const w: PoolWorker = { thread, ready: false, dead: false, jobsInFlight: 0, batches: new Map() };
    thread.on('message', (m: FromWorker) => this.onMessage(w, m));
    thread.on('error', (err) => this.fail(w, err));
    thread.on('messageerror', (err) => this.fail(w, err));
    thread.on('exit', (code) => this.fail(w, new Error(`verification worker exited with code ${code}`)));
    this.workers.push(w);
  }

  private onMessage(w: PoolWorker, m: FromWorker): void {
    if ('ready' in m) {
      w.ready = !w.dead;
      return;
    }
    const batch = w.batches.get(m.batch);
    if (!batch) return;
    w.batches.delete(m.batch);
    w.jobsInFlight -= batch.entries.length;
    this.stats.jobsOnWorkers += batch.entries.length;
    this.failuresInARow = 0;
    batch.entries.forEach((entry, i) => settle(entry, m.results[i] ?? { error: 'verification worker sent no result' }));
  }

  /**
   * A worker that errs, exits or stalls leaves the pool; whatever it held is verified here instead, and a new
   * thread takes its place after a delay that grows while replacements keep failing.
   */
  private fail(w: PoolWorker, err: unknown): void {
    if (w.dead) return;
    const i = this.workers.indexOf(w);
    if (i >= 0) this.workers.splice(i, 1);
    this.retire(w);
    void w.thread.terminate();
    if (this.closed || !this.source) return;
    const delay = Math.min(MAX_RESPAWN_MS, (this.opts.respawnMs ?? 1000) * 2 ** this.failuresInARow++);
    this.opts.log.warn({ err, respawnInMs: delay }, 'verification worker failed; its jobs run on the main thread until it is replaced');
    const source = this.source;
    const timer = setTimeout(() => {
      this.respawns.delete(timer);
      if (!this.closed) this.spawn(source);
    }, delay);
    timer.unref();
    this.respawns.add(timer);
  }

  /** Marks a worker dead and verifies its in-flight jobs on this thread. */
  private retire(w: PoolWorker): void {
    w.dead = true;
    w.ready = false;
    const batches = [...w.batches.values()];
    w.batches.clear();
    w.jobsInFlight = 0;
    for (const b of batches) this.runInline(b.entries);
  }

  private checkStalls(): void {
    const now = performance.now();
    for (const w of [...this.workers]) {
      for (const b of w.batches.values()) {
        if (now - b.sentAt > this.stallMs) {
          this.fail(w, new Error(`verification worker gave no answer in ${this.stallMs} ms`));
          break;
        }
      }
    }
  }

  private flush(): void {
    this.flushScheduled = false;
    const entries = this.queue;
    this.queue = [];
    if (entries.length === 0) return;
    const ready = this.workers.filter((w) => w.ready && !w.dead).sort((a, b) => a.jobsInFlight - b.jobsInFlight);
    if (ready.length === 0) {
      this.runInline(entries);
      return;
    }
    const messages = Math.min(ready.length, Math.ceil(entries.length / MIN_JOBS_PER_MESSAGE));
    const per = Math.ceil(entries.length / messages);
    for (let m = 0; m < messages; m++) this.send(ready[m]!, entries.slice(m * per, (m + 1) * per));
  }

  private send(w: PoolWorker, entries: Entry[]): void {
    const batch = this.nextBatch++;
    const message: ToWorker = { batch, jobs: entries.map((e) => toWire(e.job)) };
    try {
      w.thread.postMessage(message);
    } catch (err) {
      this.fail(w, err);
      this.runInline(entries);
      return;
    }
    w.batches.set(batch, { entries, sentAt: performance.now() });
    w.jobsInFlight += entries.length;
  }

  private runInline(entries: Entry[]): void {
    this.stats.jobsInline += entries.length;
    for (const entry of entries) {
      let outcome: JobOutcome;
      try {
        outcome = runVerifyJob(entry.job);
      } catch (err) {
        outcome = { error: err instanceof Error ? err.message : String(err) };
      }
      settle(entry, outcome);
    }
  }
}

function settle({ request, index }: Entry, outcome: JobOutcome): void {
  if (request.failed) return;
  if ('error' in outcome) {
    request.failed = true;
    request.reject(new Error(`verification failed: ${outcome.error}`));
    return;
  }
  request.results[index] = outcome;
  if (--request.left === 0) request.resolve(request.results);
}
