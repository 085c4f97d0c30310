// Browser tests: playwright-core driving Debian's chromium (installed by .ci/run), with every console error and
// uncaught page error collected so a test can fail on them, and screenshots saved under test-output/.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { WEB_BUILD_DIR } from '../../src/api/web-page.js';
import type { Config } from '../../src/config.js';
import { startTestExchange, type TestExchange } from './server.js';
import { fund } from './bets.js';

export const SCREENSHOT_DIR = join(import.meta.dirname, '..', '..', 'test-output');
export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1280, height: 900 };

/** Debian installs the real binary under /usr/lib/chromium; /usr/bin/chromium is a wrapper script. */
function chromiumPath(): string {
  const candidates = [process.env.ODDEX_CHROMIUM, '/usr/lib/chromium/chromium', '/usr/bin/chromium'].filter((p): p is string => !!p);
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error(`chromium not found (tried ${candidates.join(', ')}): apt-get install -y chromium`);
  return found;
}

const ROOT = join(import.meta.dirname, '..', '..');
/** What the page is built from: its own sources and the typed client it bundles. */
const PAGE_SOURCES = ['web', 'packages/sdk/src', 'src/protocol'].map((d) => join(ROOT, d));

function newestChange(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

const isFresh = (index: string) => existsSync(index) && statSync(index).mtimeMs >= Math.max(...PAGE_SOURCES.map(newestChange));

/**
 * Builds the page when this checkout has no build or one older than its sources (npm ci builds it through
 * `prepare`). Test files run in parallel processes: a lock directory lets one build while the others wait.
 */
export function ensureWebBuild(): void {
  const index = join(WEB_BUILD_DIR, 'index.html');
  const lock = join(ROOT, 'dist', '.web-build-lock');
  const deadline = Date.now() + 180_000;
  while (!isFresh(index)) {
    try {
      // The lock's parent may not exist yet in a checkout that never built; only the lock itself must be exclusive.
      mkdirSync(dirname(lock), { recursive: true });
      mkdirSync(lock, { recursive: false });
    } catch {
      if (Date.now() > deadline) throw new Error(`waited 180 s for another build of the page (remove ${lock} if stale)`);
      execFileSync('sleep', ['0.5']);
      continue;
    }
    try {
      if (!isFresh(index)) execFileSync('npm', ['run', 'build:web'], { stdio: 'ignore', cwd: ROOT });
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

export async function launchBrowser(): Promise<Browser> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'] });
}

export interface WatchedPage {
  page: Page;
  /** Console errors and uncaught exceptions seen so far. */
  errors: string[];
  /** A refusal the test provokes on purpose: chromium logs the failed request as a console error. */
  expectFailedRequest(path: string, status: number): void;
  screenshot(name: string): Promise<void>;
}

/** A fresh browser context (own storage: a new development wallet) with its errors collected. */
export async function openPage(browser: Browser, viewport = DESKTOP): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const errors: string[] = [];
  const expected: { path: string; status: number }[] = [];
  page.on('console', (msg) => {
    if (msg.type() !== 'error') return;
    const url = msg.location().url;
    const path = url ? new URL(url).pathname : '';
    const provoked = expected.findIndex((e) => e.path === path && msg.text().includes(`status of ${e.status} `));
    if (provoked >= 0) expected.splice(provoked, 1);
    else errors.push(`console: ${msg.text()} ${url}`);
  });
  page.on('pageerror', (err) => errors.push(`page error: ${err.message}`));
  return {
    page,
    errors,
    expectFailedRequest: (path, status) => expected.push({ path, status }),
    screenshot: async (name) => {
      await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
    },
  };
}

export interface BrowserSuite {
  /** The exchange the file's pages talk to (set once the file's setup ran). */
  readonly ex: TestExchange;
  /** A fresh page (a new development wallet) on the suite's browser. */
  open(viewport?: typeof DESKTOP): Promise<WatchedPage>;
  /** A fresh page on the account page, its development wallet (`wallet`) funded with `amount`. */
  openFunded(amount: bigint): Promise<WatchedPage & { wallet: `0x${string}` }>;
}

/**
 * One exchange and one browser for a test file: the page is built first (the server serves whatever build is there
 * when asked; one missing at start-up only earns a warning), and both are closed after the file.
 */
export function browserSuite(config: Partial<Config>): BrowserSuite {
  let ex: TestExchange | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    ensureWebBuild();
    ex = await startTestExchange(config);
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await ex?.destroy();
  });
  return {
    get ex() {
      return ex!;
    },
    open: (viewport) => openPage(browser!, viewport),
    async openFunded(amount) {
      const w = await openPage(browser!);
      await w.page.goto(`${ex!.url}/#/account`);
      const wallet = (await w.page.locator('[data-wallet-kind="development"]').getAttribute('data-wallet-address')) as `0x${string}`;
      await fund(ex!, { address: wallet } as never, amount);
      return { ...w, wallet };
    },
  };
}
