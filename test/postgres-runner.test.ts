// The engine runner on the PostgreSQL journal (a throw-away cluster): trading through the runner, then a restart on
// the same database rebuilds the same engine (snapshot + tail); the database killed (pg_ctl stop -m immediate)
// under a stream of commands loses none that was acknowledged.
import { afterEach, describe, expect, it } from 'vitest';
import pg from 'pg';
import { Engine } from '../src/engine/engine.js';
import { DomainError } from '../src/engine/errors.js';
import type { Command } from '../src/engine/types.js';
import { encodeCommand } from '../src/store/command-codec.js';
import { PostgresTradingStore } from '../src/store/postgres/trading-store.js';
import { EngineRunner } from '../src/store/runner.js';
import type { TradingStore } from '../src/store/ports.js';
import { defaultEngineParams } from './helpers/engine-params.js';
import { flowCommand, TOKEN } from './helpers/order-flow.js';
import { noPostgres, postgresForSuite, postgresSuite } from './helpers/postgres.js';

/** The store's journal with no snapshot to start from. */
const withoutSnapshots = (s: TradingStore): TradingStore => ({
  snapshots: { write: () => {}, valid: async function* () {}, archivedThrough: () => 0, archiveJournal: async () => undefined },
  commit: (e) => s.commit(e),
  sync: () => s.sync(),
  syncNow: () => s.syncNow(),
  replay: (after) => s.replay(after),
  changesAfter: (after, limit) => s.changesAfter(after, limit),
});

function runnerOn(store: TradingStore, snapshotEveryCommands = 1_000_000) {
  const failures: { err: unknown; rebuilt: boolean | 'retried' | 'superseded' }[] = [];
  const runner = new EngineRunner(store, {
    onSuperseded: () => failures.push({ err: undefined, rebuilt: 'superseded' }),
    createEngine: (snapshot) => (snapshot ? Engine.restore(defaultEngineParams(TOKEN), snapshot) : new Engine(defaultEngineParams(TOKEN))),
    projection: { position: Number.MAX_SAFE_INTEGER, enqueue: () => {}, flushNow: () => {}, flush: async () => {} },
    onStorageFailure: (err, rebuilt) => failures.push({ err, rebuilt }),
    now: () => 1000,
    snapshotEveryCommands,
    snapshotEveryMs: 1_000_000_000,
    busyRetry: { forMs: 0, delayMs: 1 },
    healRetryMs: { first: 50, max: 200 },
  });
  return { runner, failures };
}

const at = (i: number) => 1_700_000_000_000 + i;

describe.skipIf(noPostgres)(postgresSuite('the runner on PostgreSQL'), () => {
  const server = postgresForSuite();
  const stores: PostgresTradingStore[] = [];
  const pools: pg.Pool[] = [];
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close().catch(() => {});
    for (const p of pools.splice(0)) await p.end().catch(() => {});
  });
  /** A pool of the test's own on `url`. */
  const pool = (url: string) => {
    const p = new pg.Pool({ connectionString: url, max: 1 });
    pools.push(p);
    return p;
  };
  const open = async (url: string) => {
    const s = await PostgresTradingStore.open({ connectionString: url, holder: 'test' });
    stores.push(s);
    return s;
  };

  it('rebuilds, on a restart on the same database, the engine it had: the newest snapshot plus the journal after it', async () => {
    const url = await server().createDatabase();
    const store = await open(url);
    const { runner, failures } = runnerOn(store, 150);
    await runner.replay();
    // Waves of concurrent commands: each wave is one or more groups, some carrying a snapshot.
    for (let wave = 0; wave < 10; wave++) {
      await Promise.all(Array.from({ length: 41 }, (_, k) => runner.submit(flowCommand(wave * 41 + k, at(wave * 41 + k)))));
    }
    expect(failures).toEqual([]);
    expect(runner.durableSeq).toBe(410);
    await store.close();

    const reopened = await open(url);
    const { runner: rebuilt } = runnerOn(reopened);
    const report = await rebuilt.replay();
    expect(report.snapshotSeq).toBeGreaterThanOrEqual(150);
    expect(report.snapshotSeq! + report.replayed).toBe(410);
    expect(rebuilt.durableSeq).toBe(410);
    expect(rebuilt.engine.snapshot()).toEqual(runner.engine.snapshot());

    // The same from the whole journal, without the snapshots.
    const { runner: whole } = runnerOn(withoutSnapshots(reopened));
    expect(await whole.replay()).toEqual({ replayed: 410 });
    expect(whole.engine.snapshot()).toEqual(runner.engine.snapshot());

    // Two snapshots are kept; a damaged newest one is passed over for the one before it.
    const admin = pool(url);
    const { rows } = await admin.query<{ seq: string }>('SELECT journal_seq AS seq FROM snapshots ORDER BY journal_seq');
    const [older, newest] = rows.map((r) => Number(r.seq));
    expect(rows).toHaveLength(2);
    expect(newest).toBe(report.snapshotSeq);
    await admin.query("UPDATE snapshots SET body = replace(body, '1', '2') WHERE journal_seq = $1", [newest]);
    const { runner: fromOlder } = runnerOn(reopened);
    expect(await fromOlder.replay()).toEqual({ snapshotSeq: older, replayed: 410 - older! });
    expect(fromOlder.engine.snapshot()).toEqual(runner.engine.snapshot());

    // Trading goes on after the rebuild at the next position.
    await rebuilt.submit(flowCommand(410, at(410)));
    expect(rebuilt.durableSeq).toBe(411);
  });

  it('drains with asynchronous syncs: every command applied is durable and answered once drain resolves', async () => {
    const url = await server().createDatabase();
    const store = await open(url);
    const { runner, failures } = runnerOn(store, 40);
    await runner.replay();
    let answered = 0;
    for (let i = 0; i < 100; i++) {
      void runner.submit(flowCommand(i, at(i))).then(() => answered++);
      if (i % 10 === 9) await new Promise((r) => setImmediate(r));
    }
    await runner.drain();
    await new Promise((r) => setImmediate(r));
    expect(failures).toEqual([]);
    expect(answered).toBe(100);
    expect(runner.durableSeq).toBe(100);
    await store.close();
    const { runner: rebuilt } = runnerOn(await open(url));
    expect((await rebuilt.replay()).snapshotSeq).toBeGreaterThanOrEqual(40);
    expect(rebuilt.engine.snapshot()).toEqual(runner.engine.snapshot());
  });

  /** Eight submitters, each sending its next command once the last was answered, until one is refused. */
  function stream(runner: EngineRunner, from: number) {
    const acknowledged: Command[] = [];
    const refusals: unknown[] = [];
    let next = from;
    const submitter = async () => {
      for (;;) {
        const cmd = flowCommand(next, at(next));
        next++;
        try {
          await runner.submit(cmd);
          acknowledged.push(cmd);
        } catch (err) {
          refusals.push(err);
          return;
        }
      }
    };
    return { acknowledged, refusals, ended: Promise.all(Array.from({ length: 8 }, submitter)), next: () => next };
  }

  const journalOf = async (store: PostgresTradingStore) => {
    const journal: { seq: number; cmd: Command }[] = [];
    for await (const page of store.replay()) journal.push(...page);
    return journal;
  };

  it('loses no acknowledged command when the database is stopped (immediate) under a stream of them, and trades on by itself once it is back', async () => {
    const url = await server().createDatabase();
    const store = await open(url);
    const { runner, failures } = runnerOn(store, 200);
    await runner.replay();
    const first = stream(runner, 0);
    while (first.acknowledged.length < 300) await new Promise((r) => setTimeout(r, 5));
    await server().crash();
    await first.ended;
    // Refused while the database is away, as unavailable: the client tries again later.
    expect(first.refusals.length).toBe(8);
    expect(first.refusals.every((e) => e instanceof DomainError && e.errorCode === 'STORAGE_UNAVAILABLE')).toBe(true);
    await expect(runner.submit(flowCommand(first.next(), at(first.next())))).rejects.toMatchObject({ errorCode: 'STORAGE_UNAVAILABLE' });
    expect(failures).toEqual([]);

    await server().start();
    // The runner heals by itself: no restart, the engine rebuilt from what the database holds.
    while (failures.length === 0) await new Promise((r) => setTimeout(r, 20));
    expect(failures.map((f) => f.rebuilt)).toEqual([true]);
    const admin = pool(url);
    const journal = await journalOf(store);
    expect(journal.map((r) => r.seq)).toEqual(journal.map((_, i) => i + 1));
    const journaled = new Set(journal.map((r) => encodeCommand(r.cmd)));
    expect(first.acknowledged.filter((c) => !journaled.has(encodeCommand(c)))).toEqual([]);
    expect(runner.durableSeq).toBe(journal.length);
    const { runner: fresh } = runnerOn(withoutSnapshots(store));
    await fresh.replay();
    expect(runner.engine.snapshot()).toEqual(fresh.engine.snapshot());

    // Trading resumes at the next position, and the writer still holds the database against a second one.
    const second = stream(runner, first.next() + 1);
    while (second.acknowledged.length < 50) await new Promise((r) => setTimeout(r, 5));
    await expect(PostgresTradingStore.open({ connectionString: url, holder: 'second' })).rejects.toThrow(/another writer holds this database/);
    await store.close();
    await second.ended;
    const { rows } = await admin.query<{ n: string }>('SELECT count(*) AS n FROM journal');
    expect(Number(rows[0]!.n)).toBe(journal.length + second.acknowledged.length);
  });

  /** Ends the writer's lock session from outside, as a server restart or a network cut does. */
  const endLockSession = (url: string) =>
    pool(url).query(`SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND objid = ${0x0dde_0002} AND granted`);
  /** Resolves once a session waits for the writer's lock (a standby blocked in pg_advisory_lock). */
  const lockWaited = async (url: string) => {
    const waiting = `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND objid = ${0x0dde_0002} AND NOT granted`;
    for (let i = 0; (await pool(url).query(waiting)).rowCount === 0; i++) {
      if (i === 200) throw new Error('nobody waits for the writer lock');
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  /** A standby waits for the writer's lock, the writer's lock session ends, and the standby holds the database. */
  const takenOverByStandby = async (url: string) => {
    const standby = PostgresTradingStore.open({ connectionString: url, holder: 'standby', waitForLock: {} });
    await lockWaited(url); // blocked in pg_advisory_lock, granted when the session ends
    await endLockSession(url);
    const usurper = await standby;
    stores.push(usurper);
    return usurper;
  };
  /** A writer on a new database that journaled one command. */
  const leaderWithOneCommand = async () => {
    const url = await server().createDatabase();
    const store = await open(url);
    const { runner, failures } = runnerOn(store);
    await runner.replay();
    await runner.submit(flowCommand(0, at(0)));
    return { url, store, runner, failures };
  };
  const until = async (done: () => boolean) => {
    for (let waited = 0; !done(); waited += 20) {
      if (waited > 10_000) throw new Error('gave up waiting');
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  it('takes its lock back by itself when the lock session ends with nothing to append', async () => {
    const { url, store, runner, failures } = await leaderWithOneCommand();
    await endLockSession(url);
    // Healed with no command sent: the lock is this writer's again, so a second writer is refused.
    await until(() => failures.length > 0);
    expect(failures.map((f) => f.rebuilt)).toEqual([true]);
    await expect(PostgresTradingStore.open({ connectionString: url, holder: 'second' })).rejects.toThrow(/another writer holds this database/);
    await runner.submit(flowCommand(1, at(1)));
    expect((await journalOf(store)).map((r) => r.seq)).toEqual([1, 2]);
  });

  it('steps out, with nothing to append, when a standby takes the lock its session lost', async () => {
    const { url, runner, failures } = await leaderWithOneCommand();
    const usurper = await takenOverByStandby(url);
    // Told it was superseded without being sent a command (it stepped out of the gateways' queue group at once).
    await until(() => failures.length >= 2);
    expect(failures.map((f) => f.rebuilt)).toEqual(['superseded', false]);
    await expect(runner.submit(flowCommand(1, at(1)))).rejects.toMatchObject({ errorCode: 'STORAGE_FAILED' });
    expect((await journalOf(usurper)).map((r) => r.seq)).toEqual([1]);
  });

  it('refuses a command that comes as it learns another writer took the database', async () => {
    const { url, runner, failures } = await leaderWithOneCommand();
    // The writer's lock session ends (a network cut, an operator's kill), a standby waiting for it takes the lock
    // and a new epoch, and a command comes: refused, never journaled. Which refusal depends on the race with the
    // writer's own notice: STORAGE_UNAVAILABLE while it finds out, STORAGE_FAILED once it has stepped out (the test
    // above). On a busy machine either comes first.
    const usurper = await takenOverByStandby(url);
    const refused = await runner.submit(flowCommand(1, at(1))).then(
      () => 'accepted',
      (err: { errorCode?: string }) => err.errorCode,
    );
    expect(['STORAGE_UNAVAILABLE', 'STORAGE_FAILED']).toContain(refused);
    await until(() => failures.length >= 2);
    expect(failures.map((f) => f.rebuilt)).toEqual(['superseded', false]);
    expect((await journalOf(usurper)).map((r) => r.seq)).toEqual([1]);
  });
});
