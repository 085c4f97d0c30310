// The writer's side of the projector's thread (sqlite/projector-worker.ts or postgres/projector-worker.ts, by the
// store): starts it, tells it how far the journal is acknowledged, and learns its position from shared memory (read
// at any time without a message) and from a message per batch (which wakes whoever waits for that position).
import { Worker } from 'node:worker_threads';
import { workerSource, type WorkerSource } from './worker-source.js';
import { HighestPerTurn } from './highest-per-turn.js';
import { within } from '../within.js';

/** The store whose journal the thread follows and whose read models it writes. */
export type ProjectedStore = { kind: 'sqlite'; dataDir: string; busyTimeoutMs: number } | { kind: 'postgres'; databaseUrl: string };

export interface ProjectorThreadData {
  store: ProjectedStore;
  maxBatch: number;
  retryMs: number;
  /** Waits this long before each batch (tests of a slow projector). */
  delayMs: number;
  /** SharedArrayBuffer of one BigInt64: the position the read models cover. */
  position: SharedArrayBuffer;
}

export type ToProjector = { type: 'advance'; through: number } | { type: 'stop' };
export type FromProjector =
  | { type: 'loaded' }
  | { type: 'projected'; position: number; commands: number; ms: number }
  | { type: 'problem'; message: string };

const workerModule = (kind: ProjectedStore['kind']) => new URL(`./${kind}/projector-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url).href;
/** The drivers a worker loads from node_modules rather than from its bundle (native code, or their own files). */
const DRIVERS = { sqlite: ['better-sqlite3'], postgres: ['pg'] } as const;

export interface ProjectorThreadEvents {
  /** The thread has loaded its code and can take over (it opens its connections on the first message). */
  loaded(): void;
  /** A batch was projected: the read models cover `position`. */
  projected(position: number, commands: number): void;
  problem(message: string): void;
}

/**
 * What a worker's 'error' event carries, as a message: the Error a thread threw crosses to this thread by structured
 * clone, which keeps an Error's message but turns an error object of another kind (better-sqlite3's SqliteError) into
 * a plain object of its enumerable properties (`{ code: 'SQLITE_FULL' }`, no message), and a thrown non-Error value
 * stays what it was.
 */
export function threadErrorMessage(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  if (typeof err === 'object' && err !== null) {
    const { message } = err as { message?: unknown };
    if (typeof message === 'string' && message !== '') return message;
    try {
      const json = JSON.stringify(err);
      if (json !== undefined && json !== '{}') return json;
    } catch {
      // cyclic or holding a bigint: named by its tag below
    }
    return Object.prototype.toString.call(err);
  }
  return `${typeof err === 'string' ? 'a thrown string' : 'a thrown value'}: ${String(err)}`;
}

/** How long after an unexpected end the thread is started again (it resumes from the read models' checkpoint). */
const RESTART_AFTER_MS = 200;

export class ProjectorThread {
  private worker: Worker | undefined;
  /** Resolves once the first thread runs (its code is bundled first, off this thread). */
  private readonly started: Promise<void>;
  private readonly shared: BigInt64Array;
  /** How far the journal is acknowledged, as told to the thread. */
  private readonly advanced = new HighestPerTurn((through) => this.post({ type: 'advance', through }));
  private stopping = false;
  private takenOver = false;
  /** Threads started again after an unexpected end. */
  restarts = 0;

  constructor(
    private readonly opts: Omit<ProjectorThreadData, 'position'>,
    private readonly events: ProjectorThreadEvents,
  ) {
    this.shared = new BigInt64Array(new SharedArrayBuffer(8));
    this.started = workerSource(workerModule(opts.store.kind), (err) => events.problem(`the projector thread's code was not bundled; tsx loads it: ${String(err)}`), [
      ...DRIVERS[opts.store.kind],
    ]).then((source) => this.run(source));
  }

  /**
   * Starts a thread. The first one's `loaded` hands projection over; one started again after an unexpected end (a
   * crash, a terminate) just resumes from the checkpoint and is told how far the journal is acknowledged.
   */
  private run(source: WorkerSource): void {
    const workerData: ProjectorThreadData & { module: string } = { ...this.opts, position: this.shared.buffer as SharedArrayBuffer, module: source.workerData.module };
    const worker = new Worker(source.url, { workerData });
    // Ended by stop(); a start-up that fails before it is stopped must not be kept alive by it.
    worker.unref();
    worker.on('message', (m: FromProjector) => {
      if (m.type === 'projected') this.events.projected(m.position, m.commands);
      else if (m.type === 'problem') this.events.problem(m.message);
      else if (m.type === 'loaded' && !this.stopping) {
        if (!this.takenOver) {
          this.takenOver = true;
          this.events.loaded();
        } else if (this.advanced.highest > 0) worker.postMessage({ type: 'advance', through: this.advanced.highest } satisfies ToProjector);
      }
    });
    worker.on('error', (err: unknown) => this.events.problem(`the projector thread failed: ${threadErrorMessage(err)}`));
    worker.on('exit', (code) => {
      if (this.worker === worker) this.worker = undefined;
      if (this.stopping) return;
      this.events.problem(`the projector thread ended (exit code ${code}); it starts again from the read models' checkpoint`);
      this.restarts++;
      setTimeout(() => {
        if (!this.stopping) this.run(source);
      }, RESTART_AFTER_MS).unref();
    });
    this.worker = worker;
  }

  /** The position the read models cover, as the thread last stored it. */
  get position(): number {
    return Number(Atomics.load(this.shared, 0));
  }

  /** The journal is acknowledged through `through`: one message per turn at most. */
  advance(through: number): void {
    this.advanced.offer(through);
  }

  /**
   * Blocks until the read models cover `seq` or `timeoutMs` passes (shutdown, snapshots on request); true if they
   * do. The thread runs on its own, so waiting here cannot hold it back.
   */
  waitUntil(seq: number, timeoutMs: number): boolean {
    this.advance(seq);
    this.post({ type: 'advance', through: this.advanced.highest });
    const end = performance.now() + timeoutMs;
    for (let p = Atomics.load(this.shared, 0); Number(p) < seq; p = Atomics.load(this.shared, 0)) {
      const left = end - performance.now();
      if (left <= 0) return false;
      Atomics.wait(this.shared, 0, p, Math.min(left, 100));
    }
    return true;
  }

  /** Ends the running thread at once, as a crash would (tests of the restart). */
  async terminate(): Promise<void> {
    await this.started;
    await this.worker?.terminate();
  }

  /**
   * Projects what is acknowledged, then ends the thread; one still projecting after `timeoutMs` (its database refuses
   * or is slow) is ended where it is, its transaction rolled back: the read models' checkpoint says where the next
   * start goes on.
   */
  async stop(timeoutMs?: number): Promise<void> {
    this.stopping = true;
    await this.started;
    const worker = this.worker;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage({ type: 'stop' } satisfies ToProjector);
    if (timeoutMs === undefined) return exited;
    if (!(await within(exited, timeoutMs))) {
      await worker.terminate();
      await exited;
    }
  }

  private post(m: ToProjector): void {
    this.worker?.postMessage(m);
  }
}
