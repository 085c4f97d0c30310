// A full disk under the embedded SQLite store (the data dir on a small tmpfs, filled by a file): readiness says so as
// soon as a commit is refused and comes back once the disk has room for a commit again (not for a one-row write
// alone); the engine's rebuild reads the journal only, so
// trading resumes once space is freed, without a restart; the failures repeated meanwhile (projector, checkpoint
// thread, refused commits) are logged once each, then counted; demo liquidity whose start the disk refuses tries
// again until space is freed; and a stop does not wait long for a projector that
// cannot write. Mounting needs root (CI runs as root): elsewhere the full-disk part is skipped.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, truncateSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { privateKeyToAccount } from 'viem/accounts';
import { DemoLiquidity } from '../src/demo/liquidity.js';
import { startTestExchange, TEST_ADMIN_TOKEN, type TestExchange } from './helpers/server.js';
import { onPostgres } from './helpers/server.js';

const ADDRESS = '0x1111111111111111111111111111111111111111';

/** A tmpfs of `size` mounted on a new dir, or undefined where none can be (not root, no mount). */
function smallDisk(size: string): string | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'oddex-full-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
    return dir;
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
}

/** Writes zeros to `file` until the disk refuses (ENOSPC). */
function fillDisk(file: string): void {
  const fd = openSync(file, 'w');
  const chunk = Buffer.alloc(256 * 1024);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    closeSync(fd);
  }
}

/** Log lines as parsed JSON. */
function logSink() {
  const lines: { level: number; msg: string; [k: string]: unknown }[] = [];
  return { lines, stream: { write: (line: string) => void lines.push(JSON.parse(line) as (typeof lines)[number]) } };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(onPostgres || process.getuid?.() !== 0)('a full disk (SQLite on a small tmpfs; root only)', () => {
  let ex: TestExchange;
  const log = logSink();
  /** Undefined where no tmpfs can be mounted (a container without the right): the tests skip. */
  let mount: string | undefined;
  let filler = '';
  const faucet = () => ex.admin('POST', '/admin/faucet', { address: ADDRESS, amount: '1000000' });
  const ready = async () => {
    const res = await ex.get('/health/ready');
    return [res.status, res.body.errorCode] as const;
  };

  beforeAll(async () => {
    mount = smallDisk('24m');
    if (!mount) return;
    filler = join(mount, 'filler');
    const dataDir = join(mount, 'data');
    mkdirSync(dataDir);
    ex = await startTestExchange({ logLevel: 'warn', logFormat: 'json' }, { dataDir, logDestination: log.stream });
    // The projector's own thread has taken over (it loads for a few seconds under tsx).
    for (let i = 0; i < 600 && !ex.ctx.trading.projection.projectorThread; i++) await sleep(50);
    expect(ex.ctx.trading.projection.projectorThread).toBeDefined();
  }, 60_000);

  afterAll(async () => {
    if (!mount) return;
    try {
      rmSync(filler, { force: true });
      await ex?.close();
    } finally {
      execFileSync('umount', ['--lazy', mount]);
      rmSync(mount, { recursive: true, force: true });
    }
  }, 30_000);

  it('is unready from the first refused commit, trades again once space is freed, logs each repeated failure once', async (ctx) => {
    if (!mount) return ctx.skip();
    expect((await faucet()).status).toBe(200);
    expect(await ready()).toEqual([200, undefined]);
    fillDisk(filler);
    // The journal's WAL may hold some free pages: commits go on until it needs more.
    let res = await faucet();
    for (let i = 0; i < 5000 && res.status === 200; i++) res = await faucet();
    expect([res.status, res.body.errorCode]).toEqual([503, 'STORAGE_FAILED']);
    expect(await ready()).toEqual([503, 'STORAGE_FAILED']);

    // Two seconds of refused commands: refused, still unready, and the log does not grow with every retry.
    const lines = log.lines.length;
    for (let end = Date.now() + 2000; Date.now() < end; await sleep(20)) expect((await faucet()).body.errorCode).toBe('STORAGE_FAILED');
    expect(await ready()).toEqual([503, 'STORAGE_FAILED']);
    const added = log.lines.slice(lines);
    const distinct = new Set(added.map((l) => l.msg));
    expect(added.length).toBe(distinct.size);
    expect(log.lines.filter((l) => l.msg.startsWith('journal commit failed: batch refused, engine rebuilt'))).toHaveLength(1);
    expect(log.lines.some((l) => /could not be rebuilt/.test(l.msg))).toBe(false);

    // A few pages are freed (another program's cleanup): a one-row write fits in them, a commit of the refused size
    // may not. Readiness waits for room for one, rather than send clients writes that the disk refuses.
    truncateSync(filler, statSync(filler).size - 16 * 1024);
    for (let i = 0; i < 5; i++) {
      expect(await ready()).toEqual([503, 'STORAGE_FAILED']);
      await sleep(100);
    }
    expect(existsSync(join(mount, 'data', 'oddex.write-probe'))).toBe(false);

    // Space is freed: ready again without a command (readiness tries a write), and the next command trades.
    rmSync(filler);
    let state = await ready();
    for (let i = 0; i < 50 && state[0] !== 200; i++) state = (await sleep(100), await ready());
    expect(state).toEqual([200, undefined]);
    const ok = await faucet();
    expect(ok.status).toBe(200);
    const balance = BigInt(ok.body.data.balance);
    expect((await faucet()).body.data.balance).toBe((balance + 1_000_000n).toString());
  }, 60_000);

  it('demo liquidity whose start a full disk refuses tries again, and quotes once space is freed', async (ctx) => {
    if (!mount) return ctx.skip();
    // The read models current first: demo liquidity waits for account reads to answer before it writes anything.
    const { projection, runner } = ex.ctx.trading;
    for (let i = 0; i < 100 && projection.position < runner.durableSeq; i++) await sleep(50);
    expect(projection.position).toBe(runner.durableSeq);
    fillDisk(filler);
    // A maker on an exchange with no markets: it has started once funded, its heartbeat on and its order channel open.
    const demoLog = logSink();
    const demo = new DemoLiquidity({
      url: ex.url,
      adminToken: TEST_ADMIN_TOKEN,
      dataDir: ex.dataDir,
      log: pino({ level: 'warn' }, demoLog.stream),
      makers: 1,
      retryMs: { first: 100, max: 400 },
    });
    let started = false;
    const starting = demo.start().then(() => (started = true));
    try {
      const refused = () => demoLog.lines.filter((l) => l.msg === 'demo liquidity could not start; trying again');
      for (let i = 0; i < 200 && refused().length === 0; i++) await sleep(50);
      expect(refused().length).toBeGreaterThan(0);
      expect(started).toBe(false);
      rmSync(filler);
      for (let i = 0; i < 200 && !started; i++) await sleep(50);
      expect(started).toBe(true);
      const wallets = JSON.parse(readFileSync(join(ex.dataDir, 'demo-wallets.json'), 'utf8')) as { makers: { privateKey: `0x${string}` }[] };
      const maker = privateKeyToAccount(wallets.makers[0]!.privateKey).address;
      expect(BigInt((await ex.get(`/balances/${maker}`)).body.data.balance)).toBeGreaterThan(0n);
    } finally {
      await demo.stop();
      await starting;
    }
  }, 30_000);

  it('stops within seconds while the projector cannot write, saying how many commands it left', async (ctx) => {
    if (!mount) return ctx.skip();
    fillDisk(filler);
    // Commands the journal still takes (its WAL's free pages) while the read models' database refuses them.
    let journaled = 0;
    for (let i = 0; i < 20; i++) if ((await faucet()).status === 200) journaled++;
    const started = performance.now();
    await ex.close();
    const ms = performance.now() - started;
    expect(ms).toBeLessThan(10_000);
    if (journaled > 0 && ex.ctx.trading.projection.position < ex.ctx.trading.runner.durableSeq) {
      expect(log.lines.some((l) => /^stopping without waiting longer for the read models/.test(l.msg))).toBe(true);
    }
    // The projector thread's problems (its stop's batch refused too) say what the database said.
    const problems = log.lines.filter((l) => l.msg.startsWith('read models not projected')).map((l) => l.message);
    expect(problems.filter((m) => typeof m !== 'string' || /undefined/.test(m))).toEqual([]);
  }, 30_000);
});

describe('a stop with the read models far behind', () => {
  it('waits for the projector a few seconds at most, and says what it left to the next start', async () => {
    const log = logSink();
    // A projector that waits 30 s before each batch: far behind the journal when the stop comes.
    const ex = await startTestExchange({ logLevel: 'warn', logFormat: 'json', projectorDelayMs: 30_000 }, { logDestination: log.stream });
    try {
      for (let i = 0; i < 600 && !ex.ctx.trading.projection.projectorThread; i++) await sleep(50);
      for (let i = 0; i < 3; i++) expect((await ex.admin('POST', '/admin/faucet', { address: ADDRESS, amount: '1000000' })).status).toBe(200);
      const journaled = ex.ctx.trading.runner.durableSeq;
      const projected = ex.ctx.trading.projection.position;
      expect(projected).toBeLessThan(journaled);
      const started = performance.now();
      await ex.close();
      // 3 s for the read models, and the rest of the stop.
      expect(performance.now() - started).toBeLessThan(6_000);
      const said = log.lines.find((l) => /^stopping without waiting longer for the read models/.test(l.msg));
      expect(said).toMatchObject({ level: 40, journaled, projected, left: journaled - projected });
      // The next start projects what was left, from the journal.
      const again = await startTestExchange({}, { dataDir: ex.dataDir, ...(ex.databaseUrl ? { databaseUrl: ex.databaseUrl } : {}) });
      expect((await again.get(`/balances/${ADDRESS}`)).body.data.balance).toBe('3000000');
      await again.destroy();
    } finally {
      await ex.close();
      rmSync(ex.dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
