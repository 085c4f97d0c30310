// Follows the writer: durable groups of journal entries are projected into the read models, in journal order and in
// batches, after their callers are answered. Two ways: by the projector's own thread (projector-thread.ts), which
// reads the journal itself, or (at start-up, and where no thread is used) by a projector on this thread, a turn
// later. Each group's realtime publications are prepared once the read models cover it (so they may read a later
// state) and fanned out in journal order. Readers wait here for the position their read must see
// (read-your-writes). A batch the read models' database refused is tried again: the writer never waits for the
// projector, and a failed projection never loses a journaled command.
import type { ProjectedEntry, RemoteProjector } from './ports.js';

/**
 * What the loop projects batches with on this thread: a projector that writes at once (an embedded database's
 * Projector) or one whose writes are awaited (a database server's AsyncProjector).
 */
export interface BatchProjector {
  project(groups: readonly (readonly ProjectedEntry[])[]): void | Promise<void>;
  /** Another projector (its own thread) wrote the read models: what this one keeps in memory is read again. */
  changedElsewhere?(): void;
}

export interface ProjectionLoopOptions {
  /**
   * Called once a group is projected, groups in journal order, with its entries (each command's position, journal
   * time and change records): gathers the group's publications (what it reads before its first wait sees the state
   * the group's turn left) and resolves to their fan-out, which runs in journal order once every earlier group's has
   * run.
   */
  prepareFanOut: (entries: readonly ProjectedEntry[]) => Promise<() => void>;
  /** A batch could not be projected; it is tried again after `retryMs`. */
  onProblem: (err: unknown) => void;
  /**
   * A group's publications could not be prepared, or its fan-out failed part way: they never reach the realtime
   * channels (the journal and the read models hold their facts), so subscribers must be told rather than left with a
   * silent gap. Later groups are published as usual.
   */
  publicationsLost: (err: unknown) => void;
  /** Commands per projector transaction at most. */
  maxBatch?: number;
  /** The projector on this thread writes asynchronously (a database server's): it is never flushed blocking. */
  awaitedProjector?: boolean;
  retryMs?: number;
  /** Waits this long before each batch: an artificially slow projector (tests of read-your-writes). */
  delayMs?: number;
}

/** How long a blocking flush waits for the projector's thread (shutdown, snapshots on request). */
const FLUSH_WAIT_MS = 60_000;

interface QueuedGroup {
  entries: ProjectedEntry[];
  /** When the group became durable (performance.now()): the projector's lag in time. */
  durableAt: number;
}

interface Waiter {
  seq: number;
  resolve: (caughtUp: boolean) => void;
  /** Unset: the waiter waits as long as projection takes. */
  timer?: NodeJS.Timeout;
}

export interface ProjectionStats {
  /** The journal position the read models cover. */
  position: number;
  /** Durable commands not yet projected. */
  lagPositions: number;
  /** How long ago the oldest unprojected group became durable (0: none). */
  lagMs: number;
  batches: number;
  projectedCommands: number;
  /** Commands of the last batch. */
  lastBatch: number;
}

export class ProjectionLoop {
  private queue: QueuedGroup[] = [];
  /** Set once the projector's thread projects: this thread then only publishes and wakes readers. */
  private thread: RemoteProjector | undefined;
  /** Stopped: a thread that loads now takes nothing over. */
  private closed = false;
  private queuedThrough: number;
  private projected: number;
  private scheduled = false;
  private waiters: Waiter[] = [];
  private batches = 0;
  private projectedCommands = 0;
  private lastBatch = 0;
  /** An awaited projector's batch being written: one at a time. */
  private writing: Promise<void> | undefined;
  /** The fan-outs of the groups projected so far, run one after the other in journal order. */
  private published: Promise<void> = Promise.resolve();
  /** Called with each batch's size once it is projected (metrics). */
  onBatch: ((commands: number) => void) | undefined;

  /** `position`: the journal position the projector's read models cover now. */
  constructor(
    private readonly projector: BatchProjector,
    position: number,
    private readonly opts: ProjectionLoopOptions,
  ) {
    this.projected = position;
    this.queuedThrough = position;
  }

  /** The projector's thread, once it has taken over. */
  get projectorThread(): RemoteProjector | undefined {
    return this.thread;
  }

  /** The journal position the read models cover. */
  get position(): number {
    // Not the thread's own position, which runs ahead of its report: a reader must also find what the report
    // updates on this thread (best odds, publications) as of the position it waited for.
    return this.projected;
  }

  /**
   * From now on the projector's thread projects what is acknowledged (after start-up has caught the read models up
   * on this thread); `projectedBy` is what its events call.
   */
  useThread(thread: RemoteProjector): void {
    if (this.closed) return;
    // A batch this thread is writing ends first; the thread then goes on from the checkpoint it leaves.
    if (this.writing) {
      void this.writing.catch(() => {}).then(() => this.useThread(thread));
      return;
    }
    // An embedded projector catches up here at once; a database server's is caught up by the thread itself, which
    // reads the journal from the read models' checkpoint. So is an embedded one whose database refuses the write now
    // (a full disk): the failure is reported, not thrown into the thread's message handler (it ended the process).
    if (!this.opts.awaitedProjector) {
      try {
        this.flushNow();
      } catch (err) {
        this.opts.onProblem(err);
      }
    }
    this.thread = thread;
    if (this.queuedThrough > this.projected) thread.advance(this.queuedThrough);
  }

  /** The projector's thread reports that the read models cover `position`: publish what that covers. */
  projectedBy(position: number, commands: number): void {
    if (position <= this.projected) return;
    this.projected = position;
    this.projector.changedElsewhere?.();
    this.publishCovered();
    this.counted(commands);
    this.release();
  }

  /** Publishes the queued groups the projector's thread or process has reported projected. */
  private publishCovered(): void {
    let n = 0;
    while (n < this.queue.length && this.lastSeqOf(this.queue[n]!) <= this.projected) n++;
    if (n === 0) return;
    const groups = this.queue.slice(0, n);
    this.queue = this.queue.slice(n);
    this.publish(groups);
  }

  /** Resolves once the publications of every group projected so far have been fanned out. */
  publishedAll(): Promise<void> {
    return this.published;
  }

  /**
   * Resolves once the publications of everything journaled so far (every group handed to the loop) have been fanned
   * out: bounded by projection, not by a timeout (a parlay's quote window releases its book then). Never resolves
   * if projection stops for good first (shutdown).
   */
  async publishedJournaled(): Promise<void> {
    const through = this.queuedThrough;
    if (through > this.projected) await new Promise<boolean>((resolve) => this.waiters.push({ seq: through, resolve }));
    // Projected through `through`: its groups' fan-outs are on the chain already (publish() runs before release()).
    await this.published;
  }

  /**
   * Ends the projector's thread, which first projects what is acknowledged, for at most `timeoutMs` (then it is
   * ended where it is: the next start projects the rest).
   */
  async stop(timeoutMs?: number): Promise<void> {
    this.closed = true;
    const thread = this.thread;
    if (!thread) return;
    this.thread = undefined;
    await thread.stop(timeoutMs);
    this.projectedBy(thread.position, 0);
    await this.published;
  }

  /**
   * Hands a durable group of consecutive journal entries to the projector. Entries at or before a position already
   * handed over are skipped (a rebuild after a failed write replays what may already be queued).
   */
  enqueue(entries: readonly ProjectedEntry[]): void {
    const fresh = entries.filter((e) => e.seq > this.queuedThrough);
    if (fresh.length === 0) return;
    this.queuedThrough = fresh[fresh.length - 1]!.seq;
    this.queue.push({ entries: fresh, durableAt: performance.now() });
    if (!this.thread) {
      this.schedule(0);
      return;
    }
    this.thread.advance(this.queuedThrough);
    // A projector process follows the journal by itself: its report of this group may have come already, and no
    // later report names it again.
    this.publishCovered();
  }

  /**
   * Projects everything queued now, blocking (shutdown of an embedded store); throws if the read models' database
   * refuses, or if the projector's writes are awaited (flush() is then the way). A projector process of its own is
   * not waited for: it projects what is durable whether or not this process runs.
   */
  flushNow(): void {
    const thread = this.thread;
    if (thread?.apart) return;
    if (thread) {
      if (!thread.waitUntil(this.queuedThrough, FLUSH_WAIT_MS)) throw new Error(`the projector thread did not reach ${this.queuedThrough} in time`);
      this.projectedBy(thread.position, 0);
      return;
    }
    while (this.queue.length > 0) {
      if (this.writing || this.projectBatch()) throw new Error('the projector writes asynchronously: flush() it');
    }
  }

  /**
   * Projects everything queued now, whichever projector (start-up catch-up, shutdown); rejects if its database
   * refuses, or if the projector's thread has not caught up within `timeoutMs`.
   */
  async flush(timeoutMs = FLUSH_WAIT_MS): Promise<void> {
    const thread = this.thread;
    if (thread) {
      if (thread.apart) return;
      // Waited for without blocking this thread: the projector's may be waiting for a database that refuses its
      // writes (a heal's rebuild catches up here), and meanwhile this process must go on answering (503s, health).
      const target = this.queuedThrough;
      thread.advance(target);
      if (!(await this.waitFor(target, timeoutMs))) throw new Error(`the projector thread did not reach ${target} within ${timeoutMs} ms (at ${this.position})`);
      return;
    }
    for (;;) {
      if (this.writing) {
        // The scheduled batch's failure is reported where it was scheduled; this flush tries the queue itself.
        await this.writing.catch(() => {});
        continue;
      }
      if (this.queue.length === 0) return;
      await this.projectBatch();
    }
  }

  /**
   * Resolves true once the read models cover `seq`, or false after `timeoutMs` (the reader answers that the read
   * side is behind rather than show state older than the position it must see).
   */
  waitFor(seq: number, timeoutMs: number): Promise<boolean> {
    if (seq <= this.position) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        seq,
        resolve,
        timer: setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          resolve(false);
        }, timeoutMs),
      };
      this.waiters.push(waiter);
    });
  }

  stats(): ProjectionStats {
    const oldest = this.queue[0];
    return {
      position: this.position,
      lagPositions: this.queuedThrough - this.position,
      lagMs: oldest ? performance.now() - oldest.durableAt : 0,
      batches: this.batches,
      projectedCommands: this.projectedCommands,
      lastBatch: this.lastBatch,
    };
  }

  private schedule(delayMs: number): void {
    if (this.scheduled) return;
    this.scheduled = true;
    const failed = (err: unknown) => {
      this.opts.onProblem(err);
      this.schedule(this.opts.retryMs ?? 100);
    };
    const run = () => {
      this.scheduled = false;
      // A batch being written schedules the next one when it ends.
      if (this.thread || this.writing) return;
      let written: Promise<void> | undefined;
      try {
        written = this.projectBatch();
      } catch (err) {
        failed(err);
        return;
      }
      if (written) written.then(() => this.queue.length > 0 && this.schedule(0), failed);
      else if (this.queue.length > 0) this.schedule(0);
    };
    const wait = Math.max(delayMs, this.opts.delayMs ?? 0);
    if (wait > 0) setTimeout(run, wait);
    else setImmediate(run);
  }

  /**
   * Projects the oldest queued groups, up to the batch limit, in one transaction; then fans them out. Returns the
   * write while an awaited projector's is under way.
   */
  private projectBatch(): Promise<void> | undefined {
    const max = this.opts.maxBatch ?? 5000;
    const groups: QueuedGroup[] = [];
    let commands = 0;
    for (const g of this.queue) {
      if (groups.length > 0 && commands + g.entries.length > max) break;
      groups.push(g);
      commands += g.entries.length;
    }
    if (groups.length === 0) return undefined;
    const written = this.projector.project(groups.map((g) => g.entries));
    if (!(written instanceof Promise)) {
      this.projectedThrough(groups, commands);
      return undefined;
    }
    const writing = written.then(
      () => {
        this.writing = undefined;
        this.projectedThrough(groups, commands);
      },
      (err: unknown) => {
        this.writing = undefined;
        throw err;
      },
    );
    this.writing = writing;
    return writing;
  }

  /** The oldest queued groups are in the read models: readers waiting for them go on, and they are published. */
  private projectedThrough(groups: readonly QueuedGroup[], commands: number): void {
    this.queue = this.queue.slice(groups.length);
    this.projected = this.lastSeqOf(groups[groups.length - 1]!);
    this.publish(groups);
    this.counted(commands);
    this.release();
  }

  /**
   * Prepares the groups' publications now, in journal order, and queues their fan-outs behind the earlier ones. A
   * group whose publications could not be prepared or fanned out is reported lost (in its turn) and passed over, so
   * the publications after it still go out.
   */
  private publish(groups: readonly QueuedGroup[]): void {
    for (const g of groups) {
      const prepared = this.opts.prepareFanOut(g.entries);
      prepared.catch(() => {}); // its failure is reported in its turn below
      this.published = this.published
        .then(() => prepared)
        .then((fanOut) => fanOut())
        .catch((err: unknown) => this.lost(err));
    }
  }

  /** Reports lost publications; a report that throws must not break the chain every later fan-out waits on. */
  private lost(err: unknown): void {
    try {
      this.opts.publicationsLost(err);
    } catch (reportErr) {
      this.opts.onProblem(reportErr);
    }
  }

  private lastSeqOf(g: QueuedGroup): number {
    return g.entries[g.entries.length - 1]!.seq;
  }

  private counted(commands: number): void {
    if (commands === 0) return;
    this.batches++;
    this.projectedCommands += commands;
    this.lastBatch = commands;
    this.onBatch?.(commands);
  }

  private release(): void {
    if (this.waiters.length === 0) return;
    const still: Waiter[] = [];
    for (const w of this.waiters) {
      if (w.seq <= this.position) {
        clearTimeout(w.timer);
        w.resolve(true);
      } else still.push(w);
    }
    this.waiters = still;
  }
}
