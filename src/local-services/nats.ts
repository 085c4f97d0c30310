// A throw-away nats-server (Debian's package) on a free loopback port, its pid and log files in a temp dir, no
// persistence (plain core NATS: request/reply only). `halt` and `start` take it down and bring it back on the same
// port, as a NATS restart or a network cut looks to its clients. Used by `npm run cluster`, tests and benchmarks.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { daemon, launchOrCleanUp } from './daemon.js';
import { freePort } from './free-port.js';

/** Debian installs it in /usr/sbin, which is not on every user's PATH. */
const NATS_SERVER = existsSync('/usr/sbin/nats-server') ? '/usr/sbin/nats-server' : 'nats-server';

export interface LocalNats {
  url: string;
  port: number;
  /** Kills the server (SIGKILL): its clients lose the connection. */
  halt(): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Resolves once the server greets a connection with its INFO line. */
async function waitForInfo(port: number, exited: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const greeted = await new Promise<boolean>((resolve) => {
      const socket = tcpConnect(port, '127.0.0.1');
      socket.once('data', (d) => {
        socket.destroy();
        resolve(d.toString().startsWith('INFO'));
      });
      socket.once('error', () => resolve(false));
    });
    if (greeted) return;
    if (exited() || Date.now() > deadline) throw new Error(`nats-server did not answer on port ${port} (is Debian's nats-server installed?)`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** `port`: this one rather than a free one. */
export async function startNats(opts: { port?: number } = {}): Promise<LocalNats> {
  const dir = mkdtempSync(join(tmpdir(), 'oddex-nats-'));
  const port = opts.port ?? (await freePort());
  const server = daemon(NATS_SERVER, ['-a', '127.0.0.1', '-p', String(port), '-P', join(dir, 'nats.pid'), '-l', join(dir, 'nats.log')], (exited) =>
    waitForInfo(port, exited),
  );
  const { launch, halt } = server;
  await launchOrCleanUp(server, () => rmSync(dir, { recursive: true, force: true }));
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    halt,
    start: launch,
    async stop() {
      await halt();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
