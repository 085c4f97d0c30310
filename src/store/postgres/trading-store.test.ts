// The journal on a real PostgreSQL (a throw-away cluster, test/helpers/postgres.ts): what is synced reads back as it
// was committed; a group is written all or nothing; one writer per database, and a superseded one appends nothing.
import { afterEach, describe, expect, it } from 'vitest';
import pg from 'pg';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Engine } from '../../engine/engine.js';
import type { Command } from '../../engine/types.js';
import { defaultEngineParams } from '../../../test/helpers/engine-params.js';
import { flowCommand, TOKEN } from '../../../test/helpers/order-flow.js';
import { noPostgres, postgresForSuite, postgresSuite } from '../../../test/helpers/postgres.js';
import type { JournalEntry } from '../ports.js';
import { migrate, migrationFiles } from './migrate.js';
import { PostgresTradingStore } from './trading-store.js';
import { ProjectorThread } from '../projector-thread.js';
import { WriterFencedError, WriterLockedError } from './writer-fence.js';

/** The flow's commands from `from`, applied to `engine`: journal entries with their real change records. */
function entries(engine: Engine, from: number, count: number): JournalEntry[] {
  return Array.from({ length: count }, (_, k) => {
    const cmd = flowCommand(from + k, 1_700_000_000_000 + from + k);
    return { cmd, changes: engine.apply(cmd).changes };
  });
}

/** Every row of a replay, its pages joined. */
async function all<T>(pages: AsyncIterable<readonly T[]>): Promise<T[]> {
  const out: T[] = [];
  for await (const page of pages) out.push(...page);
  return out;
}

/** The backend of a sync whose transaction waits for the snapshots table (after inserting its journal rows). */
const BLOCKED_ON_SNAPSHOTS = "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'INSERT INTO snapshots%'";
/** The writer lock's holding backend, as the server sees it. */
const WRITER_LOCK_PID = `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objid = ${0x0dde_0002} AND granted`;

describe.skipIf(noPostgres)(postgresSuite('the PostgreSQL journal'), () => {
  const server = postgresForSuite();
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => {});
  });
  /** A client of its own on `url` (closed after the test). */
  async function admin(url: string): Promise<pg.Client> {
    const c = new pg.Client({ connectionString: url });
    c.on('error', () => {});
    await c.connect();
    cleanups.push(() => c.end());
    return c;
  }
  async function open(url: string, holder = 'test'): Promise<PostgresTradingStore> {
    const store = await PostgresTradingStore.open({ connectionString: url, holder });
    cleanups.push(() => store.close());
    return store;
  }
  const journalRows = async (c: pg.Client) => Number((await c.query<{ n: string }>('SELECT count(*) AS n FROM journal')).rows[0]!.n);

  it('gives back what was committed and synced: replay across pages and changesAfter, in order, with positions', async () => {
    const url = await server().createDatabase();
    const store = await open(url);
    const engine = new Engine(defaultEngineParams(TOKEN));
    const first = entries(engine, 0, 10);
    expect(store.commit(first.slice(0, 4))).toBe(4);
    expect(store.commit(first.slice(4))).toBe(10);
    await store.sync();
    // More than a page of replay (5000) and than one INSERT's rows (10,000) in one group.
    const second = entries(engine, 10, 10_100);
    expect(store.commit(second)).toBe(10_110);
    await store.sync();
    const committed = [...first, ...second];

    const replayed = await all(store.replay());
    expect(replayed.map((r) => r.seq)).toEqual(committed.map((_, i) => i + 1));
    expect(replayed.map((r) => r.cmd)).toEqual(committed.map((e) => e.cmd));
    expect((await all(store.replay(5_105))).map((r) => r.cmd)).toEqual(committed.slice(5_105).map((e) => e.cmd));

    const changes = await store.changesAfter(2, 3);
    expect(changes).toEqual(committed.slice(2, 5).map((e, i) => ({ seq: 3 + i, at: e.cmd.at, changes: e.changes })));
    expect(committed.slice(2, 5).every((e) => e.changes.length > 0)).toBe(true);

    // A writer opened later on the same database goes on after the last position.
    await store.close();
    const again = await open(url);
    expect(again.commit(entries(engine, 10_110, 1))).toBe(10_111);
    await again.sync();
    expect((await all(again.replay(10_109))).map((r) => r.seq)).toEqual([10_110, 10_111]);
  });

  it('writes a group all or nothing: a sync whose connection is killed after its INSERT leaves none of it', async () => {
    const url = await server().createDatabase();
    const store = await open(url);
    const engine = new Engine(defaultEngineParams(TOKEN));
    store.commit(entries(engine, 0, 5));
    await store.sync();

    // The group's transaction blocks on the snapshot it carries after inserting its journal rows; then it is killed.
    const other = await admin(url);
    await other.query('BEGIN');
    await other.query('LOCK TABLE snapshots IN ACCESS EXCLUSIVE MODE');
    store.commit(entries(engine, 5, 20));
    store.snapshots.write(25, engine.snapshot(), 1);
    const sync = store.sync();
    const failed = sync.then(
      () => undefined,
      (err: unknown) => err,
    );
    // Not on `other`: a transaction reads pg_stat_activity as it was at its first look.
    const watcher = await admin(url);
    const blocked = await waitForRow(watcher, BLOCKED_ON_SNAPSHOTS);
    expect(await journalRows(watcher)).toBe(5);
    await watcher.query('SELECT pg_terminate_backend($1)', [blocked.pid]);
    expect(await failed).toBeInstanceOf(Error);
    await other.query('ROLLBACK');

    expect(await journalRows(other)).toBe(5);
    expect((await other.query('SELECT count(*) AS n FROM snapshots')).rows[0].n).toBe('0');
    // Memory holds positions the database does not: the store takes nothing more.
    expect(() => store.commit(entries(engine, 25, 1))).toThrow();
    await expect(store.sync()).rejects.toBeInstanceOf(Error);
    expect(await journalRows(other)).toBe(5);
  });

  it('writes a group all or nothing: the server stopped (immediate) in the middle of it leaves none of it', async () => {
    const url = await server().createDatabase();
    const store = await open(url);
    const engine = new Engine(defaultEngineParams(TOKEN));
    store.commit(entries(engine, 0, 5));
    await store.sync();
    const other = await admin(url);
    await other.query('BEGIN');
    await other.query('LOCK TABLE snapshots IN ACCESS EXCLUSIVE MODE');
    store.commit(entries(engine, 5, 20));
    store.snapshots.write(25, engine.snapshot(), 1);
    const failed = store.sync().then(
      () => undefined,
      (err: unknown) => err,
    );
    await waitForRow(await admin(url), BLOCKED_ON_SNAPSHOTS);
    await server().crash();
    expect(await failed).toBeInstanceOf(Error);
    await server().start();

    const after = await admin(url);
    expect(await journalRows(after)).toBe(5);
    const reopened = await open(url);
    expect((await all(reopened.replay())).map((r) => r.seq)).toEqual([1, 2, 3, 4, 5]);
  });

  it('lets one writer open a database: a second is refused while the first holds it, and opens once it let go', async () => {
    const url = await server().createDatabase();
    const first = await open(url, 'exchange one');
    await expect(PostgresTradingStore.open({ connectionString: url, holder: 'exchange two' })).rejects.toThrow(WriterLockedError);
    await expect(PostgresTradingStore.open({ connectionString: url, holder: 'exchange two' })).rejects.toThrow(/another writer holds this database \(exchange one/);
    await first.close();
    const second = await open(url, 'exchange two');
    expect(BigInt(second.epoch)).toBeGreaterThan(BigInt(first.epoch));
  });

  it('lets a standby wait for the lock: it stops waiting when told, and takes the lock and a new epoch once the writer let go', async () => {
    const url = await server().createDatabase();
    const first = await open(url, 'leader');
    const engine = new Engine(defaultEngineParams(TOKEN));
    first.commit(entries(engine, 0, 2));
    await first.sync();
    const stop = new AbortController();
    const given = PostgresTradingStore.open({ connectionString: url, holder: 'standby one', waitForLock: { signal: stop.signal } });
    await new Promise((r) => setTimeout(r, 200));
    stop.abort();
    await expect(given).rejects.toThrow(/stopped waiting for the writer lock/);

    let taken: PostgresTradingStore | undefined;
    const waiting = PostgresTradingStore.open({ connectionString: url, holder: 'standby two', waitForLock: {} }).then((s) => {
      cleanups.push(() => s.close());
      return (taken = s);
    });
    await new Promise((r) => setTimeout(r, 200));
    expect(taken).toBeUndefined();
    first.commit(entries(engine, 2, 1));
    await first.sync();
    await first.close();
    const next = await waiting;
    expect(BigInt(next.epoch)).toBe(BigInt(first.epoch) + 1n);
    // It goes on after the last row the first writer synced.
    expect(next.commit(entries(engine, 3, 1))).toBe(4);
    await next.sync();
    const other = await admin(url);
    expect((await other.query<{ holder: string }>('SELECT holder FROM writer_fence WHERE id = 1')).rows[0]!.holder).toBe('standby two');
  });

  it.each([
    ['one statement', false],
    ['a transaction with a snapshot', true],
  ])('fences a superseded writer: once another bumped the epoch, its append (%s) fails and writes nothing', async (_, withSnapshot) => {
    const url = await server().createDatabase();
    const store = await open(url);
    const engine = new Engine(defaultEngineParams(TOKEN));
    store.commit(entries(engine, 0, 3));
    await store.sync();
    // What a new writer does on taking over (the stale one never noticed it lost anything).
    const other = await admin(url);
    await other.query('UPDATE writer_fence SET epoch = epoch + 1');
    store.commit(entries(engine, 3, 2));
    if (withSnapshot) store.snapshots.write(5, engine.snapshot(), 1);
    await expect(store.sync()).rejects.toThrow(/this writer no longer holds the database, nothing was appended: another writer took epoch 2 after this one's 1/);
    expect(await journalRows(other)).toBe(3);
    expect((await other.query('SELECT count(*) AS n FROM snapshots')).rows[0].n).toBe('0');
    expect(() => store.commit(entries(engine, 5, 1))).toThrow(WriterFencedError);
  });

  it('fences a writer whose lock connection dropped and whose database another writer took: the new one appends in order', async () => {
    const url = await server().createDatabase();
    const stale = await open(url, 'stale');
    const engine = new Engine(defaultEngineParams(TOKEN));
    stale.commit(entries(engine, 0, 3));
    await stale.sync();
    stale.commit(entries(engine, 3, 2)); // held, not synced yet

    const other = await admin(url);
    const holder = await waitForRow(other, WRITER_LOCK_PID);
    await other.query('SELECT pg_terminate_backend($1)', [holder.pid]);
    const next = await openWhenFree(url, 'new writer', cleanups);
    await expect(stale.sync()).rejects.toThrow(WriterFencedError);

    // The new writer's engine is rebuilt from the three synced commands.
    const fresh = new Engine(defaultEngineParams(TOKEN));
    entries(fresh, 0, 3);
    expect(next.commit(entries(fresh, 3, 1))).toBe(4);
    await next.sync();
    expect((await all(next.replay())).map((r) => [r.seq, (r.cmd as Command).at])).toEqual(
      [0, 1, 2, 3].map((i) => [i + 1, 1_700_000_000_000 + i]),
    );
  });

  it('archives rows the oldest snapshot and the read models cover: the file holds exactly the deleted rows', async () => {
    const url = await server().createDatabase();
    const store = await open(url);
    const c = await admin(url);
    const engine = new Engine(defaultEngineParams(TOKEN));
    const dir = mkdtempSync(join(tmpdir(), 'oddex-archive-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    store.commit(entries(engine, 0, 6_000)); // more than a page of the archive's reads
    store.snapshots.write(6_000, engine.snapshot(), 1);
    await store.sync();
    store.commit(entries(engine, 6_000, 10));
    store.snapshots.write(6_010, engine.snapshot(), 2);
    await store.sync();
    const stored = (await c.query('SELECT seq, at_ms, command, changes FROM journal WHERE seq <= 6000 ORDER BY seq')).rows.map((r) => ({
      ...r,
      seq: Number(r.seq),
      at_ms: Number(r.at_ms),
    }));

    // The read models have projected only 5,500: the rows after it stay, whatever the snapshots cover.
    const first = await store.snapshots.archiveJournal(dir, 5_500);
    expect(first).toEqual({ from: 1, to: 5_500, rows: 5_500, file: join(dir, 'journal-1-5500.ndjson.gz') });
    const second = await store.snapshots.archiveJournal(dir, 6_010);
    expect(second).toEqual({ from: 5_501, to: 6_000, rows: 500, file: join(dir, 'journal-5501-6000.ndjson.gz') });
    expect(await store.snapshots.archiveJournal(dir, 6_010)).toBeUndefined();
    const archived = [first!, second!].flatMap((a) => gunzipSync(readFileSync(a.file)).toString('utf8').trimEnd().split('\n').map((l) => JSON.parse(l)));
    expect(archived).toEqual(stored);
    expect((await c.query('SELECT min(seq) AS min, count(*) AS n FROM journal')).rows[0]).toEqual({ min: '6001', n: '10' });
    expect((await c.query("SELECT value FROM store_settings WHERE key = 'journal_archived_through'")).rows).toEqual([{ value: '6000' }]);
    expect(readdirSync(dir).sort()).toEqual(['journal-1-5500.ndjson.gz', 'journal-5501-6000.ndjson.gz']);

    // A writer opened afterwards knows the mark and appends after the journal's end.
    await store.close();
    const again = await open(url, 'again');
    expect(again.snapshots.archivedThrough()).toBe(6_000);
    expect(await all(again.replay(6_000))).toHaveLength(10);
    expect(again.commit(entries(engine, 6_010, 1))).toBe(6_011);
    await again.sync();
  });

  it('archives nothing as a writer another one superseded: its rows stay and so does the mark', async () => {
    const url = await server().createDatabase();
    const store = await open(url);
    const c = await admin(url);
    const engine = new Engine(defaultEngineParams(TOKEN));
    const dir = mkdtempSync(join(tmpdir(), 'oddex-archive-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    store.commit(entries(engine, 0, 5));
    store.snapshots.write(5, engine.snapshot(), 1);
    await store.sync();
    // Another writer takes the database over (its lock connection dropped, the epoch bumped by the next one).
    const holder = await waitForRow(c, WRITER_LOCK_PID);
    await c.query('SELECT pg_terminate_backend($1)', [holder.pid]);
    await openWhenFree(url, 'next', cleanups);
    await expect(store.snapshots.archiveJournal(dir, 5)).rejects.toThrow(WriterFencedError);
    expect(await journalRows(c)).toBe(5);
    expect((await c.query("SELECT value FROM store_settings WHERE key = 'journal_archived_through'")).rows).toEqual([]);
  });

  it("refuses to project past archived rows its read models never covered: the projector thread reports them, its checkpoint stays", async () => {
    const url = await server().createDatabase();
    const store = await open(url);
    const engine = new Engine(defaultEngineParams(TOKEN));
    const dir = mkdtempSync(join(tmpdir(), 'oddex-archive-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    store.commit(entries(engine, 0, 10));
    store.snapshots.write(10, engine.snapshot(), 1);
    await store.sync();
    // Archived as if the read models covered the rows (read models restored from a backup older than the archive).
    expect(await store.snapshots.archiveJournal(dir, 10)).toMatchObject({ from: 1, to: 10 });
    store.commit(entries(engine, 10, 5));
    await store.sync();

    const problems: string[] = [];
    const thread = new ProjectorThread(
      { store: { kind: 'postgres', databaseUrl: url }, maxBatch: 100, retryMs: 50, delayMs: 0 },
      { loaded: () => thread.advance(15), projected: () => {}, problem: (message) => problems.push(message) },
    );
    cleanups.push(() => thread.stop());
    for (let i = 0; i < 500 && problems.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    expect(problems.slice(0, 2)).toEqual([
      'journal rows 1 to 10 are archived but not projected: restore them into the journal',
      'journal rows 1 to 10 are archived but not projected: restore them into the journal',
    ]);
    const c = await admin(url);
    expect((await c.query('SELECT journal_seq FROM rm_position')).rows).toEqual([{ journal_seq: '0' }]);
    expect(thread.position).toBe(0);
  });

  it('migrates once: files apply in order, each recorded, and processes migrating together apply each file once', async () => {
    const url = await server().createDatabase();
    const pools = [0, 1, 2].map(() => new pg.Pool({ connectionString: url, max: 1 }));
    try {
      const applied = await Promise.all(pools.map((p) => migrate(p)));
      const versions = migrationFiles().map((f) => f.version);
      expect(versions.slice(0, 3)).toEqual(['001_journal', '002_snapshots', '003_writer_fence']);
      expect(applied.flat().sort()).toEqual(versions);
      const { rows } = await pools[0]!.query<{ version: string }>('SELECT version FROM schema_migrations ORDER BY version');
      expect(rows.map((r) => r.version)).toEqual(versions);
      expect(await migrate(pools[0]!)).toEqual([]);
    } finally {
      await Promise.all(pools.map((p) => p.end()));
    }
  });
});

/** Polls `sql` until it returns a row (at most 10 s). */
async function waitForRow(c: pg.Client, sql: string): Promise<{ pid: number }> {
  for (let i = 0; i < 1000; i++) {
    const { rows } = await c.query<{ pid: number }>(sql);
    if (rows[0]) return rows[0];
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`no row from ${sql}`);
}

/** Opens a writer once the old holder's session has ended on the server (its lock goes with it). */
async function openWhenFree(url: string, holder: string, cleanups: (() => Promise<unknown>)[]): Promise<PostgresTradingStore> {
  for (let i = 0; ; i++) {
    try {
      const store = await PostgresTradingStore.open({ connectionString: url, holder });
      cleanups.push(() => store.close());
      return store;
    } catch (err) {
      if (!(err instanceof WriterLockedError) || i > 200) throw err;
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}
