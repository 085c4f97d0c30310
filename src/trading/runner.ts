// Drives the pure engine: applies commands one at a time, commits them with their change records (journal and read
// models in one transaction per event-loop turn) and resolves each caller only once its command is on disk.
// A failed commit never leaves memory ahead of disk: the batch is refused with STORAGE_FAILED, the engine is rebuilt
// from what the disk holds, and the next command tries the disk again.
import type { Applied, Engine } from '../engine/engine.js';
import type { Change } from '../engine/changes.js';
import { DomainError } from '../engine/errors.js';
import type { Command, CommandResult, ResultOf } from '../engine/types.js';
import type { TradingStore } from '../store/trading-store.js';

export interface RunnerOptions {
  /** Builds an empty engine (at start and when rebuilding after a failed commit). */
  createEngine: () => Engine;
  /** Called after each group commit with the batch's change records, in order. */
  afterCommit: (changes: readonly Change[]) => void;
  /** A commit failed; the engine was rebuilt from disk (or could not be, if `rebuilt` is false). */
  onStorageFailure: (err: unknown, rebuilt: boolean) => void;
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
  /** Set when the engine could not be rebuilt from disk: nothing is accepted until a restart. */
  private broken = false;
  private current: Engine;

  constructor(
    private readonly store: TradingStore,
    private readonly opts: RunnerOptions,
  ) {
    this.current = opts.createEngine();
  }

  /** The live engine (replaced when rebuilt after a storage failure). */
  get engine(): Engine {
    return this.current;
  }

  /**
   * Rebuilds the engine from the journal; read models behind the journal (an upgraded data dir) are brought up to
   * date on the way. Returns the number of commands replayed.
   */
  replay(): number {
    const engine = this.opts.createEngine();
    const covered = this.store.readModels.position();
    let behind: { seq: number; changes: readonly Change[] }[] = [];
    let n = 0;
    for (const { seq, cmd } of this.store.replay()) {
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
      n++;
    }
    if (behind.length > 0) this.store.catchUp(behind);
    this.current = engine;
    return n;
  }

  stop(): void {
    if (this.queue.length > 0) this.flush();
  }

  /** Applies a command now; resolves after it is durable, rejects with DomainError if refused. */
  submit<C extends Command>(cmd: C): Promise<ResultOf<C>> {
    if (this.broken) return Promise.reject(new DomainError('STORAGE_FAILED'));
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

  private flush(): void {
    this.flushScheduled = false;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    try {
      this.store.commit(batch.map((p) => ({ cmd: p.cmd, changes: p.applied.changes })));
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
