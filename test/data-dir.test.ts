// The data dir under faults and other processes: one process at a time, private files, durable commits,
// a torn WAL tail reported, an unwritable dir detected at start, the deployment's own executor address.
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { appendFileSync, chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { getAddress } from 'viem';
import { startTestExchange, testConfig, type TestExchange } from './helpers/server.js';
import { spawnExchange } from './helpers/process.js';
import { startExchange } from '../src/server.js';
import { inspectWal } from '../src/store/sqlite/wal-check.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'oddex-dd-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};
const started = async (ex: Promise<TestExchange>) => {
  const e = await ex;
  cleanup.push(() => e.close());
  return e;
};
/** A pino destination that keeps the parsed log lines. */
function logSink(): { stream: Writable; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  return { stream, lines };
}
const mode = (path: string) => statSync(path).mode & 0o777;

describe('one process per data dir', () => {
  it('a second exchange on the same data dir refuses to start, and starts once the first has stopped', async () => {
    const dataDir = tempDir();
    const first = await startTestExchange({}, { dataDir });
    await expect(startTestExchange({}, { dataDir })).rejects.toThrow(
      `data dir ${dataDir} is in use by another Oddex process`,
    );
    expect((await first.get('/health/ready')).status).toBe(200);
    await first.close();
    await started(startTestExchange({}, { dataDir }));
  });

  it('a second server process exits with a clear message while the first keeps serving', async () => {
    const dataDir = tempDir();
    const env = { ODDEX_DATA_DIR: dataDir, ODDEX_ADMIN_TOKEN: 'x', ODDEX_DEMO: 'false' };
    const first = await spawnExchange(env);
    cleanup.push(() => void first.child.kill('SIGKILL'));
    const second = spawnExchange(env);
    await expect(second).rejects.toThrow(/exited \(1\) before listening: oddex: data dir .* is in use by another Oddex process/);
    expect((await fetch(first.url + '/health/ready')).status).toBe(200);
    // SIGKILL: the kernel drops the lock with the process, so nothing stale is left behind.
    first.child.kill('SIGKILL');
    await first.exited;
    await started(startTestExchange({}, { dataDir }));
  }, 60_000);
});

describe('secrets in the data dir', () => {
  it('creates the dir 0700 and every file 0600, and logs only the admin token file', async () => {
    const dataDir = join(tempDir(), 'new');
    const log = logSink();
    const ex = await startExchange(testConfig(dataDir, { adminToken: undefined, logLevel: 'info' }), { logDestination: log.stream });
    cleanup.push(() => ex.close());
    const token = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    expect(token).toMatch(/^[0-9a-f]{48}$/);
    // The realtime signing secret lives in the database: issue a token so it is written.
    const key = (await (await fetch(ex.url + '/admin/api-keys', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ address: '0x' + 'ab'.repeat(20) }),
    })).json()) as { data: { apiKey: string } };
    expect((await fetch(ex.url + '/user/realtime-token/api-key', { headers: { 'x-api-key': key.data.apiKey } })).status).toBe(200);

    expect(mode(dataDir)).toBe(0o700);
    const files = readdirSync(dataDir);
    expect(files).toEqual(expect.arrayContaining(['admin-token', 'oddex.sqlite', 'oddex.sqlite-wal', 'oddex.sqlite-shm', 'oddex.lock']));
    expect(Object.fromEntries(files.map((f) => [f, mode(join(dataDir, f))]))).toEqual(Object.fromEntries(files.map((f) => [f, 0o600])));
    const text = JSON.stringify(log.lines);
    expect(text).not.toContain(token);
    expect(log.lines.find((l) => l.adminTokenFile === join(dataDir, 'admin-token'))?.msg).toBe(
      `generated an admin token; it is in ${join(dataDir, 'admin-token')}`,
    );
  });

  it('replaces an admin-token file a crash left empty with a new token, and leaves no temporary file', async () => {
    const dataDir = join(tempDir(), 'crashed');
    mkdirSync(dataDir, { mode: 0o700 });
    writeFileSync(join(dataDir, 'admin-token'), '', { mode: 0o600 });
    const ex = await startExchange(testConfig(dataDir, { adminToken: undefined }), { logDestination: logSink().stream });
    cleanup.push(() => ex.close());
    const token = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    expect(token).toMatch(/^[0-9a-f]{48}$/);
    expect((await fetch(ex.url + '/admin/accounts/0x' + 'ab'.repeat(20), { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    expect(readdirSync(dataDir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('tightens a data dir and files an older version left readable', async () => {
    const dataDir = tempDir();
    await (await startTestExchange({}, { dataDir })).close();
    chmodSync(dataDir, 0o755);
    chmodSync(join(dataDir, 'oddex.sqlite'), 0o644);
    await started(startTestExchange({}, { dataDir }));
    expect([mode(dataDir), mode(join(dataDir, 'oddex.sqlite'))]).toEqual([0o700, 0o600]);
  });

  it('does not chmod a shared dir (or files not its own) given as data dir, and warns', async () => {
    const dataDir = tempDir();
    chmodSync(dataDir, 0o755);
    writeFileSync(join(dataDir, 'notes.txt'), 'someone else', { mode: 0o644 });
    const log = logSink();
    const ex = await startExchange(testConfig(dataDir, { logLevel: 'info' }), { logDestination: log.stream });
    cleanup.push(() => ex.close());
    expect([mode(dataDir), mode(join(dataDir, 'notes.txt')), mode(join(dataDir, 'oddex.sqlite'))]).toEqual([0o755, 0o644, 0o600]);
    expect(log.lines.find((l) => l.dataDir === dataDir && l.level === 40)?.msg).toBe(
      `data dir ${dataDir} holds other files and others can read it; give the exchange a dir of its own`,
    );
  });
});

describe('durability', () => {
  it('commits with synchronous=FULL', async () => {
    const ex = await started(startTestExchange({}, { dataDir: tempDir() }));
    expect(ex.ctx.db!.pragma('synchronous', { simple: true })).toBe(2);
  });

  /** A crash snapshot of a database with a WAL: files copied while the writer still has them open. */
  function crashedDataDir(): { dir: string; wal: string } {
    const src = tempDir();
    const db = new Database(join(src, 'oddex.sqlite'));
    db.pragma('journal_mode = WAL');
    db.pragma('wal_autocheckpoint = 0');
    db.exec('CREATE TABLE t (v TEXT)');
    for (let i = 0; i < 3; i++) db.prepare('INSERT INTO t VALUES (?)').run('row' + i);
    const dir = tempDir();
    copyFileSync(join(src, 'oddex.sqlite'), join(dir, 'oddex.sqlite'));
    copyFileSync(join(src, 'oddex.sqlite-wal'), join(dir, 'oddex.sqlite-wal'));
    db.close();
    return { dir, wal: join(dir, 'oddex.sqlite-wal') };
  }

  it('reads a clean WAL as fully committed', () => {
    const { wal } = crashedDataDir();
    expect(inspectWal(wal)).toEqual({ committedFrames: 5, discardedBytes: 0, badHeader: false });
  });

  it('reports a torn WAL tail at start, keeps a copy, and keeps every committed row', async () => {
    const { dir, wal } = crashedDataDir();
    const clean = statSync(wal).size;
    // Half a frame written when the power went: same salts as the log, the rest never reached the disk.
    const lastFrame = readFileSync(wal).subarray(clean - (24 + 4096), clean - 4096 + 100);
    appendFileSync(wal, lastFrame);
    expect(inspectWal(wal)).toEqual({ committedFrames: 5, discardedBytes: 24 + 100, badHeader: false });

    const log = logSink();
    const ex = await startExchange(testConfig(dir, { logLevel: 'info' }), { now: () => 1_700_000_000_000, logDestination: log.stream });
    cleanup.push(() => ex.close());
    const copy = `${wal}.torn-1700000000000`;
    expect(log.lines.find((l) => l.walCopy === copy)).toMatchObject({
      level: 50,
      discardedBytes: 124,
      committedFrames: 5,
      msg: `the database WAL has a torn tail: 124 bytes after the last committed transaction (5 committed frames kept) will be discarded by recovery; a copy is kept at ${copy}`,
    });
    expect(statSync(copy).size).toBe(clean + 124);
    expect(ex.ctx.db!.prepare('SELECT v FROM t ORDER BY rowid').pluck().all()).toEqual(['row0', 'row1', 'row2']);
  });

  it('says at start that a missing read models file is projected again from the journal, and says nothing on a first start', async () => {
    const dir = tempDir();
    const first = logSink();
    await (await startExchange(testConfig(dir, { logLevel: 'info' }), { logDestination: first.stream })).close();
    const said = (lines: Record<string, unknown>[]) => lines.filter((l) => l.file === 'oddex.read-models.sqlite');
    expect(said(first.lines)).toEqual([]);
    for (const f of readdirSync(dir).filter((n) => n.startsWith('oddex.read-models.sqlite'))) rmSync(join(dir, f));
    const again = logSink();
    cleanup.push(await startExchange(testConfig(dir, { logLevel: 'info' }), { logDestination: again.stream }).then((ex) => () => ex.close()));
    expect(said(again.lines)).toMatchObject([{ level: 40, msg: 'oddex.read-models.sqlite is missing: the read models are projected again from the journal' }]);
  });

  it('reports a frame whose checksum fails (a torn page) and what followed it', () => {
    const { wal } = crashedDataDir();
    const buf = readFileSync(wal);
    const frame = 24 + 4096;
    // Corrupt the last frame's page: recovery stops before it, so the last transaction is dropped.
    buf[buf.length - 10] = buf[buf.length - 10]! ^ 0xff;
    writeFileSync(wal, buf);
    expect(inspectWal(wal)).toEqual({ committedFrames: 4, discardedBytes: frame, badHeader: false });
  });
});

describe('storage that cannot be written', () => {
  it('is detected at start (not ready, clear log), refuses API key writes with 503, and heals when writes succeed', async () => {
    const dataDir = tempDir();
    await (await startTestExchange({}, { dataDir })).close();
    // Another program holds SQLite's write lock past the busy timeout.
    const other = new Database(join(dataDir, 'oddex.sqlite'));
    other.exec('BEGIN IMMEDIATE');
    cleanup.push(() => void (other.inTransaction && other.exec('ROLLBACK'), other.close()));
    const log = logSink();
    const ex = await startExchange(testConfig(dataDir, { storageBusyTimeoutMs: 50, logLevel: 'info' }), { logDestination: log.stream });
    cleanup.push(() => ex.close());
    const get = (path: string) => fetch(ex.url + path);
    const ready = await get('/health/ready');
    expect([ready.status, ((await ready.json()) as { errorCode: string }).errorCode]).toEqual([503, 'NOT_READY']);
    expect(log.lines.find((l) => l.level === 50 && l.dataDir === dataDir)?.msg).toBe(
      `data dir ${dataDir} cannot be written (database is locked); not ready until it can`,
    );
    const adminPost = (path: string, body: unknown) =>
      fetch(ex.url + path, {
        method: 'POST',
        headers: { authorization: 'Bearer test-admin-token', 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const unavailable = { status: 'failure', errorCode: 'STORAGE_UNAVAILABLE', message: 'the exchange cannot write to its storage now; retry later' };
    const key = await adminPost('/admin/api-keys', { address: '0x' + 'ab'.repeat(20) });
    expect([key.status, await key.json(), key.headers.get('retry-after')]).toEqual([503, unavailable, '1']);
    const sport = await adminPost('/admin/sports', { label: 'Curling' });
    expect([sport.status, await sport.json()]).toEqual([503, unavailable]);
    // Nothing half-written: the catalogue in memory does not show the sport the disk refused.
    expect(((await (await get('/sports')).json()) as { data: { label: string }[] }).data.map((s) => s.label)).not.toContain('Curling');

    other.exec('ROLLBACK');
    await expect.poll(async () => (await get('/health/ready')).status, { timeout: 5000, interval: 100 }).toBe(200);
    expect((await adminPost('/admin/sports', { label: 'Curling' })).status).toBe(200);
  });
});

describe('executor address', () => {
  it('is generated on first start, kept across restarts, reported in /metadata, and differs per deployment', async () => {
    const dirA = tempDir();
    const metaExecutor = async (ex: TestExchange) => (await ex.get('/metadata')).body.data.executorAddress as string;
    const a = await startTestExchange({}, { dataDir: dirA });
    const first = await metaExecutor(a);
    expect(first).toBe(getAddress(first));
    expect(first).not.toBe('0x52adf738AAD93c31f798a30b2C74D658e1E9a562');
    expect(a.ctx.config.executorAddress).toBe(first);
    await a.close();
    const again = await started(startTestExchange({}, { dataDir: dirA }));
    expect(await metaExecutor(again)).toBe(first);
    const other = await started(startTestExchange({}, { dataDir: tempDir() }));
    expect(await metaExecutor(other)).not.toBe(first);
  });

  it('is the configured one when set', async () => {
    const configured = '0x52adf738aad93c31f798a30b2c74d658e1e9a562';
    const ex = await started(startTestExchange({ executorAddress: configured }, { dataDir: tempDir() }));
    expect((await ex.get('/metadata')).body.data.executorAddress).toBe(getAddress(configured));
  });
});
