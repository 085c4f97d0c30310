// Drives the pure engine: applies commands one at a time and commits them with their change records (journal and
// read models in one transaction per group) in a pipeline: while one group's commit is being synced to disk off the
// event loop, the engine goes on applying the next commands, which form the next group. A caller is answered only
// once its group is durable. Start-up restores the newest valid snapshot and replays the journal's tail; snapshots
// are taken between commits.
// A write the database refused because another connection held it (StoreBusyError) wrote nothing: the group waits
// and is written again a little later, with the commands applied meanwhile behind it, until the database has been
// busy for `busyRetry.forMs` (counted from the first attempt, including any wait for the lock inside one). Any
// other failed write never leaves memory ahead of disk: the group is refused with STORAGE_FAILED, the engine is
// rebuilt from what the disk holds (reading it is asynchronous: meanwhile every command is refused with
// STORAGE_FAILED rather than applied to the engine being replaced), and the next command tries the disk again. That
// rebuild reads the journal only: it never waits for the read models, whose database may refuse writes for the same
// reason (a full disk); a rebuild that fails is tried again at the next command. From a failed write until a write
// succeeds again the store is reported failing (readiness). A failed sync leaves it unknown what
// the disk holds: that group and every later one are refused. A store that heals (a database server that restarted
// or dropped a connection) is asked to, again and again with a growing pause, while commands are refused with
// STORAGE_UNAVAILABLE; once it has, the engine is rebuilt from what it holds and trading resumes by itself. Any other
// store, or one another writer took over meanwhile, refuses trading until a restart rebuilds from the disk.
// Once durable, a group's journal entries go to the projection loop, which derives the read models and the realtime
// publications from them after its callers are answered: nothing but the engine and the journal runs in the turn.
import type { Applied, Engine, EngineSnapshot } from '../engine/engine.js';
import type { Change } from '../engine/changes.js';
import { DomainError } from '../engine/errors.js';
import type { Command, CommandResult, ResultOf } from '../engine/types.js';

import { StoreBusyError, type TradingStore, type ProjectedEntry } from './ports.js';
import { readArchivedRows } from './journal-archive-file.js';
import { decodeJson } from './json-codec.js';
import { SetupError } from '../setup-error.js';

export interface RunnerOptions {
  /** Builds an engine: empty, or in the state a snapshot recorded. */
  createEngine: (snapshot?: EngineSnapshot) => Engine;
  /** Called once a group is durable, before its callers are answered (catalogue memory, hand-offs to the chain). */
  committed?: (changes: readonly Change[]) => void;
  /** Where durable journal entries go: the read models' projection (and, through it, the realtime publications). */
  projection: {
    /** The journal position the read models cover. */
    readonly position: number;
    enqueue(entries: readonly ProjectedEntry[]): void;
    /** Projects what is queued now, blocking (an embedded store's shutdown). */
    flushNow(): void;
    /** Projects what is queued now; rejects if that takes longer than `timeoutMs` (default: the loop's own bound). */
    flush(timeoutMs?: number): Promise<void>;
  };
  /**
   * A commit failed; the engine was rebuilt from disk (`rebuilt` true), could not be and is rebuilt again at the next
   * command ('retried': `err` is the rebuild's failure), or trading is refused until a restart (false).
   */
  onStorageFailure: (err: unknown, rebuilt: boolean | 'retried') => void;
  /**
   * Another writer holds the journal now (its lock and a newer epoch: a standby took over while this one had lost
   * its lock): this process must stop taking commands. Called once, before onStorageFailure.
   */
  onSuperseded?: () => void;
  /** An attempt to heal the store after a failed sync failed; it is tried again after `retryInMs`. */
  onHealAttempt?: (err: unknown, retryInMs: number) => void;
  /** Pauses between attempts to heal the store: the first, doubled each time up to the last. */
  healRetryMs?: { first: number; max: number };
  now: () => number;
  snapshotEveryCommands: number;
  snapshotEveryMs: number;
  /** A snapshot could not be written or loaded (trading goes on; start-up falls back to an older one). */
  onSnapshotProblem?: (err: unknown, what: string) => void;
  /**
   * A group the database was too busy to take is written again every `delayMs` until the database has been busy
   * for `forMs` (on the monotonic clock), and refused after that.
   */
  busyRetry: { forMs: number; delayMs: number };
  /**
   * Where archived journal rows are kept (journal-archive-file.ts): read models behind the archived rows (deleted, or
   * restored without them) are projected from these files before the journal's own rows.
   */
  archiveDir?: string;
}

/** An engine kept in the state the journal gives through `seq`, built on the snapshot at `snapshotSeq` (0: none). */
export interface WarmEngine {
  engine: Engine;
  seq: number;
  snapshotSeq: number;
  /** When the oldest command after the snapshot was journaled (undefined: none was). */
  uncoveredSince?: number;
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

/** A written group on its way to disk. */
interface Group {
  batch: Pending[];
  changes: Change[];
  entries: ProjectedEntry[];
}

const REPLAY_CATCH_UP_BATCH = 2000;

/** The database was too busy to take the group; it is back at the head of the queue. */
const BUSY = 'busy';

/** Blocks the thread (shutdown and snapshots on request, which must finish before they return). */
const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

export class EngineRunner {
  /** Applied, not yet written: the next group. */
  private queue: Pending[] = [];
  private flushScheduled = false;
  /** Written, being synced: at most one group at a time, so the next one gathers everything applied meanwhile. */
  private syncing: Group | undefined;
  /** Set when the disk's state is unknown or the engine could not be rebuilt: nothing is accepted until a restart. */
  private broken = false;
  /** Set while the engine is rebuilt after a failed write: commands are refused until it is live again. */
  private rebuilding = false;
  /** Set when that rebuild failed: the next command starts another one (and is refused). */
  private rebuildFailed: unknown;
  /** Set from a write the store refused until one succeeds (a commit, or the store's write probe). */
  private writeRefused = false;
  /** Set from a failed sync until the store has healed and the engine is rebuilt from it. */
  private healing = false;
  /** The store lost its hold while a group was syncing: healed once that sync ends. */
  private lostDuringSync: Error | undefined;
  /** Ends the pause between attempts to heal the store at once (set during a pause). */
  private wakeHeal: (() => void) | undefined;
  private stopped = false;
  private current: Engine;
  /** The journal position the written state covers. */
  private lastSeq = 0;
  /** The journal position of the last command whose caller was answered (durable). */
  private durable_ = 0;
  private snapshotSeq = 0;
  private snapshotAt: number;
  /** When the write attempts of the current group began to find the database busy (performance.now()). */
  private busySince: number | undefined;
  private busyWaitCount = 0;
  /** Callers of drain() waiting for nothing to be queued, written or syncing. */
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly store: TradingStore,
    private readonly opts: RunnerOptions,
  ) {
    this.current = opts.createEngine();
    this.snapshotAt = opts.now();
    store.watchHold?.((err) => this.holdLost(err));
  }

  /** Writes of a group the database was too busy to take, each followed by a wait and a new attempt (since start). */
  get busyWaits(): number {
    return this.busyWaitCount;
  }

  /** Why commands are refused now (a store being healed, or broken until a restart); undefined while it takes them. */
  get storageProblem(): 'STORAGE_UNAVAILABLE' | 'STORAGE_FAILED' | undefined {
    if (this.broken) return 'STORAGE_FAILED';
    if (this.healing) return 'STORAGE_UNAVAILABLE';
    return this.rebuilding || this.rebuildFailed !== undefined || this.writeRefused ? 'STORAGE_FAILED' : undefined;
  }

  /**
   * While the last write was refused and nothing waits to be written, asks the store whether it takes a write now
   * (readiness): an exchange nobody sends commands to while it is unready (a load balancer's) becomes ready again
   * once its disk does, without a command.
   */
  probeWrites(): void {
    if (!this.writeRefused || this.rebuilding || this.broken || this.healing || this.syncing || this.queue.length > 0 || !this.store.probeWrite) return;
    try {
      this.store.probeWrite();
      this.writeRefused = false;
    } catch {
      // Still refused: the next check asks again.
    }
  }

  /** The journal position of the last acknowledged command: what a read arriving now must see. */
  get durableSeq(): number {
    return this.durable_;
  }

  /** The live engine (replaced when rebuilt after a storage failure). */
  get engine(): Engine {
    return this.current;
  }

  /**
   * Rebuilds the engine: the newest valid snapshot plus the journal after it, else the whole journal. Read models
   * behind the journal (an upgraded data dir) are brought up to date on the way.
   */
  async replay(): Promise<ReplayReport> {
    await this.catchUpFromJournal();
    return this.rebuildEngine(this.opts.projection.position, true);
  }

  /**
   * Builds the engine from the newest snapshot the read models can follow (at or before `covered`, the position
   * whose change records they hold or have been handed) and the journal after it; change records after `covered`
   * are handed to the projection, and waited for if `awaitProjection`.
   */
  private async rebuildEngine(covered: number, awaitProjection: boolean): Promise<ReplayReport> {
    for await (const snap of this.store.snapshots.valid()) {
      // Read models behind a snapshot need the change records of commands the snapshot already covers.
      if (snap.seq > covered) continue;
      let engine: Engine;
      try {
        engine = this.opts.createEngine(snap.state);
      } catch (err) {
        this.opts.onSnapshotProblem?.(err, `snapshot at ${snap.seq} cannot be restored`);
        continue;
      }
      const { replayed, lastSeq, firstAt } = await this.replayOnto(engine, snap.seq, covered, awaitProjection);
      this.install(engine, lastSeq, snap.seq, firstAt);
      return { replayed, snapshotSeq: snap.seq };
    }
    const archived = this.store.snapshots.archivedThrough();
    if (archived > 0) {
      const where = this.opts.archiveDir ? ` (the files of ${this.opts.archiveDir})` : '';
      throw new SetupError(
        `no valid snapshot, and journal rows through ${archived} are archived: restore them to rebuild` +
          `${where}; the read models cover ${this.opts.projection.position}`,
      );
    }
    const engine = this.opts.createEngine();
    const { replayed, lastSeq, firstAt } = await this.replayOnto(engine, 0, covered, awaitProjection);
    this.install(engine, lastSeq, 0, firstAt);
    return { replayed };
  }

  /**
   * Goes on from an engine already in the state the journal gives through `warm.seq` (a hot standby's, which followed
   * the journal while another process wrote it): the read models are brought up to that position from the change
   * records the journal holds, then anything journaled after it is replayed as at start. A journal row without
   * change records (written before they were kept) cannot be projected that way: the engine is rebuilt as at start.
   */
  async resume(warm: WarmEngine): Promise<ReplayReport> {
    for (let at = this.opts.projection.position; at < warm.seq; ) {
      const rows = (await this.store.changesAfter(at, REPLAY_CATCH_UP_BATCH)).filter((r) => r.seq <= warm.seq);
      if (rows.length === 0) break;
      const entries: ProjectedEntry[] = [];
      for (const r of rows) {
        if (!r.changes) return this.replay();
        entries.push({ seq: r.seq, at: r.at, changes: r.changes });
      }
      await this.catchUp(entries);
      at = entries[entries.length - 1]!.seq;
    }
    const { replayed, lastSeq, firstAt } = await this.replayOnto(warm.engine, warm.seq, this.opts.projection.position, true);
    this.install(warm.engine, lastSeq, warm.snapshotSeq, warm.uncoveredSince ?? firstAt);
    return { replayed, ...(warm.snapshotSeq > 0 ? { snapshotSeq: warm.snapshotSeq } : {}) };
  }

  /**
   * Brings the read models up to the journal's end from the change records it holds, before a snapshot is chosen: a
   * projector that lagged (or could not write) while snapshots were taken leaves every kept snapshot ahead of the read
   * models, and none of them could be used; with the journal's head archived, the exchange could not start at all.
   * Stops at a row without change records (journaled before they were kept: replay projects those) and does nothing
   * for read models behind the archived rows (the rows between are not in the journal).
   */
  private async catchUpFromJournal(): Promise<void> {
    if (this.opts.projection.position < this.store.snapshots.archivedThrough()) await this.catchUpFromArchive();
    if (this.opts.projection.position < this.store.snapshots.archivedThrough()) return;
    for (let at = this.opts.projection.position; ; ) {
      const rows = await this.store.changesAfter(at, REPLAY_CATCH_UP_BATCH);
      const entries: ProjectedEntry[] = [];
      for (const r of rows) {
        if (!r.changes) break;
        entries.push({ seq: r.seq, at: r.at, changes: r.changes });
      }
      if (entries.length > 0) await this.catchUp(entries);
      if (entries.length < rows.length || rows.length < REPLAY_CATCH_UP_BATCH) return;
      at = entries[entries.length - 1]!.seq;
    }
  }

  /** Projects archived rows the read models lack from the archive's files, as far as they follow on. */
  private async catchUpFromArchive(): Promise<void> {
    if (!this.opts.archiveDir) return;
    const through = this.store.snapshots.archivedThrough();
    for await (const rows of readArchivedRows(this.opts.archiveDir, this.opts.projection.position, REPLAY_CATCH_UP_BATCH)) {
      const entries: ProjectedEntry[] = [];
      for (const r of rows) {
        if (r.seq > through) break;
        if (r.changes === null) break;
        entries.push({ seq: r.seq, at: r.at_ms, changes: decodeJson<Change[]>(r.changes) });
      }
      if (entries.length > 0) await this.catchUp(entries);
      if (entries.length < rows.length) return;
    }
  }

  /** Applies the journal after `afterSeq`; `firstAt` is the time of the first command applied (undefined: none). */
  private async replayOnto(
    engine: Engine,
    afterSeq: number,
    covered: number,
    awaitProjection: boolean,
  ): Promise<{ replayed: number; lastSeq: number; firstAt: number | undefined }> {
    const catchUp = (entries: readonly ProjectedEntry[]) => (awaitProjection ? this.catchUp(entries) : this.opts.projection.enqueue(entries));
    let behind: ProjectedEntry[] = [];
    let n = 0;
    let lastSeq = afterSeq;
    let firstAt: number | undefined;
    for await (const page of this.store.replay(afterSeq)) {
      for (const { seq, cmd } of page) {
        firstAt ??= cmd.at;
        let applied: Applied | undefined;
        try {
          applied = engine.apply(cmd);
        } catch (err) {
          // A journaled command was accepted once; a refusal now means the journal and the code disagree.
          if (!(err instanceof DomainError)) throw err;
        }
        if (seq > covered) {
          behind.push({ seq, at: cmd.at, changes: applied?.changes ?? [] });
          if (behind.length >= REPLAY_CATCH_UP_BATCH) {
            await catchUp(behind);
            behind = [];
          }
        }
        lastSeq = seq;
        n++;
      }
    }
    if (behind.length > 0) await catchUp(behind);
    return { replayed: n, lastSeq, firstAt };
  }

  /** Projects change records of commands already journaled (the read models were behind the journal). */
  private async catchUp(entries: readonly ProjectedEntry[]): Promise<void> {
    this.opts.projection.enqueue(entries);
    await this.opts.projection.flush();
  }

  /**
   * The engine becomes live only once fully rebuilt, with the position it covers. The time rule of snapshots counts
   * from `uncoveredSince`, when the oldest command no snapshot covers was journaled (by whichever process), not from
   * this start: an exchange killed more often than ODDEX_SNAPSHOT_EVERY_MS would otherwise never take one by time,
   * and each start would replay a longer tail than the one before.
   */
  private install(engine: Engine, lastSeq: number, snapshotSeq: number, uncoveredSince: number | undefined): void {
    this.current = engine;
    this.lastSeq = lastSeq;
    this.durable_ = lastSeq;
    this.snapshotSeq = snapshotSeq;
    this.snapshotAt = Math.min(uncoveredSince ?? Infinity, this.opts.now());
  }

  /**
   * Waits until everything applied so far is durable and answered (or refused), through the store's asynchronous
   * syncs alone, then projects it: the shutdown of a store that cannot sync blocking the thread (PostgreSQL).
   */
  async drain(): Promise<void> {
    await this.drainWrites();
    await this.opts.projection.flush();
  }

  /** Waits until everything applied so far is durable and answered (or refused). */
  private async drainWrites(): Promise<void> {
    while (this.syncing || this.flushScheduled || this.queue.length > 0) {
      await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    }
  }

  private notifyIfIdle(): void {
    if (this.syncing || this.flushScheduled || this.queue.length > 0) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  /** Writes and syncs everything applied, answers its callers, and projects it (shutdown). */
  stop(): void {
    this.stopped = true;
    this.drainNow();
    this.opts.projection.flushNow();
  }

  /** Applies a command now; resolves after it is durable, rejects with DomainError if refused. */
  submit<C extends Command>(cmd: C): Promise<ResultOf<C>> {
    if (this.healing) {
      this.wakeHeal?.();
      return Promise.reject(new DomainError('STORAGE_UNAVAILABLE'));
    }
    if (this.rebuildFailed !== undefined && !this.rebuilding && !this.broken) this.recover(this.rebuildFailed);
    if (this.broken || this.rebuilding) return Promise.reject(new DomainError('STORAGE_FAILED'));
    let applied: Applied<ResultOf<C>>;
    try {
      applied = this.current.apply(cmd);
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ cmd, applied, resolve: resolve as (r: CommandResult) => void, reject });
      this.scheduleFlush();
    });
  }

  /**
   * Ends: everything applied is made durable and answered, through the store's asynchronous syncs (a database
   * server's shutdown as well as an embedded one's); a store being healed is no longer waited for. Then the
   * projection is waited for, at most `projectionWaitMs`: rejects if it did not catch up by then (a projector whose
   * database refuses writes); the next start projects the rest from the journal.
   */
  async close(projectionWaitMs?: number): Promise<void> {
    this.stopped = true;
    await this.drainWrites();
    await this.opts.projection.flush(projectionWaitMs);
  }

  /**
   * Writes a snapshot of the engine once everything applied is durable, through the store's asynchronous sync;
   * resolves to the position it covers.
   */
  async snapshot(): Promise<number> {
    // Once closed, the projection was waited for (close): the next start brings the read models up to the journal
    // before it chooses a snapshot, so a stop does not wait for them again.
    if (this.stopped) await this.drainWrites();
    else await this.drain();
    if (this.broken || this.rebuilding || this.healing) return this.snapshotSeq;
    this.writeSnapshot();
    await this.store.sync();
    return this.snapshotSeq;
  }

  /** Writes a snapshot of the engine as of the last commit, durably, blocking; returns the position it covers. */
  snapshotNow(): number {
    this.drainNow();
    // Mid-rebuild the live engine is ahead of the disk: nothing of it may be snapshotted.
    if (this.broken || this.rebuilding) return this.snapshotSeq;
    this.writeSnapshot();
    this.syncNowOrBreak(undefined);
    return this.snapshotSeq;
  }

  /** A group is written when none is being synced: one sync at a time, each covering all that was applied before. */
  private scheduleFlush(): void {
    if (this.flushScheduled || this.syncing) return;
    this.flushScheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.flushScheduled = false;
    if (this.syncing) return;
    const group = this.write();
    if (group === BUSY) {
      // Held as scheduled, so that commands applied meanwhile only join the queue.
      this.flushScheduled = true;
      setTimeout(() => this.flush(), this.opts.busyRetry.delayMs);
      return;
    }
    if (!group) {
      this.notifyIfIdle();
      return;
    }
    this.syncing = group;
    this.store.sync().then(
      () => this.durable(group),
      (err: unknown) => {
        if (this.syncing === group) this.syncFailed(group, err);
      },
    );
  }

  /**
   * Writes the queue as one transaction; the caller makes it durable. A database too
   * busy to take it gives BUSY, with the queue as it was, until busyRetry.forMs is spent. A failed write rolls back:
   * memory is ahead of disk, so the group is refused and the engine rebuilt from disk.
   */
  private write(): Group | typeof BUSY | undefined {
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return undefined;
    if (this.broken) {
      for (const p of batch) p.reject(new DomainError('STORAGE_FAILED'));
      return undefined;
    }
    // A store may wait for the lock inside an attempt: that wait counts as busy time too.
    const attemptAt = performance.now();
    try {
      this.lastSeq = this.store.commit(batch.map((p) => ({ cmd: p.cmd, changes: p.applied.changes })));
    } catch (err) {
      if (err instanceof StoreBusyError) {
        this.busySince ??= attemptAt;
        if (performance.now() - this.busySince < this.opts.busyRetry.forMs) {
          this.busyWaitCount++;
          this.queue = batch;
          return BUSY;
        }
      }
      this.busySince = undefined;
      this.writeRefused = true;
      for (const p of batch) p.reject(new DomainError('STORAGE_FAILED'));
      this.recover(err);
      return undefined;
    }
    this.busySince = undefined;
    this.writeRefused = false;
    const changes: Change[] = [];
    for (const p of batch) for (const c of p.applied.changes) changes.push(c);
    // A group's rows take consecutive positions, the last one returned.
    const first = this.lastSeq - batch.length + 1;
    const entries = batch.map((p, i) => ({ seq: first + i, at: p.cmd.at, changes: p.applied.changes }));
    const group = { batch, changes, entries };
    // Snapshots are taken here, where the engine is exactly as written; the WAL keeps them behind the journal rows
    // they cover, and the group's sync makes both durable.
    const due = this.lastSeq - this.snapshotSeq >= this.opts.snapshotEveryCommands || this.opts.now() - this.snapshotAt >= this.opts.snapshotEveryMs;
    if (due) this.writeSnapshot();
    return group;
  }

  /** A group is on disk: answer its callers, hand it to the projection, then write the next group. */
  private durable(group: Group): void {
    if (this.syncing !== group) return; // already completed by a blocking drain
    this.syncing = undefined;
    this.complete(group);
    const lost = this.lostDuringSync;
    if (lost) return this.syncFailed(undefined, lost);
    // Replies go out in the microtasks after this callback; the next group is written on this turn's check phase,
    // and the projection runs after it, while that group's sync is under way.
    if (this.queue.length > 0) this.scheduleFlush();
    else this.notifyIfIdle();
  }

  private complete(group: Group): void {
    this.opts.committed?.(group.changes);
    this.durable_ = group.entries[group.entries.length - 1]!.seq;
    for (const p of group.batch) p.resolve(p.applied.result);
    this.opts.projection.enqueue(group.entries);
  }

  /**
   * The disk refused a sync: what it holds of this group is unknown, and the commands applied after it built on it.
   * Refuse them all and stop trading; a restart rebuilds from whatever the disk holds.
   */
  private syncFailed(group: Group | undefined, err: unknown): void {
    this.syncing = undefined;
    this.lostDuringSync = undefined;
    const heals = this.store.heal !== undefined && !this.stopped;
    if (heals) this.healing = true;
    else this.broken = true;
    const refused = [...(group?.batch ?? []), ...this.queue];
    this.queue = [];
    for (const p of refused) p.reject(new DomainError(heals ? 'STORAGE_UNAVAILABLE' : 'STORAGE_FAILED'));
    if (heals) void this.heal(err);
    else this.opts.onStorageFailure(err, false);
    this.notifyIfIdle();
  }

  /** The store lost its hold on the journal with no sync failing: heal it now, as after a failed sync. */
  private holdLost(err: Error): void {
    if (this.stopped || this.healing || this.broken) return;
    if (this.syncing) this.lostDuringSync = err;
    else this.syncFailed(undefined, err);
  }

  /**
   * Asks the store to heal until it has (or was lost to another writer), then rebuilds the engine from it: the failed
   * sync's rows may or may not be there, and the journal is the truth either way.
   */
  private async heal(err: unknown): Promise<void> {
    const { first, max } = this.opts.healRetryMs ?? { first: 200, max: 5_000 };
    for (let pause = first; !this.stopped; pause = Math.min(pause * 2, max)) {
      try {
        if ((await this.store.heal!()) === 'lost') {
          this.opts.onSuperseded?.();
          break;
        }
        await this.replay();
        this.healing = false;
        this.opts.onStorageFailure(err, true);
        return;
      } catch (attemptErr) {
        this.opts.onHealAttempt?.(attemptErr, pause);
        await this.healPause(first, pause);
      }
    }
    this.healing = false;
    this.broken = true;
    this.opts.onStorageFailure(err, false);
  }

  /**
   * Waits `pause` before the next attempt to heal, or less once a command comes (at least `min` after the last
   * attempt): the pauses grow while nobody trades, and a database back after a long outage is found by the first
   * command that wants it, not at the end of a pause of seconds.
   */
  private async healPause(min: number, pause: number): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, Math.min(min, pause)));
    if (pause <= min || this.stopped) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, pause - min);
      this.wakeHeal = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wakeHeal = undefined;
  }

  /** Blocking: completes the group being synced, then writes and syncs what the queue holds. */
  private drainNow(): void {
    const inFlight = this.syncing;
    if (inFlight) {
      if (!this.syncNowOrBreak(inFlight)) return;
      this.syncing = undefined;
      this.complete(inFlight);
    }
    let group = this.write();
    while (group === BUSY) {
      sleepSync(this.opts.busyRetry.delayMs);
      group = this.write();
    }
    if (!group) return;
    this.syncing = group;
    if (!this.syncNowOrBreak(group)) return;
    this.syncing = undefined;
    this.complete(group);
  }

  private syncNowOrBreak(group: Group | undefined): boolean {
    try {
      this.store.syncNow();
      return true;
    } catch (err) {
      this.syncFailed(group, err);
      return false;
    }
  }

  private writeSnapshot(): void {
    if (this.lastSeq !== this.snapshotSeq) {
      try {
        this.store.snapshots.write(this.lastSeq, this.current.snapshot(), this.opts.now());
        this.snapshotSeq = this.lastSeq;
      } catch (err) {
        this.opts.onSnapshotProblem?.(err, 'snapshot not written');
      }
    }
    this.snapshotAt = this.opts.now();
  }

  /**
   * Rebuilds the engine from disk after a failed write, refusing commands until it is live. Reads of `engine` see the
   * refused group until then: on SQLite the rebuild's reads are synchronous, so it completes in this turn's
   * microtasks before any request is handled; the PostgreSQL store only holds rows in `commit` (its failures come in
   * `sync`, which stops trading instead), so a rebuild over a connection does not happen today.
   */
  private recover(err: unknown): void {
    this.rebuilding = true;
    this.rebuildFailed = undefined;
    // Everything acknowledged was handed to the projection already (complete()): the rebuild needs the journal alone,
    // and a projector that cannot write (the read models on the same full disk) must not hold trading up.
    this.rebuildEngine(this.durable_, false).then(
      () => {
        this.rebuilding = false;
        this.opts.onStorageFailure(err, true);
      },
      (rebuildErr: unknown) => {
        this.rebuilding = false;
        // Not broken for good: what the disk holds is known (the failed write rolled back), and the next command
        // tries the rebuild again.
        this.rebuildFailed = err;
        this.opts.onStorageFailure(rebuildErr, 'retried');
      },
    );
  }
}
