// `npm run cluster` with the settings an operator gives it: a first port (ODDEX_PORT), from which its processes
// listen on consecutive ports (it forced port 0 on every process), and a database URL with a password, which it
// printed in clear. PostgreSQL, Redis and NATS are started here and given to it, as an operator's would be.
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { noPostgres, postgresSuite, startPostgres, type TestPostgres } from './helpers/postgres.js';
import { startRedis, type LocalRedis } from '../src/local-services/redis.js';
import { startNats, type LocalNats } from '../src/local-services/nats.js';
import { CLUSTER_PROCESSES } from '../src/cluster/settings.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PASSWORD = 'cluster-db-secret-4711';

const portFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });

/** The first of `n` consecutive loopback ports free now, searched from 19500 up. */
async function freeBlock(n: number): Promise<number> {
  for (let base = 19500; base + n < 65535; base += n) {
    let free = true;
    for (let p = base; free && p < base + n; p++) free = await portFree(p);
    if (free) return base;
  }
  throw new Error(`no ${n} consecutive free ports`);
}

const cluster = (env: Record<string, string>, args: string[] = []) =>
  spawn(process.execPath, ['--import', 'tsx', 'src/cluster/main.ts', ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });

describe('npm run cluster settings', () => {
  it('refuses a first port that is not one, naming the setting', async () => {
    const child = cluster({ ODDEX_PORT: 'eighty' });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const exited = new Promise((r) => child.once('exit', r));
    // A cluster that does not refuse it starts everything: stopped here rather than left running.
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([exited, new Promise((r) => (timer = setTimeout(() => r('still running'), 15_000)))]);
    clearTimeout(timer);
    if (code === 'still running') {
      child.kill('SIGTERM');
      await exited;
    }
    expect(code).toBe(2);
    expect(stderr).toMatch(/ODDEX_PORT must be 0 \(free ports\) or the first of 10 ports/);
  }, 30_000);
});

describe.skipIf(noPostgres)(postgresSuite('npm run cluster on the ports given, printing no password'), () => {
  let base = 0;
  let postgres: TestPostgres | undefined;
  let redis: LocalRedis | undefined;
  let nats: LocalNats | undefined;
  let child: ChildProcess | undefined;
  const output: string[] = [];

  beforeAll(async () => {
    // Ten for the cluster's processes, then PostgreSQL, Redis and NATS.
    base = await freeBlock(CLUSTER_PROCESSES.length + 3);
    postgres = await startPostgres({ maxConnections: 150, port: base + 10 });
    await postgres.createDatabase('oddex');
    redis = await startRedis({ port: base + 11 });
    nats = await startNats({ port: base + 12 });
    child = cluster({
      // The local server trusts loopback connections: the password is not checked, only carried as given.
      ODDEX_DATABASE_URL: `postgres://postgres:${PASSWORD}@127.0.0.1:${postgres.port}/oddex`,
      ODDEX_REDIS_URL: redis.url,
      ODDEX_NATS_URL: nats.url,
      ODDEX_PORT: String(base),
      ODDEX_DEMO_LIQUIDITY: 'false',
    });
    child.stderr!.on('data', (d) => output.push(String(d)));
    await new Promise<void>((resolve, reject) => {
      createInterface({ input: child!.stdout! }).on('line', (line) => {
        output.push(line);
        if (line.startsWith('Ctrl-C stops')) resolve();
      });
      child!.once('exit', (code) => reject(new Error(`the cluster exited (${code}) before it was running: ${output.join('\n')}`)));
    });
  }, 180_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child!.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    const logs = /logs\s+(\S+)/.exec(output.join('\n'))?.[1];
    if (logs) rmSync(logs, { recursive: true, force: true });
    await nats?.stop();
    await redis?.stop();
    await postgres?.stop();
  }, 60_000);

  it('listens on consecutive ports from ODDEX_PORT, and prints the database URL with its password masked', async () => {
    const printed = output.join('\n');
    expect(printed).not.toContain(PASSWORD);
    expect(printed).toContain(`postgres://postgres:***@127.0.0.1:${base + 10}/oddex`);
    const at = (what: string) => new RegExp(`^\\s+${what}\\s+(\\S+)`, 'm').exec(printed)?.[1];
    expect([at('sequencer'), at('gateway 1'), at('gateway 2'), at('realtime 2')]).toEqual([
      `http://127.0.0.1:${base}`,
      `http://127.0.0.1:${base + 6}`,
      `http://127.0.0.1:${base + 7}`,
      `ws://127.0.0.1:${base + 9}/connection/websocket`,
    ]);
    for (const port of [base, base + 2, base + 4, base + 6, base + 7, base + 8]) {
      expect([port, (await fetch(`http://127.0.0.1:${port}/health`)).status]).toEqual([port, 200]);
    }
  });
});
