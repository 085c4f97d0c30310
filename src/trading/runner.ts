// Drives the pure engine: applies commands one at a time, commits them with their change records (journal and read
// models in one transaction per event-loop turn) and resolves each caller only once its command is on disk.
// Start-up restores the newest valid snapshot and replays the journal's tail; snapshots are taken between commits.
// A failed commit never leaves memory ahead of disk: the batch is refused with STORAGE_FAILED, the engine is rebuilt
// from what the disk holds, and the next command tries the disk again.
// Reply first, fan out after: callers are answered right after the commit; the realtime rendering of its change
// records waits for the next turn (or the next command, whichever comes first).
import type { Applied, Engine, EngineSnapshot } from '../engine/engine.js';
import type { Change } from '../engine/changes.js';
import { DomainError } from '../engine/errors.js';
import type { Command, CommandResult, ResultOf } from '../engine/types.js';
import type { TradingStore } from '../store/trading-store.js';

export interface RunnerOptions {
  /** Builds an engine: empty, or in the state a snapshot recorded. */
  createEngine: (snapshot?: EngineSnapshot) => Engine;
  /** Called right after each group commit with the batch's change records, in order (hand-offs to the chain). */
  committed?: (changes: readonly Change[]) => void;
  /**
   * Called with each group commit's change records once its callers are answered: on the next turn, or just before
   * the next command is applied, so it always sees the engine exactly as committed.
   */
  afterCommit: (changes: readonly Change[]) => void;
  /** A commit failed; the engine was rebuilt from disk (or could not be, if `rebuilt` is false). */
  onStorageFailure: (err: unknown, rebuilt: boolean) => void;
  now: () => number;
  snapshotEveryCommands: number;
  snapshotEveryMs: number;
  /** A snapshot could not be written or loaded (trading goes on; start-up falls back to an older one). */
  onSnapshotProblem?: (err: unknown, what: string) => void;
}

export interface ReplayReport {
  /** Journal commands applied on top of the snapshot (or from the start). */
  replayed: number;
  /** The journal position of the snapshot used, if any. */
  snapshotSeq?: number;
}

interface Pending {
  cmd: Command;
  applied: Applied;
  resolve: (r: CommandResult) => void;
  reject: (e: unknown) => void;
}

const REPLAY_CATCH_UP_BATCH = 2000;

export class EngineRunner {
  private queue: Pending[] = [];
  private flushScheduled = false;
  /** Change records committed but not yet handed to afterCommit. */
  private unpublished: Change[] | undefined;
  /** Set when the engine could not be rebuilt from disk: nothing is accepted until a restart. */
  private broken = false;
  private current: Engine;
  /** The journal position the engine's state covers. */
  private lastSeq = 0;
  private snapshotSeq = 0;
  private snapshotAt: number;

  constructor(
    private readonly store: TradingStore,
    private readonly opts: RunnerOptions,
  ) {
    this.current = opts.createEngine();
    this.snapshotAt = opts.now();
  }

  /** The live engine (replaced when rebuilt after a storage failure). */
  get engine(): Engine {
    return this.current;
  }

  /**
   * Rebuilds the engine: the newest valid snapshot plus the journal after it, else the whole journal. Read models
   * behind the journal (an upgraded data dir) are brought up to date on the way.
   */
  replay(): ReplayReport {
    const covered = this.store.readModels.position();
    for (const snap of this.store.snapshots.valid()) {
      // Read models behind a snapshot need the change records of commands the snapshot already covers.
      if (snap.seq > covered) continue;
      let engine: Engine;
      try {
        engine = this.opts.createEngine(snap.state);
      } catch (err) {
        this.opts.onSnapshotProblem?.(err, `snapshot at ${snap.seq} cannot be restored`);
        continue;
      }
      const { replayed, lastSeq } = this.replayOnto(engine, snap.seq, covered);
      this.install(engine, lastSeq, snap.seq);
      return { replayed, snapshotSeq: snap.seq };
    }
    const archived = this.store.snapshots.archivedThrough();
    if (archived > 0) throw new Error(`no valid snapshot, and journal rows through ${archived} are archived: restore them to rebuild`);
    const engine = this.opts.createEngine();
    const { replayed, lastSeq } = this.replayOnto(engine, 0, covered);
    this.install(engine, lastSeq, 0);
    return { replayed };
  }

  private replayOnto(engine: Engine, afterSeq: number, covered: number): { replayed: number; lastSeq: number } {
    let behind: { seq: number; changes: readonly Change[] }[] = [];
    let n = 0;
    let lastSeq = afterSeq;
    for (const { seq, cmd } of this.store.replay(afterSeq)) {
      let applied: Applied | undefined;
      try {
        applied = engine.apply(cmd);
      } catch (err) {
        // A journaled command was accepted once; a refusal now means the journal and the code disagree.
        if (!(err instanceof DomainError)) throw err;
      }
      if (seq > covered) {
        behind.push({ seq, changes: applied?.changes ?? [] });
        if (behind.length >= REPLAY_CATCH_UP_BATCH) {
          this.store.catchUp(behind);
          behind = [];
        }
      }
      lastSeq = seq;
      n++;
    }
    if (behind.length > 0) this.store.catchUp(behind);
    return { replayed: n, lastSeq };
  }

  /** The engine becomes live only once fully rebuilt, with the position it covers. */
  private install(engine: Engine, lastSeq: number, snapshotSeq: number): void {
    this.current = engine;
    this.lastSeq = lastSeq;
    this.snapshotSeq = snapshotSeq;
    this.snapshotAt = this.opts.now();
  }

  stop(): void {
    if (this.queue.length > 0) this.flush();
    this.publishCommitted();
  }

  /** Applies a command now; resolves after it is durable, rejects with DomainError if refused. */
  submit<C extends Command>(cmd: C): Promise<ResultOf<C>> {
    if (this.broken) return Promise.reject(new DomainError('STORAGE_FAILED'));
    this.publishCommitted();
    let applied: Applied<ResultOf<C>>;
    try {
      applied = this.current.apply(cmd);
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ cmd, applied, resolve: resolve as (r: CommandResult) => void, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Writes a snapshot of the engine as of the last commit; returns the position it covers. */
  snapshotNow(): number {
    // Only between commits, when memory equals disk.
    if (this.queue.length > 0) this.flush();
    if (this.lastSeq === this.snapshotSeq) return this.snapshotSeq;
    try {
      this.store.snapshots.write(this.lastSeq, this.current.snapshot(), this.opts.now());
      this.snapshotSeq = this.lastSeq;
    } catch (err) {
      this.opts.onSnapshotProblem?.(err, 'snapshot not written');
    }
    this.snapshotAt = this.opts.now();
    return this.snapshotSeq;
  }

  private flush(): void {
    this.flushScheduled = false;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    try {
      this.lastSeq = this.store.commit(batch.map((p) => ({ cmd: p.cmd, changes: p.applied.changes })));
    } catch (err) {
      // The transaction rolled back: memory is ahead of disk. Refuse the batch and rebuild from disk.
      for (const p of batch) p.reject(new DomainError('STORAGE_FAILED'));
      this.recover(err);
      return;
    }
    const changes: Change[] = [];
    for (const p of batch) {
      p.resolve(p.applied.result);
      for (const c of p.applied.changes) changes.push(c);
    }
    this.opts.committed?.(changes);
    // Reply first, fan out after: the callers' replies are written in the microtasks that follow this flush; the
    // realtime rendering waits for the next turn, so however many subscribers a book has, it never delays them.
    if (this.unpublished) this.unpublished.push(...changes);
    else {
      this.unpublished = changes;
      setImmediate(() => this.publishCommitted());
    }
    const due = this.lastSeq - this.snapshotSeq >= this.opts.snapshotEveryCommands || this.opts.now() - this.snapshotAt >= this.opts.snapshotEveryMs;
    if (due) this.snapshotNow();
  }

  /** Hands the committed but unpublished change records to afterCommit, once. */
  private publishCommitted(): void {
    const changes = this.unpublished;
    if (!changes) return;
    this.unpublished = undefined;
    this.opts.afterCommit(changes);
  }

  private recover(err: unknown): void {
    try {
      this.replay();
    } catch (replayErr) {
      this.broken = true;
      this.opts.onStorageFailure(replayErr, false);
      return;
    }
    this.opts.onStorageFailure(err, true);
  }
}
