// Starts the real exchange on a free port with a temporary data dir; talks HTTP to it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { loadConfig, type Config } from '../../src/config.js';
import { startExchange, type Exchange, type StartOptions } from '../../src/server.js';

export interface TestExchange extends Exchange {
  dataDir: string;
  /** On the `postgres` project: the exchange's own database. */
  databaseUrl?: string;
  get(path: string, headers?: Record<string, string>): Promise<TestResponse>;
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<TestResponse>;
  admin(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<TestResponse>;
  /** Closes and starts again on the same data dir. */
  restart(): Promise<TestExchange>;
  /** Closes and removes the data dir. */
  destroy(): Promise<void>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export const TEST_ADMIN_TOKEN = 'test-admin-token';

export function testConfig(dataDir: string, overrides: Partial<Config> = {}): Config {
  return loadConfig({}, [], {
    port: 0,
    host: '127.0.0.1',
    dataDir,
    demo: false,
    // Tests that seed the demo catalogue check it as seeded: no demo bots moving books and main lines.
    demoLiquidity: false,
    logLevel: 'silent',
    adminToken: TEST_ADMIN_TOKEN,
    // The test client keeps its connections alive: each stop would wait out the grace on them (as the old close did,
    // they are closed at once; test/graceful-stop.test.ts stops a real process with the default grace).
    shutdownIdleGraceMs: 0,
    ...overrides,
  });
}

async function request(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
  }
  const res = await fetch(base + path, init);
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* keep text */
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

/** Whether this run is the `postgres` project's (vitest.config.ts): every exchange keeps its data on PostgreSQL. */
export const onPostgres = process.env.ODDEX_TEST_STORE === 'postgres';

let databases = 0;

/** A new empty database on the run's cluster (test/helpers/postgres-global.ts). */
async function createTestDatabase(): Promise<string> {
  const url = inject('postgresUrl');
  if (!url) throw new Error('the postgres project needs PostgreSQL server binaries (apt-get install postgresql)');
  const name = `exchange_${process.pid}_${++databases}`;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  return url.replace(/\/[^/]*$/, `/${name}`);
}

export async function startTestExchange(
  overrides: Partial<Config> = {},
  opts: StartOptions & { dataDir?: string; databaseUrl?: string } = {},
): Promise<TestExchange> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'oddex-test-'));
  const databaseUrl = opts.databaseUrl ?? overrides.databaseUrl ?? (onPostgres ? await createTestDatabase() : undefined);
  const config = testConfig(dataDir, { ...overrides, ...(databaseUrl ? { databaseUrl } : {}) });
  const ex = await startExchange(config, opts);
  if (databaseUrl && ex.ctx.db) throw new Error('an exchange given a database URL opened the data dir\'s SQLite store');
  const t: TestExchange = {
    ...ex,
    dataDir,
    ...(databaseUrl ? { databaseUrl } : {}),
    get: (path, headers) => request(ex.url, 'GET', path, undefined, headers),
    post: (path, body, headers) => request(ex.url, 'POST', path, body, headers),
    admin: (method, path, body) =>
      request(ex.url, method, path, body, { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }),
    restart: async () => {
      await ex.close();
      return startTestExchange(overrides, { ...opts, dataDir, ...(databaseUrl ? { databaseUrl } : {}) });
    },
    destroy: async () => {
      await ex.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return t;
}

/**
 * Resolves once everything journaled so far has been published. A read may answer as soon as the read models hold a
 * write, while its publication is still being prepared (on PostgreSQL that reads the database): tests that compare
 * the bus's events with a read wait for this first.
 */
export function publicationsOut(ex: Pick<TestExchange, 'ctx'>): Promise<void> {
  return ex.ctx.trading.projection.publishedJournaled();
}

/**
 * For tests that read the trading side's events on the bus itself: the events are rendered as if every channel
 * had a subscriber (without one, nothing is rendered for realtime).
 */
export function renderForEveryChannel(ex: Pick<TestExchange, 'ctx'>): void {
  const everyone = { book: () => true, maker: () => true, trades: () => true, consolidatedTrades: () => true, refunds: () => true };
  ex.ctx.publisher.audience = () => everyone;
}
