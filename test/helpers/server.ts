// Starts the real exchange on a free port with a temporary data dir; talks HTTP to it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Config } from '../../src/config.js';
import { startExchange, type Exchange, type StartOptions } from '../../src/server.js';

export interface TestExchange extends Exchange {
  dataDir: string;
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

export async function startTestExchange(
  overrides: Partial<Config> = {},
  opts: StartOptions & { dataDir?: string } = {},
): Promise<TestExchange> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'oddex-test-'));
  const config = testConfig(dataDir, overrides);
  const ex = await startExchange(config, opts);
  const t: TestExchange = {
    ...ex,
    dataDir,
    get: (path, headers) => request(ex.url, 'GET', path, undefined, headers),
    post: (path, body, headers) => request(ex.url, 'POST', path, body, headers),
    admin: (method, path, body) =>
      request(ex.url, method, path, body, { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }),
    restart: async () => {
      await ex.close();
      return startTestExchange(overrides, { ...opts, dataDir });
    },
    destroy: async () => {
      await ex.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return t;
}

/**
 * For tests that read the trading side's events on the bus itself: the events are rendered as if every channel
 * had a subscriber (without one, nothing is rendered for realtime).
 */
export function renderForEveryChannel(ex: Pick<TestExchange, 'ctx'>): void {
  const everyone = { book: () => true, maker: () => true, trades: () => true, consolidatedTrades: () => true, refunds: () => true };
  ex.ctx.publisher.audience = () => everyone;
}
