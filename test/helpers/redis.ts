// A throwaway redis-server (Debian's package; .ci/run installs it) on a free loopback port with its files in a temp
// dir and no persistence, so a restart loses every key as a Redis that lost its data does.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { Redis } from 'ioredis';
import { freePort } from './realtime.js';

export interface TestRedis {
  url: string;
  port: number;
  /** A new client of this server (closed by `stop`). */
  client(): Redis;
  /** Stops the server and starts it again on the same port, empty. */
  restartEmpty(): Promise<void>;
  stop(): Promise<void>;
}

async function waitForPing(port: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => {}); // the connect below rejects with it
    try {
      await probe.connect();
      await probe.ping();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 50));
    } finally {
      probe.disconnect();
    }
  }
}

export async function startRedis(): Promise<TestRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'oddex-redis-'));
  const port = await freePort();
  const clients: Redis[] = [];
  let proc: ChildProcess;
  const launch = async () => {
    proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    await waitForPing(port);
  };
  const halt = async () => {
    if (proc.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      proc.once('exit', () => resolve());
      proc.kill('SIGKILL');
    });
  };
  await launch();
  const url = `redis://127.0.0.1:${port}`;
  return {
    url,
    port,
    client() {
      const c = new Redis(url);
      c.on('error', () => {}); // reconnects by itself; tests restart the server on purpose
      clients.push(c);
      return c;
    },
    async restartEmpty() {
      await halt();
      await launch();
    },
    async stop() {
      for (const c of clients) c.disconnect();
      await halt();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A redis-server for the test file: started before its tests, stopped after them. */
export function redisForSuite(): () => TestRedis {
  let redis: TestRedis | undefined;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });
  return () => redis!;
}
