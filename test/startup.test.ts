// The process as an operator runs it: configuration errors, the generated admin token, graceful SIGTERM.
import { afterAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { spawnExchange } from './helpers/process.js';
import { ConfigError, loadConfig } from '../src/config.js';

function runMain(env: Record<string, string>, args: string[] = []): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code, stderr }));
  });
}

describe('start-up and shutdown', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const d = mkdtempSync(join(tmpdir(), 'oddex-start-'));
    dirs.push(d);
    return d;
  };
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('names the setting when configuration is invalid', async () => {
    expect(() => loadConfig({ ODDEX_PORT: '70000' })).toThrow(new ConfigError('ODDEX_PORT', 'expected 0..65535, got 70000'));
    expect(() => loadConfig({}, ['--demo', 'maybe'])).toThrow(/ODDEX_DEMO: expected true or false/);
    expect(() => loadConfig({}, ['--no-such-flag', '1'])).toThrow(/--no-such-flag: unknown flag/);
    expect(loadConfig({ ODDEX_PORT: '9000' }, ['--port=0', '--delay-inplay-by-sport', 'Soccer=1,tennis=2']).port).toBe(0);
    expect(loadConfig({}, ['--delay-inplay-by-sport', 'Soccer=1,tennis=2']).bettingDelay.inPlayBySportMs).toEqual({ soccer: 1, tennis: 2 });
    const node = { ODDEX_REDIS_URL: 'redis://127.0.0.1:6379', ODDEX_REALTIME_TOKEN_SECRET: 'x'.repeat(32) };
    expect(loadConfig({ ODDEX_ROLES: 'realtime', ...node }).roles).toEqual(['realtime']);
    expect(() => loadConfig({ ODDEX_ROLES: 'realtime', ODDEX_REDIS_URL: node.ODDEX_REDIS_URL })).toThrow(/ODDEX_REALTIME_TOKEN_SECRET: a realtime node checks tokens/);
    expect(loadConfig({ ODDEX_ROLES: 'gateway,sequencer,projector,realtime,settlement' }).roles).toHaveLength(5);
    expect(() => loadConfig({ ODDEX_ROLES: 'realtime,router' })).toThrow(/ODDEX_ROLES: unknown role "router"/);
    expect(() => loadConfig({ ODDEX_ROLES: 'gateway,projector' })).toThrow(
      /ODDEX_ROLES: a process runs every role, one of realtime, gateway, projector, settlement alone, or sequencer with any of settlement, projector, realtime; got "gateway,projector"/,
    );
    expect(() => loadConfig({ ODDEX_ROLES: 'settlement,projector' })).toThrow(/ODDEX_ROLES: a process runs every role, one of .*; got "settlement,projector"/);
    expect(() => loadConfig({ ODDEX_ROLES: 'sequencer,projector' })).toThrow(/ODDEX_DATABASE_URL: a sequencer without the settlement role \(a settlement process settles its fills\) shares the journal/);
    expect(() => loadConfig({ ODDEX_ROLES: 'settlement' })).toThrow(/ODDEX_DATABASE_URL: a settlement process shares the journal and the read side in PostgreSQL/);
    expect(() => loadConfig({ ODDEX_ROLES: 'projector' })).toThrow(/ODDEX_DATABASE_URL: a projector process shares the journal and the read side in PostgreSQL/);
    expect(() => loadConfig({ ODDEX_ROLES: 'gateway' })).toThrow(/ODDEX_DATABASE_URL: a gateway shares the journal and the read side in PostgreSQL/);
    const split = { ODDEX_DATABASE_URL: 'postgres://oddex@127.0.0.1/oddex', ODDEX_NATS_URL: 'nats://127.0.0.1:4222' };
    expect(loadConfig({ ODDEX_ROLES: 'gateway', ...split }).roles).toEqual(['gateway']);
    expect(loadConfig({ ODDEX_ROLES: 'sequencer,projector,settlement', ...split }).roles).toEqual(['sequencer', 'projector', 'settlement']);
    expect(loadConfig({ ODDEX_ROLES: 'projector', ...split }).roles).toEqual(['projector']);
    expect(loadConfig({ ODDEX_ROLES: 'settlement', ...split }).roles).toEqual(['settlement']);
    expect(loadConfig({ ODDEX_ROLES: 'sequencer,projector,realtime', ...split }).roles).toEqual(['sequencer', 'projector', 'realtime']);
    expect(loadConfig({ ODDEX_ROLES: 'sequencer', ...split }).roles).toEqual(['sequencer']);
    expect(() => loadConfig({ ODDEX_ROLES: 'settlement', ODDEX_DATABASE_URL: split.ODDEX_DATABASE_URL })).toThrow(/ODDEX_NATS_URL: a settlement process exchanges commands over NATS/);
    expect(() => loadConfig({ ODDEX_ROLES: 'settlement', ODDEX_STANDBY: 'true', ...split })).toThrow(/ODDEX_STANDBY: a standby takes over the sequencer/);
    expect(() => loadConfig({ ODDEX_ROLES: 'sequencer,settlement', ODDEX_DATABASE_URL: split.ODDEX_DATABASE_URL })).toThrow(/ODDEX_NATS_URL: a sequencer apart from its gateways exchanges commands over NATS/);
    expect(() => loadConfig({ ODDEX_NATS_URL: '127.0.0.1:4222' })).toThrow(/ODDEX_NATS_URL: expected nats:\/\/host:port/);
    expect(loadConfig({ ODDEX_ROLES: 'sequencer,settlement', ODDEX_STANDBY: 'true', ...split }).standby).toBe(true);
    expect(() => loadConfig({ ODDEX_STANDBY: 'true' })).toThrow(/ODDEX_DATABASE_URL: a standby follows the journal in PostgreSQL/);
    expect(() => loadConfig({ ODDEX_ROLES: 'gateway', ODDEX_STANDBY: 'true', ...split })).toThrow(/ODDEX_STANDBY: a standby takes over the sequencer/);
    expect(() => loadConfig({ ODDEX_STANDBY: 'maybe' })).toThrow(/ODDEX_STANDBY: expected true or false/);
    expect(() => loadConfig({ ODDEX_REDIS_URL: 'localhost:6379' })).toThrow(/ODDEX_REDIS_URL: expected redis:\/\/host:port/);
    expect(() => loadConfig({ ODDEX_REALTIME_TOKEN_SECRET: 'short' })).toThrow(/ODDEX_REALTIME_TOKEN_SECRET: expected at least 32 characters/);
    const res = await runMain({ ODDEX_DATA_DIR: tempDir(), ODDEX_MAKER_MINIMUM: '-1' });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('invalid configuration ODDEX_MAKER_MINIMUM');
    const alone = await runMain({ ODDEX_DATA_DIR: tempDir(), ODDEX_ROLES: 'realtime' });
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('invalid configuration ODDEX_REDIS_URL: a realtime node serves what the exchange publishes through Redis');
  });

  it('names ODDEX_LOG_LEVEL when it is not a log level, and starts with none of a stack trace', async () => {
    expect(() => loadConfig({ ODDEX_LOG_LEVEL: 'verbose' })).toThrow(/ODDEX_LOG_LEVEL: expected one of fatal, error, warn, info, debug, trace, silent, got "verbose"/);
    expect(loadConfig({ ODDEX_LOG_LEVEL: 'debug' }).logLevel).toBe('debug');
    const res = await runMain({ ODDEX_DATA_DIR: tempDir(), ODDEX_LOG_LEVEL: 'verbose' });
    expect([res.code, res.stderr.trim()]).toEqual([2, 'oddex: invalid configuration ODDEX_LOG_LEVEL: expected one of fatal, error, warn, info, debug, trace, silent, got "verbose"']);
  });

  it('takes only an odds ladder step that divides 100% and leaves a price inside it', () => {
    expect(() => loadConfig({ ODDEX_ODDS_LADDER_STEP: '100000' })).toThrow(/ODDEX_ODDS_LADDER_STEP: expected 1\.\.50000, got 100000/);
    expect(() => loadConfig({ ODDEX_ODDS_LADDER_STEP: '7' })).toThrow(/ODDEX_ODDS_LADDER_STEP: expected a divisor of 100000/);
    expect(loadConfig({ ODDEX_ODDS_LADDER_STEP: '50000' }).oddsLadderStepSize).toBe(50_000);
    expect(loadConfig({ ODDEX_ODDS_LADDER_STEP: '125' }).oddsLadderStepSize).toBe(125);
  });

  it('refuses a bridge fee /metadata does not report and a cross-chain fee without a chain id, naming the setting', () => {
    // A misspelt name was taken and reported nowhere: /metadata said 0 for the fee the operator meant to set.
    expect(() => loadConfig({ ODDEX_BRIDGE_FEES: 'bridgefee=0.5' })).toThrow(/ODDEX_BRIDGE_FEES: unknown bridge fee "bridgefee"; the names are bridgeFee, /);
    expect(loadConfig({ ODDEX_BRIDGE_FEES: 'bridgeFee=0.5, depositBridgeFee=1' }).bridgeFees).toMatchObject({ bridgeFee: 0.5, depositBridgeFee: 1, withdrawalBridgeFee: 0 });
    expect(() => loadConfig({ ODDEX_CROSSCHAIN_FEES: 'arbitrum=2' })).toThrow(/ODDEX_CROSSCHAIN_FEES: expected <chain id>=<fee> pairs, got chain id "arbitrum"/);
    expect(loadConfig({ ODDEX_CROSSCHAIN_FEES: '42161=2,1=0.5' }).crosschainFees).toEqual({ '42161': 2, '1': 0.5 });
  });

  it('refuses pairs of settings in the wrong order, naming the setting', () => {
    expect(() => loadConfig({ ODDEX_CHAIN_RETRY_MIN_MS: '60000', ODDEX_CHAIN_RETRY_MAX_MS: '10' })).toThrow(/ODDEX_CHAIN_RETRY_MIN_MS: 60000 is above ODDEX_CHAIN_RETRY_MAX_MS \(10\)/);
    expect(() => loadConfig({ ODDEX_DEMO_FUNDS_AMOUNT: '2000000000', ODDEX_DEMO_FUNDS_MAX_BALANCE: '1000000000' })).toThrow(
      /ODDEX_DEMO_FUNDS_AMOUNT: 2000000000 is above ODDEX_DEMO_FUNDS_MAX_BALANCE \(1000000000\)/,
    );
    // Demo off: the demo-funds route is off too, and its settings bound nothing.
    expect(loadConfig({ ODDEX_DEMO: 'false', ODDEX_DEMO_FUNDS_AMOUNT: '2000000000', ODDEX_DEMO_FUNDS_MAX_BALANCE: '1000000000' }).demo).toBe(false);
    expect(loadConfig({ ODDEX_CHAIN_RETRY_MIN_MS: '500', ODDEX_CHAIN_RETRY_MAX_MS: '500' }).chainSubmit.minBackoffMs).toBe(500);
  });

  it('says in one line which setting to change when the port is taken or the data dir cannot be written', async () => {
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    try {
      const port = (taken.address() as AddressInfo).port;
      const res = await runMain({ ODDEX_DATA_DIR: tempDir(), ODDEX_HOST: '127.0.0.1', ODDEX_PORT: String(port) });
      expect([res.code, res.stderr.trim()]).toEqual([
        1,
        `oddex: failed to start: 127.0.0.1:${port} is already in use by another program: stop it, or choose another port with --port (ODDEX_PORT)`,
      ]);
    } finally {
      taken.close();
    }
    // A file where the data dir's parent should be.
    const file = join(tempDir(), 'a-file');
    writeFileSync(file, '');
    const res = await runMain({ ODDEX_DATA_DIR: join(file, 'data'), ODDEX_PORT: '0' });
    expect(res.code).toBe(1);
    expect(res.stderr.trim()).toMatch(new RegExp(`^oddex: failed to start: data dir ${join(file, 'data')} cannot be created or written \\(ENOTDIR .*\\): give a writable one with --data-dir \\(ODDEX_DATA_DIR\\)$`));
  });

  it('names the setting, without a stack trace, for a host that does not resolve, a database that refuses, a missing deployment file', async () => {
    const runs = await Promise.all([
      runMain({ ODDEX_DATA_DIR: tempDir(), ODDEX_PORT: '0', ODDEX_HOST: 'not..a..host' }),
      runMain({ ODDEX_DATA_DIR: tempDir(), ODDEX_PORT: '0', ODDEX_DATABASE_URL: 'postgres://oddex:secret@127.0.0.1:1/oddex' }),
      runMain({ ODDEX_DATA_DIR: tempDir(), ODDEX_PORT: '0', ODDEX_CHAIN: 'evm', ODDEX_EVM_DEPLOYMENT: '/nonexistent/evm-deployment.json' }),
    ]);
    // Its own last line: under load, tsx's esbuild service once added a line of its own as the process exited early
    // ("fatal error: all goroutines are asleep - deadlock!").
    const lastLines = runs.map((r) => [r.code, r.stderr.trim().split('\n').filter((line) => line.startsWith('oddex: ')).at(-1)]);
    expect(lastLines).toEqual([
      [1, 'oddex: failed to start: host not..a..host does not resolve to an address of this machine: choose another with --host (ODDEX_HOST)'],
      [1, 'oddex: failed to start: nothing accepts connections at 127.0.0.1:1 (ECONNREFUSED): is the service running, and is ODDEX_DATABASE_URL right?'],
      [1, 'oddex: failed to start: ODDEX_CHAIN=evm needs the deployment file /nonexistent/evm-deployment.json: run `npm run chain` or set ODDEX_EVM_DEPLOYMENT'],
    ]);
    for (const r of runs) expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(runs[1]!.stderr).not.toContain('secret');
  });

  // This and the next start the exchange twice each: about 10 s in CI beside another test file, so more than the default.
  it('generates an admin token once, stores it in the data dir, and finishes in-flight requests on SIGTERM', async () => {
    const dataDir = tempDir();
    const env = { ODDEX_DATA_DIR: dataDir, ODDEX_ADMIN_TOKEN: '', ODDEX_DEMO: 'true', ODDEX_DELAY_PREGAME_MS: '800', ODDEX_RATE_LIMITS: 'false' };
    const first = await spawnExchange(env);
    const token = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    expect(token).toMatch(/^[0-9a-f]{48}$/);
    const unauthorized = await fetch(first.url + '/admin/faucet', { method: 'POST' });
    expect(unauthorized.status).toBe(401);

    // A fill waits out its 800 ms betting delay; SIGTERM arrives meanwhile and the answer still comes.
    const markets = ((await (await fetch(first.url + '/markets/active?type=52')).json()) as { data: { markets: { marketHash: string }[] } }).data.markets;
    const pending = fetch(first.url + '/orders/fill/v2', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        market: markets[0]!.marketHash,
        baseToken: loadConfig({}).baseTokenAddress,
        isTakerBettingOutcomeOne: true,
        stakeWei: '5000000',
        desiredOdds: '50000000000000000000',
        oddsSlippage: 0,
        fillSalt: '1',
        taker: '0x1111111111111111111111111111111111111111',
        takerSig: '0x' + '11'.repeat(65),
      }),
    });
    await new Promise((r) => setTimeout(r, 100));
    first.child.kill('SIGTERM');
    const answer = await pending;
    // The signature is garbage, so the answer is a 403 — what matters is that it is an answer, not a reset.
    expect(answer.status).toBe(403);
    expect(await first.exited).toBe(0);
    // Closed cleanly: the WAL was checkpointed into the database file.
    expect(existsSync(join(dataDir, 'oddex.sqlite-wal')) ? readFileSync(join(dataDir, 'oddex.sqlite-wal')).length : 0).toBe(0);

    const second = await spawnExchange(env);
    expect(readFileSync(join(dataDir, 'admin-token'), 'utf8').trim()).toBe(token);
    const authorized = await fetch(second.url + '/admin/accounts/0x1111111111111111111111111111111111111111', {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(authorized.status).toBe(200);
    second.child.kill('SIGTERM');
    await second.exited;
    const db = new Database(join(dataDir, 'oddex.sqlite'), { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBeGreaterThan(0);
    db.close();
  }, 60_000);

  it('reads ODDEX_ADMIN_TOKEN as the CLI does: trimmed, so a token set with a trailing newline or space still authenticates; blank is none', async () => {
    expect(loadConfig({ ODDEX_ADMIN_TOKEN: ' op-token \n' }).adminToken).toBe('op-token');
    expect(loadConfig({ ODDEX_ADMIN_TOKEN: ' \t' }).adminToken).toBeUndefined();
    const dataDir = tempDir();
    const ex = await spawnExchange({ ODDEX_DATA_DIR: dataDir, ODDEX_ADMIN_TOKEN: 'op-token \n', ODDEX_DEMO: 'false' });
    try {
      // An HTTP header's value loses its surrounding whitespace on the way: the operator sends the token itself.
      const res = await fetch(ex.url + '/admin/accounts/0x1111111111111111111111111111111111111111', { headers: { authorization: 'Bearer op-token' } });
      expect(res.status).toBe(200);
    } finally {
      ex.child.kill('SIGTERM');
      await ex.exited;
    }
    // Whitespace alone is no token: one is generated and stored, as for an empty value.
    const blankDir = tempDir();
    const blank = await spawnExchange({ ODDEX_DATA_DIR: blankDir, ODDEX_ADMIN_TOKEN: ' ', ODDEX_DEMO: 'false' });
    try {
      const token = readFileSync(join(blankDir, 'admin-token'), 'utf8').trim();
      const res = await fetch(blank.url + '/admin/accounts/0x1111111111111111111111111111111111111111', { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(200);
    } finally {
      blank.child.kill('SIGTERM');
      await blank.exited;
    }
  }, 60_000);

  /** `npm start` in a process group of its own, as a terminal runs it; resolves with the server's pid once it listens. */
  function npmStart(dataDir: string) {
    const npm = spawn('npm', ['start'], {
      detached: true,
      env: { ...process.env, ODDEX_PORT: '0', ODDEX_HOST: '127.0.0.1', ODDEX_DATA_DIR: dataDir, ODDEX_DEMO: 'false', ODDEX_LOG_LEVEL: 'info', ODDEX_LOG_FORMAT: 'json' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: string[] = [];
    let out = '';
    npm.stdout.on('data', (d) => {
      out += d;
      const parts = out.split('\n');
      out = parts.pop()!;
      lines.push(...parts);
    });
    const serverPid = new Promise<number>((resolve, reject) => {
      const t = setInterval(() => {
        const listening = lines.some((l) => l.includes('listening on'));
        const pid = lines.map((l) => /"pid":(\d+)/.exec(l)?.[1]).find(Boolean);
        if (listening && pid) {
          clearInterval(t);
          resolve(Number(pid));
        }
      }, 50);
      npm.once('exit', () => {
        clearInterval(t);
        reject(new Error(`npm start exited: ${lines.join('\n').slice(0, 2000)}`));
      });
    });
    return { npm, lines, serverPid };
  }
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  async function gone(pid: number): Promise<void> {
    for (let i = 0; i < 200 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
    expect(alive(pid)).toBe(false);
  }

  it('under npm start, stops cleanly when npm alone gets SIGTERM (its shell passes nothing on) and on a Ctrl-C to the whole group', async () => {
    const dataDir = tempDir();
    const walBytes = () => (existsSync(join(dataDir, 'oddex.sqlite-wal')) ? readFileSync(join(dataDir, 'oddex.sqlite-wal')).length : 0);

    // A supervisor signalling npm's pid: npm and its shell exit, and the server follows its parent.
    const first = npmStart(dataDir);
    const firstPid = await first.serverPid;
    process.kill(first.npm.pid!, 'SIGTERM');
    await gone(firstPid);
    expect(first.lines.filter((l) => l.includes('shutting down')).map((l) => JSON.parse(l).reason)).toEqual(['parent exited']);
    expect(walBytes()).toBe(0);

    // Ctrl-C: SIGINT to every process of the group. The server stops once, gracefully, whatever else it is sent.
    const second = npmStart(dataDir);
    const secondPid = await second.serverPid;
    process.kill(-second.npm.pid!, 'SIGINT');
    process.kill(secondPid, 'SIGTERM');
    await gone(secondPid);
    // Which of the two it handles first is the kernel's to say: one of them, once.
    const reasons = second.lines.filter((l) => l.includes('shutting down')).map((l) => JSON.parse(l).reason);
    expect(reasons).toHaveLength(1);
    expect(['SIGINT', 'SIGTERM']).toContain(reasons[0]);
    expect(walBytes()).toBe(0);

    // The data dir is free again.
    const third = npmStart(dataDir);
    const thirdPid = await third.serverPid;
    process.kill(-third.npm.pid!, 'SIGTERM');
    await gone(thirdPid);
  }, 90_000);
});
