// A throw-away redis-server (Debian's package) on a free loopback port with its files in a temp dir and no
// persistence, so a restart loses every key as a Redis that lost its data does. Used by `npm run cluster`, tests
// and benchmarks.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { daemon, launchOrCleanUp } from './daemon.js';
import { freePort } from './free-port.js';

export interface LocalRedis {
  url: string;
  port: number;
  /** A new client of this server (closed by `stop`). */
  client(): Redis;
  /** Stops the server and starts it again on the same port, empty. */
  restartEmpty(): Promise<void>;
  /** Kills the server (SIGKILL): its clients lose the connection. */
  halt(): Promise<void>;
  /** Starts it again on the same port (empty) after `halt`. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

async function waitForPing(port: number, exited: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => {}); // the connect below rejects with it
    try {
      await probe.connect();
      await probe.ping();
      return;
    } catch (err) {
      if (exited() || Date.now() > deadline) throw new Error(`redis-server did not answer on port ${port} (is Debian's redis-server installed?)`, { cause: err });
      await new Promise((r) => setTimeout(r, 50));
    } finally {
      probe.disconnect();
    }
  }
}

/** `port`: this one rather than a free one. */
export async function startRedis(opts: { port?: number } = {}): Promise<LocalRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'oddex-redis-'));
  const port = opts.port ?? (await freePort());
  const clients: Redis[] = [];
  const server = daemon('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'], (exited) =>
    waitForPing(port, exited),
  );
  const { launch, halt } = server;
  await launchOrCleanUp(server, () => rmSync(dir, { recursive: true, force: true }));
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
    halt,
    start: launch,
    async stop() {
      for (const c of clients) c.disconnect();
      await halt();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
