// The HTTP port of a process that runs one role with a hot standby of its own (a projector, a settlement process):
// health-port.ts's answers, /health/ready 200 while it holds its role's lock and works, 503 "standby" while it waits.
import { createServer } from 'node:http';
import type pino from 'pino';
import { Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { healthPort } from './health-port.js';

/** A process of one role with a standby of its own, as its starter holds it. */
export interface StandbyNode {
  url: string;
  port: number;
  log: pino.Logger;
  /** Whether this process holds its role's lock (false: standing by). */
  readonly active: boolean;
  close(): Promise<void>;
}

export interface HealthServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function serveStandbyHealth(opts: { host: string; port: number; registry: Registry; active: () => boolean; log: pino.Logger; name: string }): Promise<HealthServer> {
  const server = createServer(healthPort({ registry: opts.registry, ready: opts.active, notReady: 'standby' }));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  const url = `http://${opts.host}:${port}`;
  opts.log.info({ port, host: opts.host }, `Oddex ${opts.name} listening on ${url}`);
  return { url, port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** A registry of the process's own figures and `gauge`: 1 while it holds its role's lock, 0 while it stands by. */
export function standbyRegistry(gauge: { name: string; help: string }, active: () => boolean): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'oddex_process_' });
  new Gauge({
    ...gauge,
    registers: [registry],
    collect() {
      this.set(active() ? 1 : 0);
    },
  });
  return registry;
}

/** What its starter holds of the process: its health port, whether it is active, and `close`, run once however often called. */
export function standbyNode(health: HealthServer, log: pino.Logger, active: () => boolean, close: () => Promise<void>): StandbyNode {
  let closing: Promise<void> | undefined;
  return {
    url: health.url,
    port: health.port,
    log,
    get active() {
      return active();
    },
    close: () => (closing ??= close()),
  };
}
