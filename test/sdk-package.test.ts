// @oddex/sdk as someone outside this repository gets it: `npm pack` of packages/sdk, installed into an empty
// project without TypeScript tooling, then a plain `node` script against the real server reads markets, posts an
// order signed with a private key, has it filled by a second wallet, cancels another order and follows the book
// over the realtime API. Also: the package holds only its build and installs only what a client needs.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestExchange, type TestExchange } from './helpers/server.js';
import { betTestConfig, createFixtureMarket, createSoccerLeague, fund } from './helpers/bets.js';
import { createApiKey } from './helpers/realtime.js';
import { signedOrder, USDC } from './helpers/wallets.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..');
const E18 = 10n ** 18n;

/** npm and node as a user would run them: none of the npm_* settings an `npm test` run passes down. */
const userEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
const sh = (file: string, args: string[], cwd: string) => run(file, args, { cwd, env: userEnv, timeout: 180_000, maxBuffer: 16 << 20 });

let ex: TestExchange;
let dir: string;
let project: string;

beforeAll(async () => {
  ex = await startTestExchange(betTestConfig());
  dir = mkdtempSync(join(tmpdir(), 'oddex-sdk-package-'));
  project = join(dir, 'consumer');
}, 60_000);

afterAll(async () => {
  await ex?.destroy();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the @oddex/sdk package', () => {
  it('packs its build only and installs into an empty project with just the client dependencies', async () => {
    const { stdout } = await sh('npm', ['pack', '--json', '--pack-destination', dir], join(ROOT, 'packages', 'sdk'));
    // prepack's build log comes first on stdout; the JSON report is the rest.
    const [report] = JSON.parse(stdout.slice(stdout.search(/^\[/m)));
    expect(report.files.map((f: { path: string }) => f.path).sort()).toEqual(['README.md', 'dist/index.d.ts', 'dist/index.js', 'package.json']);

    const wsVersion = JSON.parse(readFileSync(join(ROOT, 'node_modules', 'ws', 'package.json'), 'utf8')).version;
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    await sh('npm', ['install', join(dir, report.filename), `ws@${wsVersion}`, '--prefer-offline', '--no-audit', '--no-fund'], project);

    const installed = JSON.parse(readFileSync(join(project, 'node_modules', '@oddex', 'sdk', 'package.json'), 'utf8'));
    expect(Object.keys(installed.dependencies).sort()).toEqual(['@noble/curves', '@noble/hashes', 'centrifuge']);
    // The declarations stand alone too: the types derived from the server's wire schemas (TypeBox) are inlined, so
    // they import nothing but the package's dependencies.
    const declarations = readFileSync(join(project, 'node_modules', '@oddex', 'sdk', 'dist', 'index.d.ts'), 'utf8');
    const imported = [...declarations.matchAll(/\bfrom\s*['"]([^'"]+)['"]/g)].map((m) => m[1]!);
    expect(imported.filter((name) => !Object.keys(installed.dependencies).some((dep) => name === dep || name.startsWith(dep + '/')))).toEqual([]);
    const serverOnly = ['better-sqlite3', 'fastify', 'viem', 'secp256k1', 'hash-wasm', 'tsx', 'typescript'];
    expect(serverOnly.filter((name) => existsSync(join(project, 'node_modules', name)))).toEqual([]);

    // A browser bundle of the installed package (what a web app's bundler does) needs no Node built-in.
    writeFileSync(join(project, 'browser.mjs'), "export * from '@oddex/sdk';\n");
    const bundle = await build({ entryPoints: [join(project, 'browser.mjs')], absWorkingDir: project, bundle: true, platform: 'browser', format: 'esm', write: false, logLevel: 'silent' });
    expect(bundle.errors).toEqual([]);
    expect(bundle.outputFiles[0]!.text).not.toMatch(/from\s*["']node:/);
    // The build (prepack) inlines TypeBox's declarations into index.d.ts: with the install, more than the default
    // 30 s on a loaded machine.
  }, 120_000);

  it('trades from a plain node script: markets, a signed order, a fill, a cancel and the book over realtime', async () => {
    if (!existsSync(join(project, 'node_modules', '@oddex', 'sdk'))) throw new Error('the package is not installed: see the test above');
    const cat = await createSoccerLeague(ex);
    const { exchangeEventId, markets } = await createFixtureMarket(ex, cat, { type: 52 });
    const marketHash = markets[0]!.marketHash;
    const makerKey = generatePrivateKey();
    const takerKey = generatePrivateKey();
    const maker = privateKeyToAccount(makerKey);
    await fund(ex, maker, 100n * USDC);
    await fund(ex, privateKeyToAccount(takerKey), 100n * USDC);
    const order = { marketHash, isMakerBettingOutcomeOne: true, totalBetSize: 20n * USDC, percentageOdds: 55n * E18, expiry: Math.floor(Date.now() / 1000) + 3600, salt: 0x5eedn };
    // The same order signed by viem: the package's hash and signature must be these.
    const expected = await signedOrder(maker, ex.ctx.config, order);

    const input = {
      url: ex.url,
      eventId: exchangeEventId,
      makerKey,
      takerKey,
      makerApiKey: await createApiKey(ex, maker.address),
      order: { ...order, totalBetSize: String(order.totalBetSize), percentageOdds: String(order.percentageOdds), salt: String(order.salt) },
    };
    writeFileSync(join(project, 'trade.mjs'), CONSUMER_SCRIPT);
    const { stdout } = await run(process.execPath, ['trade.mjs', JSON.stringify(input)], { cwd: project, env: userEnv, timeout: 60_000 });
    const out = JSON.parse(stdout);

    const other = out.posted.orders[1].orderHash;
    expect(out).toEqual({
      markets: [marketHash],
      signed: { orderHash: expected.hash, signature: expected.body.signature, maker: maker.address },
      posted: { orders: [{ orderHash: expected.hash, status: 'OK' }, { orderHash: other, status: 'OK' }], inserted: 2 },
      bookAfterPosting: [expected.hash, other].sort(),
      // Taker odds are the complement, 45%: a 9 USDC stake takes 9 * 55 / 45 = 11 USDC of the maker's order.
      fill: { isPartialFill: false, totalFilled: String(9n * USDC), averageOdds: String(45n * E18) },
      betterOddsRefused: { name: 'OddexApiError', isOddexApiError: true, status: 400, errorCode: 'INVALID_ODDS_SLIPPAGE' },
      cancel: { cancelledCount: 1, orders: [{ orderHash: other, pendingFills: [] }], notCancelled: [] },
      bookAtEnd: [{ orderHash: expected.hash, orderStatus: 'ACTIVE', filled: String(11n * USDC) }],
      statuses: { [expected.hash]: 'ACTIVE', [other]: 'CANCELLED' },
    });
  });
});

/** What a user of the package writes: plain ESM JavaScript, `ws` as the WebSocket on Node 20. */
const CONSUMER_SCRIPT = `
import WebSocket from 'ws';
import { OddexApiError, OddexClient, takerOddsOf } from '@oddex/sdk';

const input = JSON.parse(process.argv[2]);
const maker = new OddexClient({ url: input.url, signer: input.makerKey, apiKey: input.makerApiKey, WebSocket });
const taker = new OddexClient({ url: input.url, signer: input.takerKey });

// What the book saw, printed if a wait times out.
const seen = [];
const show = (o) => ({ orderHash: o.orderHash, orderStatus: o.orderStatus, fillAmount: String(o.fillAmount), pendingFillAmount: String(o.pendingFillAmount), updatedAt: o.updatedAt });
async function until(done) {
  for (const end = Date.now() + 10_000; !done(); await new Promise((r) => setTimeout(r, 20))) {
    if (Date.now() > end) throw new Error('timed out: ' + done + ' ' + JSON.stringify({ book: book.orders().map(show), seen }));
  }
}

const { markets } = await maker.activeMarkets({ eventId: input.eventId });
const marketHash = markets[0].marketHash;
const book = await maker.watchOrderBook(marketHash);
book.on('update', (changed) => seen.push({ at: new Date().toISOString(), update: changed.map(show) }));
book.on('rebuilt', (info) => seen.push({ at: new Date().toISOString(), rebuilt: info }));
book.on('error', (err) => seen.push({ at: new Date().toISOString(), error: String(err) }));

const o = input.order;
const signed = await maker.signOrder({ ...o, totalBetSize: BigInt(o.totalBetSize), percentageOdds: BigInt(o.percentageOdds), salt: BigInt(o.salt) });
const posted = await maker.postOrders([
  signed.order,
  { marketHash, isMakerBettingOutcomeOne: false, totalBetSize: 10_000_000n, percentageOdds: 40n * 10n ** 18n },
]);
await until(() => book.orders().length === 2);
const bookAfterPosting = book.orders().map((b) => b.orderHash).sort();

const fill = await taker.fill({ marketHash, isTakerBettingOutcomeOne: false, stakeWei: 9_000_000n, desiredOdds: takerOddsOf(BigInt(o.percentageOdds)) });
let betterOddsRefused;
try {
  await taker.fill({ marketHash, isTakerBettingOutcomeOne: false, stakeWei: 1_000_000n, desiredOdds: 50n * 10n ** 18n });
} catch (err) {
  betterOddsRefused = { name: err.name, isOddexApiError: err instanceof OddexApiError, status: err.status, errorCode: err.errorCode };
}
const other = posted.orders[1].orderHash;
const cancel = await maker.cancelOrders([other]);

// The book follows the fill and the cancel over the realtime connection.
const filledOf = (b) => b.fillAmount + b.pendingFillAmount;
await until(() => book.orders().length === 1 && filledOf(book.orders()[0]) === 11_000_000n);
const bookAtEnd = book.orders().map((b) => ({ orderHash: b.orderHash, orderStatus: b.orderStatus, filled: String(filledOf(b)) }));
const rest = await maker.orders({ orderHashes: posted.orders.map((p) => p.orderHash) });
maker.close();

console.log(JSON.stringify({
  markets: markets.map((m) => m.marketHash),
  signed: { orderHash: signed.orderHash, signature: signed.order.signature, maker: maker.address },
  posted,
  bookAfterPosting,
  fill: { isPartialFill: fill.isPartialFill, totalFilled: String(fill.totalFilled), averageOdds: String(fill.averageOdds) },
  betterOddsRefused,
  cancel: { ...cancel, orders: cancel.orders.map((c) => ({ orderHash: c.orderHash, pendingFills: c.pendingFills.map((p) => ({ ...p, pendingFillAmount: String(p.pendingFillAmount) })) })) },
  bookAtEnd,
  statuses: Object.fromEntries(rest.map((r) => [r.orderHash, r.orderStatus])),
}));
`;
