// The runner's pipelined group commit against a real engine and store, with the WAL sync under the test's control:
// callers wait for durability, the engine goes on meanwhile, publications carry only durable groups, and a failed
// sync refuses its group and everything applied after it.
import { afterEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { Engine } from '../engine/engine.js';
import { defaultEngineParams, USDC } from '../../test/helpers/engine-params.js';
import { DomainError } from '../engine/errors.js';
import type { Change } from '../engine/changes.js';
import type { Command } from '../engine/types.js';
import { migrate, type Db } from './sqlite/db.js';
import { lockableDatabase } from '../../test/helpers/trading-store-fixture.js';
import { MIGRATIONS } from './sqlite/migrations.js';
import { SqliteTradingStore } from './sqlite/trading-store.js';
import type { WalSync } from './sqlite/wal-sync.js';
import { EngineRunner, type RunnerOptions } from './runner.js';
import { StoreBusyError, type JournalEntry, type JournaledChanges, type JournaledCommand } from './ports.js';

const TOKEN = '0x00000000000000000000000000000000000000B1';
const A = '0x00000000000000000000000000000000000000A1';
const B = '0x00000000000000000000000000000000000000A2';
const faucet = (address: string, usdc: bigint): Command => ({ kind: 'faucet', at: 1000, address, amount: usdc * USDC });
const turn = () => new Promise((r) => setImmediate(r));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Waits (a turn at a time, at most a second) until `cond` holds. */
async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !cond(); i++) await sleep(1);
}

/** A WAL sync that completes only when the test says so; blocking syncs succeed unless `failNow` is set. */
class HeldSync implements WalSync {
  readonly waiting: { resolve: () => void; reject: (e: unknown) => void }[] = [];
  blockingSyncs = 0;
  failNow: Error | undefined;
  sync(): Promise<void> {
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }
  syncNow(): void {
    if (this.failNow) throw this.failNow;
    this.blockingSyncs++;
  }
  close(): void {}
}

/** A store whose next commit fails when told, and whose journal reads wait for `gate` when one is set. */
class FaultyStore extends SqliteTradingStore {
  failNextCommit: Error | undefined;
  gate: Promise<void> | undefined;
  override commit(entries: readonly JournalEntry[]): number {
    const err = this.failNextCommit;
    this.failNextCommit = undefined;
    if (err) throw err;
    return super.commit(entries);
  }
  override async *replay(afterSeq = 0): AsyncGenerator<JournaledCommand[]> {
    if (this.gate) await this.gate;
    yield* super.replay(afterSeq);
  }
  override async changesAfter(afterSeq: number, limit?: number): Promise<JournaledChanges[]> {
    if (this.gate) await this.gate;
    return super.changesAfter(afterSeq, limit);
  }
}

/** A runner over an in-memory store, or over `db` (a busy database, in the tests of one). */
async function setUp(opts: { db?: Db; busyRetry?: RunnerOptions['busyRetry'] } = {}) {
  const db = opts.db ?? new Database(':memory:');
  if (!opts.db) migrate(db, MIGRATIONS);
  const wal = new HeldSync();
  const store = new FaultyStore(db, wal);
  const log: string[] = [];
  const failures: { err: unknown; rebuilt: boolean | 'retried' }[] = [];
  const balance = (address: string) => runner.engine.balances(address).balance / USDC;
  const describeChanges = (changes: readonly Change[]) => changes.length;
  const runner: EngineRunner = new EngineRunner(store, {
    createEngine: (snapshot) => (snapshot ? Engine.restore(defaultEngineParams(TOKEN), snapshot) : new Engine(defaultEngineParams(TOKEN))),
    committed: (changes) => log.push(`durable ${describeChanges(changes)}`),
    // Durable groups go to the projection with their journal positions.
    projection: {
      position: 0,
      enqueue: (entries) => log.push(`queued ${entries.map((e) => e.seq).join(',')}`),
      flushNow: () => log.push('projected'),
      flush: async () => {
        log.push('projected');
      },
    },
    onStorageFailure: (err, rebuilt) => failures.push({ err, rebuilt }),
    now: () => 1000,
    snapshotEveryCommands: 1_000_000,
    snapshotEveryMs: 1_000_000_000,
    busyRetry: opts.busyRetry ?? { forMs: 0, delayMs: 1 },
  });
  await runner.replay();
  const journaled = () => (db.prepare('SELECT count(*) AS n FROM journal').get() as { n: number }).n;
  const track = (p: Promise<unknown>, name: string) =>
    p.then(
      () => log.push(`answered ${name}`),
      (err: unknown) => log.push(`refused ${name} ${err instanceof DomainError ? err.errorCode : String(err)}`),
    );
  return { runner, store, wal, log, failures, balance, journaled, track };
}

describe('pipelined group commit', () => {
  it('answers a group only once it is durable, and writes everything applied during its sync as the next group', async () => {
    const { runner, wal, log, balance, journaled, track } = await setUp();
    void track(runner.submit(faucet(A, 10n)), 'a1');
    await turn();
    expect(journaled()).toBe(1);
    expect(wal.waiting).toHaveLength(1);

    // While the first group syncs, the engine applies the next commands at once; none is written yet.
    void track(runner.submit(faucet(A, 5n)), 'a2');
    void track(runner.submit(faucet(B, 7n)), 'b1');
    expect([balance(A), balance(B)]).toEqual([15n, 7n]);
    await turn();
    await turn();
    expect(journaled()).toBe(1);
    expect(log).toEqual([]);

    wal.waiting[0]!.resolve();
    await turn();
    await turn();
    // The second group holds both commands in one transaction and its own sync; its callers still wait.
    expect(journaled()).toBe(3);
    expect(wal.waiting).toHaveLength(2);
    expect(log).toEqual(['durable 1', 'queued 1', 'answered a1']);

    wal.waiting[1]!.resolve();
    await turn();
    await turn();
    expect(log.slice(3)).toEqual(['durable 2', 'queued 2,3', 'answered a2', 'answered b1']);
  });

  it('refuses the group whose sync failed, every command applied after it, and trading until a restart', async () => {
    const { runner, wal, log, failures, track } = await setUp();
    const first = track(runner.submit(faucet(A, 10n)), 'a1');
    await turn();
    const second = track(runner.submit(faucet(B, 7n)), 'b1');
    const diskError = new Error('EIO: i/o error, fdatasync');
    wal.waiting[0]!.reject(diskError);
    await Promise.all([first, second]);
    const third = track(runner.submit(faucet(B, 1n)), 'b2');
    await third;
    await turn();
    expect(log).toEqual(['refused a1 STORAGE_FAILED', 'refused b1 STORAGE_FAILED', 'refused b2 STORAGE_FAILED']);
    expect(failures).toEqual([{ err: diskError, rebuilt: false }]);
    // Nothing of a refused group went to the projection (so nothing of it is read or published).
    expect(log.some((l) => l.startsWith('queued'))).toBe(false);
  });

  it('stop completes the group being synced and the queue with blocking syncs, then projects them', async () => {
    const { runner, wal, log, journaled, track } = await setUp();
    const first = track(runner.submit(faucet(A, 10n)), 'a1');
    await turn();
    const second = track(runner.submit(faucet(B, 7n)), 'b1');
    runner.stop();
    await Promise.all([first, second]);
    expect(journaled()).toBe(2);
    expect(wal.blockingSyncs).toBe(2);
    expect(log).toEqual(['durable 1', 'queued 1', 'durable 1', 'queued 2', 'projected', 'answered a1', 'answered b1']);
    // The pipelined sync that was under way completes later and changes nothing.
    wal.waiting[0]!.resolve();
    await turn();
    expect(log).toHaveLength(7);
  });

  it('drain waits, with asynchronous syncs only, until the group being synced and the queue are durable and answered', async () => {
    const { runner, wal, log, journaled, track } = await setUp();
    const first = track(runner.submit(faucet(A, 10n)), 'a1');
    await turn();
    const second = track(runner.submit(faucet(B, 7n)), 'b1');
    let drained = false;
    const drain = runner.drain().then(() => (drained = true));
    await turn();
    expect(drained).toBe(false);
    wal.waiting[0]!.resolve();
    await turn();
    await turn();
    expect(journaled()).toBe(2);
    expect(drained).toBe(false);
    wal.waiting[1]!.resolve();
    await drain;
    await Promise.all([first, second]);
    expect(wal.blockingSyncs).toBe(0);
    expect(log).toEqual(['durable 1', 'queued 1', 'answered a1', 'durable 1', 'queued 2', 'answered b1', 'projected']);
    // Nothing left: a second drain returns at once.
    await runner.drain();
  });

  it('takes a snapshot on request only of durable state: it drains the pipeline, then syncs the snapshot', async () => {
    const { runner, wal, track } = await setUp();
    const first = track(runner.submit(faucet(A, 10n)), 'a1');
    await turn();
    void track(runner.submit(faucet(B, 7n)), 'b1');
    expect(runner.snapshotNow()).toBe(2);
    await first;
    expect(wal.blockingSyncs).toBe(3);
  });
});

describe('a database another connection holds', () => {
  const removals: (() => void)[] = [];
  afterEach(() => {
    for (const remove of removals.splice(0)) remove();
  });
  /** A runner on a database whose write lock a second connection takes and gives back. */
  function setUpHeld(busyRetry: RunnerOptions['busyRetry']) {
    const { db, hold, release, remove } = lockableDatabase();
    removals.push(remove);
    return setUp({ db, busyRetry }).then((s) => ({ ...s, hold, release }));
  }

  it('is waited out: the group is written once the lock is free, with what was applied meanwhile, and nothing is refused', async () => {
    const { runner, wal, log, failures, balance, journaled, track, hold, release } = await setUpHeld({ forMs: 10_000, delayMs: 2 });
    hold();
    const first = track(runner.submit(faucet(A, 10n)), 'a1');
    await sleep(20);
    const second = track(runner.submit(faucet(B, 7n)), 'b1');
    await sleep(20);
    // Several writes were refused as busy; the engine kept both commands and nobody was answered.
    expect(runner.busyWaits).toBeGreaterThan(1);
    expect(journaled()).toBe(0);
    expect(log).toEqual([]);
    expect(failures).toEqual([]);
    expect([balance(A), balance(B)]).toEqual([10n, 7n]);

    release();
    for (let i = 0; i < 100 && wal.waiting.length === 0; i++) await sleep(2);
    expect(journaled()).toBe(2);
    expect(log).toEqual([]);
    wal.waiting[0]!.resolve();
    await Promise.all([first, second]);
    expect(log).toEqual(['durable 2', 'queued 1,2', 'answered a1', 'answered b1']);
    expect(failures).toEqual([]);
  });

  it('refuses the group and rebuilds the engine from disk once the database stays busy past busyRetry.forMs', async () => {
    const { runner, wal, log, failures, balance, journaled, track, hold, release } = await setUpHeld({ forMs: 30, delayMs: 1 });
    hold();
    const started = performance.now();
    await track(runner.submit(faucet(A, 10n)), 'a1');
    expect(performance.now() - started).toBeGreaterThanOrEqual(30);
    await until(() => failures.length > 0);
    expect(runner.busyWaits).toBeGreaterThan(1);
    expect(log).toEqual(['refused a1 STORAGE_FAILED']);
    expect(failures).toHaveLength(1);
    expect(failures[0]!.rebuilt).toBe(true);
    expect(failures[0]!.err).toBeInstanceOf(StoreBusyError);
    expect(balance(A)).toBe(0n);

    // Trading goes on once the lock is free.
    release();
    const next = track(runner.submit(faucet(B, 7n)), 'b1');
    await turn();
    expect(journaled()).toBe(1);
    wal.waiting[0]!.resolve();
    await next;
    expect(log.at(-1)).toBe('answered b1');
  });
});

describe('a write that fails', () => {
  it('refuses its group, and every command while the engine is rebuilt from disk, then trades on the rebuilt engine', async () => {
    const { runner, store, wal, log, failures, balance, journaled, track } = await setUp();
    const first = track(runner.submit(faucet(A, 10n)), 'a1');
    await turn();
    wal.waiting[0]!.resolve();
    await first;

    // The next group's write fails; the rebuild reads the journal only once the gate opens.
    let open!: () => void;
    store.gate = new Promise((r) => (open = r));
    const diskError = new Error('SQLITE_IOERR: disk I/O error');
    store.failNextCommit = diskError;
    await track(runner.submit(faucet(B, 7n)), 'b1');
    // Mid-rebuild: refused, and the engine being replaced is not touched.
    await track(runner.submit(faucet(A, 3n)), 'a2');
    expect(failures).toEqual([]);
    expect(log.slice(-2)).toEqual(['refused b1 STORAGE_FAILED', 'refused a2 STORAGE_FAILED']);

    open();
    await until(() => failures.length > 0);
    expect(failures).toEqual([{ err: diskError, rebuilt: true }]);
    // The rebuilt engine holds what the disk does: A's first faucet, nothing of B's.
    expect([balance(A), balance(B)]).toEqual([10n, 0n]);
    const next = track(runner.submit(faucet(B, 1n)), 'b2');
    await turn();
    expect(journaled()).toBe(2);
    wal.waiting[1]!.resolve();
    await next;
    expect(log.at(-1)).toBe('answered b2');
    expect(balance(B)).toBe(1n);
  });
});

describe('resume from a warm engine', () => {
  it('catches the read models up from the journal change records to the warm position, then replays the rows after it', async () => {
    const db = new Database(':memory:');
    migrate(db, MIGRATIONS);
    const store = new SqliteTradingStore(db, new HeldSync());
    const params = defaultEngineParams(TOKEN);
    const commands = [faucet(A, 1n), faucet(A, 2n), faucet(B, 3n), faucet(B, 4n)];
    const writer = new Engine(params);
    for (const cmd of commands) {
      store.commit([{ cmd, changes: writer.apply(cmd).changes }]);
      store.syncNow();
    }
    // A standby's engine, three rows in; the read models cover one.
    const warm = new Engine(params);
    for (const cmd of commands.slice(0, 3)) warm.apply(cmd);
    const queued: number[][] = [];
    const runner = new EngineRunner(store, {
      createEngine: () => new Engine(params),
      projection: { position: 1, enqueue: (entries) => queued.push(entries.map((e) => e.seq)), flushNow: () => {}, flush: async () => {} },
      onStorageFailure: () => {},
      now: () => 1000,
      snapshotEveryCommands: 1_000_000,
      snapshotEveryMs: 1_000_000_000,
      busyRetry: { forMs: 0, delayMs: 1 },
    });
    expect(await runner.resume({ engine: warm, seq: 3, snapshotSeq: 0 })).toEqual({ replayed: 1 });
    expect(queued).toEqual([[2, 3], [4]]);
    expect(runner.engine).toBe(warm);
    expect([runner.engine.balances(A).balance, runner.engine.balances(B).balance]).toEqual([3n * USDC, 7n * USDC]);
    expect(runner.durableSeq).toBe(4);
  });
});

describe('a full disk', () => {
  it('rebuilds from the journal without waiting for a projection that cannot write, and reports the store failing until a write succeeds', async () => {
    const { runner, store, wal, log, failures, balance, track } = await setUp();
    const first = track(runner.submit(faucet(A, 10n)), 'a1');
    await turn();
    wal.waiting[0]!.resolve();
    await first;
    expect(runner.storageProblem).toBeUndefined();

    // The read models' database refuses writes too: from now on the projection never catches up.
    const projection = (runner as unknown as { opts: RunnerOptions }).opts.projection;
    projection.flush = () => new Promise(() => {});
    const full = new Error('SQLITE_FULL: database or disk is full');
    store.failNextCommit = full;
    let probes = 0;
    store.probeWrite = () => {
      probes++;
      throw full;
    };
    await track(runner.submit(faucet(B, 7n)), 'b1');
    expect(runner.storageProblem).toBe('STORAGE_FAILED');
    await until(() => failures.length > 0);
    expect(failures).toEqual([{ err: full, rebuilt: true }]);
    expect([balance(A), balance(B)]).toEqual([10n, 0n]);
    // Rebuilt, but the disk still refuses: not ready, whatever the probe finds.
    runner.probeWrites();
    expect([probes, runner.storageProblem]).toEqual([1, 'STORAGE_FAILED']);

    // Space is freed: the probe's write succeeds, and so readiness comes back without a command.
    store.probeWrite = () => probes++;
    runner.probeWrites();
    expect([probes, runner.storageProblem]).toEqual([2, undefined]);
    // A refused commit makes it fail again; the next commit that succeeds clears it.
    store.failNextCommit = full;
    await track(runner.submit(faucet(B, 1n)), 'b2');
    await until(() => failures.length > 1);
    expect(runner.storageProblem).toBe('STORAGE_FAILED');
    const next = track(runner.submit(faucet(B, 2n)), 'b3');
    await turn();
    expect(runner.storageProblem).toBeUndefined();
    wal.waiting[1]!.resolve();
    await next;
    expect(log.filter((l) => l.startsWith('answered') || l.startsWith('refused'))).toEqual([
      'answered a1',
      'refused b1 STORAGE_FAILED',
      'refused b2 STORAGE_FAILED',
      'answered b3',
    ]);
    expect(balance(B)).toBe(2n);
  });

  it('tries a rebuild that failed again at the next command, instead of refusing trading until a restart', async () => {
    const { runner, store, wal, failures, balance, track } = await setUp();
    const first = track(runner.submit(faucet(A, 10n)), 'a1');
    await turn();
    wal.waiting[0]!.resolve();
    await first;

    const readError = new Error('SQLITE_IOERR: disk I/O error');
    let failReads = true;
    const replay = store.replay.bind(store);
    store.replay = (afterSeq?: number) => {
      if (failReads) throw readError;
      return replay(afterSeq);
    };
    store.failNextCommit = new Error('SQLITE_FULL: database or disk is full');
    await track(runner.submit(faucet(B, 7n)), 'b1');
    await until(() => failures.length > 0);
    expect(failures).toEqual([{ err: readError, rebuilt: 'retried' }]);
    expect(runner.storageProblem).toBe('STORAGE_FAILED');

    // The disk reads again: the next command starts a rebuild (and is refused); the one after it trades.
    failReads = false;
    await expect(runner.submit(faucet(B, 1n))).rejects.toMatchObject({ errorCode: 'STORAGE_FAILED' });
    await until(() => failures.length > 1);
    expect(failures[1]!.rebuilt).toBe(true);
    // Rebuilt; failing for readiness until a write succeeds.
    expect(runner.storageProblem).toBe('STORAGE_FAILED');
    const next = runner.submit(faucet(B, 2n));
    await turn();
    expect(runner.storageProblem).toBeUndefined();
    wal.waiting[1]!.resolve();
    await next;
    expect([balance(A), balance(B)]).toEqual([10n, 2n]);
  });
});
