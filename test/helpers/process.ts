// Runs the exchange as a real child process (npm start's entry point), for crash and load tests.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface ChildExchange {
  child: ChildProcess;
  url: string;
  /** Resolves when the process has exited. */
  exited: Promise<number | null>;
}

/**
 * Starts `src/main.ts` on a free port and resolves once it logs the address it listens on; `root` is the checkout to
 * run (another worktree, for benchmarks against an earlier commit).
 */
export function spawnExchange(env: Record<string, string>, root = ROOT): Promise<ChildExchange> {
  const child = spawn(process.execPath, [...(process.env.ODDEX_NODE_ARGS?.split(' ').filter(Boolean) ?? []), '--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    // No demo bots unless a test asks: they would trade alongside the test's own orders.
    env: { ...process.env, ODDEX_PORT: '0', ODDEX_HOST: '127.0.0.1', ODDEX_LOG_LEVEL: 'info', ODDEX_DEMO_LIQUIDITY: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(line);
      if (m) resolve({ child, url: m[1]!, exited });
    });
    exited.then((code) => reject(new Error(`exchange exited (${code}) before listening: ${stderr.slice(0, 2000)}`)));
  });
}

/** A child exchange whose output is watched line by line (a standby logs before it listens, if it ever does). */
export interface WatchedExchange {
  child: ChildProcess;
  exited: Promise<number | null>;
  /** Resolves with the first line (past or future) matching `pattern`; rejects if the process exits first. */
  line(pattern: RegExp): Promise<string>;
  /** The lines so far matching `pattern`. */
  lines(pattern: RegExp): string[];
  /** Its stderr so far. */
  stderr(): string;
}

/** Starts `src/main.ts` as spawnExchange does, without waiting for anything. */
export function spawnWatched(env: Record<string, string>, root = ROOT): WatchedExchange {
  const child = spawn(process.execPath, [...(process.env.ODDEX_NODE_ARGS?.split(' ').filter(Boolean) ?? []), '--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: { ...process.env, ODDEX_PORT: '0', ODDEX_HOST: '127.0.0.1', ODDEX_LOG_LEVEL: 'info', ODDEX_DEMO_LIQUIDITY: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const seen: string[] = [];
  const waiting: { pattern: RegExp; resolve: (line: string) => void }[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    seen.push(line);
    for (const w of waiting.filter((w) => w.pattern.test(line))) {
      waiting.splice(waiting.indexOf(w), 1);
      w.resolve(line);
    }
  });
  const line = (pattern: RegExp) =>
    new Promise<string>((resolve, reject) => {
      const found = seen.find((l) => pattern.test(l));
      if (found !== undefined) return resolve(found);
      waiting.push({ pattern, resolve });
      void exited.then((code) => reject(new Error(`exchange exited (${code}) before logging ${pattern}: ${stderr.slice(0, 2000)}`)));
    });
  return { child, exited, line, lines: (pattern) => seen.filter((l) => pattern.test(l)), stderr: () => stderr };
}

/**
 * A crash suite's data dir and the environment of its child exchanges (demo catalogue, no pre-game delay, no rate
 * limits). `spawn` starts one with extra settings, `call` talks to it; after the suite the last child is killed and the dir removed.
 */
export function crashSuite(name: string, adminToken: string, chainConfirmMs: number) {
  const dataDir = mkdtempSync(join(tmpdir(), `oddex-${name}-`));
  const env = {
    ODDEX_DATA_DIR: dataDir,
    ODDEX_ADMIN_TOKEN: adminToken,
    ODDEX_DEMO: 'true',
    ODDEX_DELAY_PREGAME_MS: '0',
    ODDEX_CHAIN_CONFIRM_MS: String(chainConfirmMs),
    ODDEX_RATE_LIMITS: 'false',
  };
  let last: ChildExchange | undefined;
  afterAll(() => {
    last?.child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });
  /** A JSON request to the last child started (with the admin token when `admin`), answered as status and body. */
  const call = async (method: string, path: string, body?: unknown, admin = false) => {
    const res = await fetch(last!.url + path, {
      method,
      headers: { 'content-type': 'application/json', ...(admin ? { authorization: `Bearer ${adminToken}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return { status: res.status, body: (await res.json()) as any };
  };
  return { dataDir, env, call, spawn: async (extra: Record<string, string> = {}) => (last = await spawnExchange({ ...env, ...extra })) };
}

/**
 * The child exchanges and temp dirs of a test file: `tempDir` makes one, `spawn` starts a child (resolving with its
 * URL); after the file every child is killed and every dir removed.
 */
export function suiteChildren(prefix: string) {
  const dirs: string[] = [];
  const children: ChildExchange[] = [];
  afterAll(() => {
    for (const c of children) c.child.kill('SIGKILL');
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  return {
    children,
    tempDir: () => {
      const d = mkdtempSync(join(tmpdir(), `oddex-${prefix}-`));
      dirs.push(d);
      return d;
    },
    spawn: async (env: Record<string, string>) => {
      const child = await spawnExchange(env);
      children.push(child);
      return child.url;
    },
  };
}
