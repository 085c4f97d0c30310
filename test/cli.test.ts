// The `oddex` command line as a child process against the real server: every command, exit codes, --json output,
// and the wallet key never printed.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startTestExchange, TEST_ADMIN_TOKEN, type TestExchange } from './helpers/server.js';
import { betTestConfig, createFixtureMarket, createSoccerLeague, postOrder, waitFor } from './helpers/bets.js';
import { USDC } from './helpers/wallets.js';

// Each command is a fresh Node process (about a second of start-up, more on a loaded machine).
vi.setConfig({ testTimeout: 180_000 });

const BIN = join(import.meta.dirname, '..', 'bin', 'oddex.js');
const E18 = 10n ** 18n;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

let ex: TestExchange;
let dir: string;
let market: string;
let eventId: string;
let leagueId: number;
let catalogue: Awaited<ReturnType<typeof createSoccerLeague>>;
const makerKey = generatePrivateKey();
const maker = privateKeyToAccount(makerKey);
const takerKey = generatePrivateKey();
const taker = privateKeyToAccount(takerKey);
const secrets = [makerKey, takerKey, makerKey.slice(2), takerKey.slice(2)];

function oddex(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: { PATH: process.env.PATH ?? '', ODDEX_URL: ex.url, ODDEX_ADMIN_TOKEN: TEST_ADMIN_TOKEN, ...env }, cwd: dir, timeout: 30_000 },
      (err, stdout, stderr) => {
        for (const s of secrets) expect(stdout + stderr).not.toContain(s);
        let json: unknown;
        try {
          json = JSON.parse(stdout);
        } catch {
          json = undefined;
        }
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr, json });
      },
    );
  });
}
const asMaker = (args: string[], env: Record<string, string> = {}) => oddex(['--json', ...args], { ODDEX_PRIVATE_KEY: makerKey, ...env });
const asTaker = (args: string[]) => oddex(['--json', ...args], { ODDEX_PRIVATE_KEY: takerKey });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'oddex-cli-'));
  ex = await startTestExchange(betTestConfig());
  catalogue = await createSoccerLeague(ex);
  leagueId = catalogue.leagueId;
  const f = await createFixtureMarket(ex, catalogue, { type: 52 });
  market = f.markets[0]!.marketHash;
  eventId = f.exchangeEventId;
});

afterAll(async () => {
  await ex?.destroy();
  rmSync(dir, { recursive: true, force: true });
});

describe('oddex basics', () => {
  it('prints help (exit 0), rejects bad usage (exit 2) and reports an unreachable exchange (exit 3)', async () => {
    const help = await oddex(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: oddex');
    for (const name of ['faucet', 'api-keys', 'keys', 'fixtures', 'markets', 'report', 'account', 'demo-funds', 'search', 'book', 'best', 'post', 'fill', 'cancel', 'orders', 'trades', 'positions', 'watch']) {
      expect(help.stdout).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
    }
    // migrate runs the server side's own entry point, outside the command list: the help names it all the same.
    expect(help.stdout).toMatch(/^oddex migrate: /m);
    expect((await oddex(['no-such-command'])).code).toBe(2);
    const noKey = await oddex(['--json', 'orders']);
    expect([noKey.code, noKey.json.errorCode]).toEqual([2, 'USAGE']);
    const badAmount = await oddex(['--json', 'faucet', maker.address, '-5']);
    expect([badAmount.code, badAmount.json.errorCode]).toEqual([2, 'USAGE']);
    const down = await oddex(['--json', 'markets', 'list'], { ODDEX_URL: 'http://127.0.0.1:1' });
    expect([down.code, down.json.errorCode]).toEqual([3, 'UNREACHABLE']);
  });

  it('ends quietly (exit 0, nothing on stderr) when the reader of its output closes the pipe first', async () => {
    const child = spawn(process.execPath, [BIN, '--help'], { env: { PATH: process.env.PATH ?? '' }, cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    // Closed before the command writes: its first write meets a closed pipe, as under `oddex ... | head -1`.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect([code, stderr]).toEqual([0, '']);
  });

  it('never runs a bundle of the CLI made of files that have changed since (bin/oddex.js keeps one in node_modules/.cache)', async () => {
    const cache = join(import.meta.dirname, '..', 'node_modules', '.cache', 'oddex', 'cli.mjs');
    const main = join(import.meta.dirname, '..', 'src', 'cli', 'main.ts');
    expect((await oddex(['--help'])).code).toBe(0);
    const fresh = readFileSync(cache, 'utf8');
    // Its first line lists the files it was made of, each with its size and modification time.
    const listed = JSON.parse(fresh.slice(fresh.indexOf('['), fresh.indexOf('\n')));
    expect(listed).toContainEqual([main, statSync(main).size, statSync(main).mtimeMs]);
    // A bundle made when main.ts was another file: not run, made again.
    writeFileSync(cache, `// oddex CLI bundle of ${JSON.stringify([[main, 1, 1]])}\nconsole.log('stale bundle');\n`);
    const help = await oddex(['--help']);
    expect([help.code, help.stdout]).toEqual([0, expect.stringContaining('Usage: oddex')]);
    expect(help.stdout).not.toContain('stale bundle');
    expect(readFileSync(cache, 'utf8')).toBe(fresh);
  });

  it('creates a wallet key file readable only by its owner and uses it', async () => {
    const file = join(dir, 'w.key');
    const r = await oddex(['--json', 'wallet', file]);
    expect(r.code).toBe(0);
    const key = readFileSync(file, 'utf8').trim();
    secrets.push(key, key.slice(2));
    expect(r.json.address).toBe(privateKeyToAccount(key as `0x${string}`).address);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const addr = await oddex(['--json', 'address'], { ODDEX_KEY_FILE: file });
    expect(addr.json).toEqual({ address: r.json.address });
    const flag = await oddex(['--json', '--key-file', file, 'address']);
    expect(flag.json).toEqual({ address: r.json.address });
    // Never overwrites a key, and says why.
    const again = await oddex(['wallet', file]);
    expect([again.code, again.stderr.trim()]).toEqual([2, `error: USAGE: ${file} already exists: a wallet file is never overwritten`]);
  });
});

describe('operator commands', () => {
  it('faucet, api-keys create and revoke, account view and lift-restriction', async () => {
    const f = await oddex(['--json', 'faucet', maker.address, '500']);
    expect(f.code).toBe(0);
    expect(f.json).toMatchObject({ address: maker.address, balance: (500n * USDC).toString(), escrowed: '0' });
    expect((await oddex(['faucet', taker.address, '100.5'])).stdout).toContain('100.5');

    const key = await oddex(['--json', 'api-keys', 'create', maker.address]);
    expect(key.json).toMatchObject({ address: maker.address, apiKey: expect.any(String), id: expect.any(String) });
    const token = await ex.get('/user/realtime-token/api-key', { 'x-api-key': key.json.apiKey });
    expect(token.status).toBe(200);
    const revoked = await oddex(['--json', 'api-keys', 'revoke', key.json.id]);
    expect(revoked.json).toEqual({ id: key.json.id, revoked: true });
    expect((await ex.get('/user/realtime-token/api-key', { 'x-api-key': key.json.apiKey })).status).toBe(401);
    const again = await oddex(['--json', 'api-keys', 'revoke', key.json.id]);
    expect([again.code, again.json.errorCode, again.json.httpStatus]).toEqual([1, 'API_KEY_NOT_FOUND', 404]);

    const account = await oddex(['--json', 'account', 'view', maker.address]);
    expect(account.json).toMatchObject({ address: maker.address, balance: (500n * USDC).toString(), openOrders: 0, restricted: false });
    const lifted = await oddex(['--json', 'account', 'lift-restriction', maker.address]);
    expect(lifted.json).toMatchObject({ address: maker.address, restricted: false });

    const noToken = await oddex(['--json', 'faucet', maker.address, '1'], { ODDEX_ADMIN_TOKEN: 'wrong' });
    expect([noToken.code, noToken.json.httpStatus]).toEqual([1, 401]);
  });

  it('fixtures and markets: create and list', async () => {
    const teams = (await ex.get('/teams')).body.data as { id: number }[];
    const gameTime = Math.floor(Date.now() / 1000) + 7200;
    const fx = await oddex(['--json', 'fixtures', 'create', '--league', String(leagueId), '--team-one', String(teams[0]!.id), '--team-two', String(teams[1]!.id), '--game-time', String(gameTime)]);
    expect(fx.code).toBe(0);
    expect(fx.json).toMatchObject({ leagueId, startDate: new Date(gameTime * 1000).toISOString() });
    const list = await oddex(['--json', 'fixtures', 'list', '--league', String(leagueId)]);
    expect(list.json.map((x: { eventId: string }) => x.eventId)).toEqual([eventId, fx.json.eventId]);

    const created = await oddex(['--json', 'markets', 'create', '--event', fx.json.eventId, '--type', '2', '--line', '2.5']);
    expect(created.json).toHaveLength(1);
    expect(created.json[0]).toMatchObject({ type: 2, line: 2.5, exchangeEventId: fx.json.eventId, status: 'ACTIVE' });
    const markets = await oddex(['--json', 'markets', 'list', '--event', fx.json.eventId]);
    expect(markets.json.map((m: { marketHash: string }) => m.marketHash)).toEqual([created.json[0].marketHash]);
    const human = await oddex(['markets', 'list']);
    expect(human.stdout).toMatch(/^marketHash\s+type/);
    expect(human.stdout).toContain(market);
  });
});

describe('trader commands', () => {
  it('search, post, book, best, orders, fill, trades, positions, cancel, report and settle', async () => {
    await ex.admin('POST', '/admin/faucet', { address: maker.address, amount: (500n * USDC).toString() });
    await ex.admin('POST', '/admin/faucet', { address: taker.address, amount: (100n * USDC).toString() });
    const takerStart = BigInt((await ex.get(`/balances/${taker.address}`)).body.data.balance);
    const search = await oddex(['--json', 'search', 'alpha']);
    expect(search.json.map((h: { eventId: string }) => h.eventId)).toContain(eventId);

    const post = await asMaker(['post', '--market', market, '--outcome', 'one', '--odds', '55', '--size', '55']);
    expect(post.code).toBe(0);
    expect(post.json.inserted).toBe(1);
    const orderHash = post.json.orders[0].orderHash;
    // 40.06% is rounded to the nearest step of the 0.125% ladder: 40%.
    const second = await asMaker(['post', '--market', market, '--outcome', 'two', '--odds', '40.06', '--size', '20']);
    expect(second.json.orders[0].status).toBe('OK');
    const orders = await asMaker(['orders']);
    expect(orders.json.map((o: { orderHash: string; percentageOdds: string }) => [o.orderHash, o.percentageOdds])).toEqual([
      [orderHash, (55n * E18).toString()],
      [second.json.orders[0].orderHash, (40n * E18).toString()],
    ]);

    const book = await oddex(['--json', 'book', market]);
    // Backing outcome two takes the maker on one: 45% for up to 55 * 45 / 55 = 45 USDC.
    expect(book.json).toEqual({
      marketHash: market,
      outcomeOne: [{ takerOdds: (60n * E18).toString(), availableStake: (30n * USDC).toString() }],
      outcomeTwo: [{ takerOdds: (45n * E18).toString(), availableStake: (45n * USDC).toString() }],
    });
    const humanBook = await oddex(['book', market]);
    expect(humanBook.stdout).toContain('45%');
    const unknown = '0x' + 'ab'.repeat(32);
    const noMarket = await oddex(['book', unknown]);
    expect([noMarket.code, noMarket.stderr.trim()]).toEqual([2, `error: USAGE: no market ${unknown} on this exchange`]);
    // The maker's own order is all that side holds: a fill at "the best available" odds has nothing it can take.
    const ownOnly = await asMaker(['fill', '--market', market, '--outcome', 'two', '--stake', '1']);
    expect([ownOnly.code, ownOnly.json.message]).toEqual([2, "no other wallet's orders to fill on that side; give --odds to try anyway"]);
    const best = await oddex(['--json', 'best', market]);
    expect(best.json).toEqual([
      expect.objectContaining({ marketHash: market, outcomeOne: expect.objectContaining({ percentageOdds: (55n * E18).toString() }), outcomeTwo: expect.objectContaining({ percentageOdds: (40n * E18).toString() }) }),
    ]);

    const fill = await asTaker(['fill', '--market', market, '--outcome', 'two', '--stake', '9']);
    expect(fill.code).toBe(0);
    expect(fill.json).toMatchObject({ totalFilled: (9n * USDC).toString(), averageOdds: (45n * E18).toString(), isPartialFill: false });
    const refused = await asTaker(['fill', '--market', market, '--outcome', 'two', '--stake', '1', '--odds', '50']);
    expect(refused.code).toBe(1);
    expect(refused.json.errorCode).toMatch(/ODDS|SLIPPAGE|SPACE/);

    const trades = await waitFor(
      () => asTaker(['trades']),
      (r) => r.json?.length === 1 && r.json[0].tradeStatus === 'SUCCESS',
    );
    expect(trades.json[0]).toMatchObject({ stake: (9n * USDC).toString(), odds: (45n * E18).toString(), maker: false, bettingOutcomeOne: false });
    const positions = await asTaker(['positions']);
    // 9 at 45%: pays 20 if outcome two wins (+11), loses 9 otherwise. As GET /positions answers it.
    expect(positions.json).toEqual([
      {
        marketHash: market, exchangeEventId: eventId, baseToken: expect.any(String), lastTradeTime: expect.any(String),
        stakeOutcomeOne: '0', stakeOutcomeTwo: (9n * USDC).toString(), pendingStake: '0',
        payoutIfOutcomeOne: '0', payoutIfOutcomeTwo: (20n * USDC).toString(), payoutIfVoid: (9n * USDC).toString(),
        escrow: (9n * USDC).toString(), refunds: '0', cashedOut: '0', cashOutFees: '0', settled: false,
      },
    ]);
    expect((await oddex(['positions'], { ODDEX_PRIVATE_KEY: takerKey })).stdout).toMatch(/ifTwoWins[\s\S]*11/);

    // Cash out: the hedge backs outcome one against the maker on two (60% for the taker): 12 returns the 20 the
    // position is owed on two, so it is worth 20 - 12 = 8 whichever outcome wins.
    const cashout = await asTaker(['cashout', market]);
    expect(cashout.json).toEqual({
      marketHash: market,
      isTakerBettingOutcomeOne: true,
      stakeWei: (12n * USDC).toString(),
      desiredOdds: (60n * E18).toString(),
      amount: (8n * USDC).toString(),
      fee: '0',
      // Taken as a cash out: owed 20 on either outcome, 21 staked on a void, so all 20 at once.
      paidNow: (20n * USDC).toString(),
    });
    expect((await oddex(['cashout', market, '--bettor', taker.address])).stdout).toMatch(/back one with 12 at 60% or better[\s\S]*worth\s+8/);

    const byHash = await asMaker(['cancel', second.json.orders[0].orderHash]);
    expect(byHash.json).toMatchObject({ cancelledCount: 1, notCancelled: [] });
    const third = await asMaker(['post', '--market', market, '--outcome', 'two', '--odds', '40', '--size', '10']);
    const byEvent = await asMaker(['cancel', '--event', eventId]);
    expect(byEvent.json.cancelledCount).toBe(2);
    expect(byEvent.json.orders.map((o: { orderHash: string }) => o.orderHash).sort()).toEqual([orderHash, third.json.orders[0].orderHash].sort());
    await asMaker(['post', '--market', market, '--outcome', 'two', '--odds', '40', '--size', '10']);
    const all = await asMaker(['cancel', '--all']);
    expect(all.json.cancelledCount).toBe(1);
    expect((await asMaker(['cancel'])).code).toBe(2);

    const report = await oddex(['--json', 'report', 'market', market, '2']);
    expect(report.code).toBe(0);
    expect(report.json[0]).toMatchObject({ marketHash: market, outcome: 2 });
    const settled = await waitFor(
      () => asTaker(['positions']),
      (r) => r.json?.[0]?.settledProfit === (11n * USDC).toString(),
    );
    expect(settled.json[0]).toMatchObject({ settled: true, outcome: 2, payout: (20n * USDC).toString(), settledProfit: (11n * USDC).toString(), escrow: '0' });
    const balance = await asTaker(['balance']);
    // Staked 9, paid 20.
    expect(balance.json).toMatchObject({ address: taker.address, balance: (takerStart + 11n * USDC).toString() });
    // The statement ends with this test's faucet deposit, the stake and the payout, each with the balance after it.
    const statement = await asTaker(['statement']);
    expect(statement.json.map((e: { kind: string; amount: string; balance: string }) => [e.kind, e.amount, e.balance]).slice(-3)).toEqual([
      ['deposit', (100n * USDC).toString(), takerStart.toString()],
      ['stake', (-9n * USDC).toString(), (takerStart - 9n * USDC).toString()],
      ['payout', (20n * USDC).toString(), (takerStart + 11n * USDC).toString()],
    ]);
  });

  /** A new market where the taker backs outcome one with 30 against the maker's 20 (owed 50 if it wins), and a funded hedger. */
  async function takerPosition() {
    const m = (await createFixtureMarket(ex, catalogue, { type: 52 })).markets[0]!.marketHash;
    const hedger = privateKeyToAccount(generatePrivateKey());
    for (const a of [maker.address, taker.address, hedger.address]) await ex.admin('POST', '/admin/faucet', { address: a, amount: (100n * USDC).toString() });
    const start = BigInt((await ex.get(`/balances/${taker.address}`)).body.data.balance);
    await asMaker(['post', '--market', m, '--outcome', 'two', '--odds', '40', '--size', '20']);
    expect((await asTaker(['fill', '--market', m, '--outcome', 'one', '--stake', '30', '--odds', '60'])).code).toBe(0);
    return { m, hedger, start };
  }

  it('cashout --take cashes out the wallet\'s position, in part (--stake) then the rest', async () => {
    // The hedger offers one at 80%.
    const { m, hedger, start } = await takerPosition();
    await postOrder(ex, hedger, { marketHash: m, totalBetSize: 100n * USDC, percentageOdds: 80n * E18, isMakerBettingOutcomeOne: true });
    await waitFor(() => asTaker(['cashout', m]), (r) => r.code === 0);
    expect((await asTaker(['cashout', m, '--stake', '5'])).code).toBe(2);
    // Half the hedge (5 of 10 at 20%): owed 25 on outcome two, 35 staked: 25 at once (no cash-out fee configured).
    const half = await asTaker(['cashout', m, '--take', '--stake', '5']);
    expect([half.code, half.json.totalFilled, half.json.quote.stakeWei]).toEqual([0, (5n * USDC).toString(), (10n * USDC).toString()]);
    const balance = () => ex.get(`/balances/${taker.address}`).then((r) => BigInt(r.body.data.balance));
    await waitFor(balance, (b) => b === start - 30n * USDC - 5n * USDC + 25n * USDC);
    // The rest: owed 50 on either outcome, 40 staked: 15 more at once, so the taker is back where it started.
    const rest = await oddex(['cashout', m, '--take'], { ODDEX_PRIVATE_KEY: takerKey });
    expect([rest.code, rest.stdout]).toEqual([0, expect.stringMatching(/hedged\s+5 of 5 on two[\s\S]*paidOnConfirm\s+15/)]);
    await waitFor(balance, (b) => b === start);
  });

  it('cashout --partial quotes and cashes out the part of the hedge the book covers; the rest stays a position', async () => {
    // Owed 50 if outcome one wins; the hedger's 20 on one at 80% (5 at 20% returning 25) covers half the hedge.
    const { m, hedger, start } = await takerPosition();
    await waitFor(() => asTaker(['cashout', m]), (r) => r.json?.errorCode === 'INSUFFICIENT_SPACE');
    await postOrder(ex, hedger, { marketHash: m, totalBetSize: 20n * USDC, percentageOdds: 80n * E18, isMakerBettingOutcomeOne: true });
    const whole = await asTaker(['cashout', m]);
    expect([whole.code, whole.json.errorCode]).toEqual([1, 'INSUFFICIENT_SPACE']);
    // Owed 25 on two, 35 staked: worth 20, all 25 at once; 25 of the return left uncovered.
    const part = await asTaker(['cashout', m, '--partial']);
    expect(part.json).toEqual({
      marketHash: m,
      isTakerBettingOutcomeOne: false,
      stakeWei: (5n * USDC).toString(),
      desiredOdds: (20n * E18).toString(),
      amount: (20n * USDC).toString(),
      fee: '0',
      paidNow: (25n * USDC).toString(),
      partial: true,
      uncoveredWei: (25n * USDC).toString(),
    });
    expect((await oddex(['cashout', m, '--partial'], { ODDEX_PRIVATE_KEY: takerKey })).stdout).toMatch(
      /back two with 5 at 20% or better \(the part the book covers\)[\s\S]*uncovered\s+25 of the hedge's return/,
    );
    const taken = await oddex(['cashout', m, '--take', '--partial'], { ODDEX_PRIVATE_KEY: takerKey });
    expect([taken.code, taken.stdout]).toEqual([0, expect.stringMatching(/hedged\s+5 of 5 on two[\s\S]*paidOnConfirm\s+25[\s\S]*uncovered\s+25/)]);
    const balance = () => ex.get(`/balances/${taker.address}`).then((r) => BigInt(r.body.data.balance));
    await waitFor(balance, (b) => b === start - 30n * USDC - 5n * USDC + 25n * USDC);
    // The rest is still a position, with nothing on the book to hedge it.
    const after = await waitFor(() => asTaker(['cashout', m, '--partial']), (r) => r.json?.errorCode === 'INSUFFICIENT_SPACE');
    expect([after.code, after.json.errorCode]).toEqual([1, 'INSUFFICIENT_SPACE']);
    expect((await oddex(['cashout', '--help'])).stdout).toMatch(/--partial\s+when the book covers only part of the hedge/);
  });

  it('watch prints a channel\'s publications and stops after --count', async () => {
    // The wallet's own key: no operator involved.
    const key = (await asMaker(['keys', 'create'], { ODDEX_ADMIN_TOKEN: '' })).json.apiKey as string;
    const fresh = (await createFixtureMarket(ex, catalogue, { type: 52 })).markets[0]!.marketHash;
    const watching = oddex(['--json', 'watch', `order_book:market_${fresh}`, '--count', '1', '--timeout', '20'], { ODDEX_API_KEY: key });
    // Post once the watcher is subscribed (its stderr says so), retrying until the publication is seen.
    let result: Run | undefined;
    void watching.then((r) => (result = r));
    const deadline = Date.now() + 20_000;
    while (!result && Date.now() < deadline) {
      await asMaker(['post', '--market', fresh, '--outcome', 'one', '--odds', '50', '--size', '10']);
      await new Promise((r) => setTimeout(r, 1000));
    }
    const r = await watching;
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`subscribed to order_book:market_${fresh}`);
    const line = JSON.parse(r.stdout.trim().split('\n')[0]!);
    expect(line.offset).toBeGreaterThanOrEqual(1);
    expect(line.data[0]).toMatchObject({ marketHash: fresh, maker: maker.address, percentageOdds: (50n * E18).toString() });
    await asMaker(['cancel', '--all']);
  });

  it('watch fails at once, in words, without an API key, with a bad one, or on a channel the exchange refuses', async () => {
    const none = await oddex(['watch', 'best_odds:global', '--timeout', '20']);
    expect([none.code, none.stderr.trim()]).toEqual([2, 'error: USAGE: watch needs an API key: set ODDEX_API_KEY (create one with `oddex keys create`)']);
    const bad = await oddex(['watch', 'best_odds:global', '--timeout', '20'], { ODDEX_API_KEY: 'not-a-key' });
    // The code once, then the exchange's words.
    expect([bad.code, bad.stderr.trim()]).toEqual([1, expect.stringMatching(/^error: INVALID_API_KEY: [a-z]/)]);
    const key = (await asMaker(['keys', 'create'], { ODDEX_ADMIN_TOKEN: '' })).json.apiKey as string;
    const started = Date.now();
    const refused = await oddex(['watch', 'nosuch:channel', '--timeout', '20'], { ODDEX_API_KEY: key });
    expect([refused.code, refused.stderr.trim()]).toEqual([2, expect.stringMatching(/^error: USAGE: nosuch:channel: refused by the exchange \(.+, code 102\)$/)]);
    // At once: not when --timeout runs out.
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});

describe('oddex parlay', () => {
  it('request prints the parlay market, offers waits out the quote window and lists them, fill takes the best', async () => {
    const bettorKey = generatePrivateKey();
    secrets.push(bettorKey, bettorKey.slice(2));
    const bettor = privateKeyToAccount(bettorKey);
    await ex.admin('POST', '/admin/faucet', { address: bettor.address, amount: (50n * USDC).toString() });
    await ex.admin('POST', '/admin/faucet', { address: maker.address, amount: (100n * USDC).toString() });
    const asBettor = (args: string[]) => oddex(['--json', 'parlay', ...args], { ODDEX_PRIVATE_KEY: bettorKey });
    const [a, b] = [(await createFixtureMarket(ex, catalogue, { type: 52 })).markets[0]!.marketHash, (await createFixtureMarket(ex, catalogue, { type: 52 })).markets[0]!.marketHash];

    const refused = await asBettor(['request', `${a}:one`, '--stake', '10']);
    expect([refused.code, refused.json?.errorCode]).toEqual([1, 'PARLAY_LEG_COUNT']);
    const bad = await asBettor(['request', `${a}:three`, `${b}:two`, '--stake', '10']);
    expect(bad.code).toBe(2);

    const requested = await asBettor(['request', `${a}:one`, `${b}:two`, '--stake', '10']);
    expect(requested.code).toBe(0);
    const parlay = requested.json.marketHash as string;
    expect(requested.json).toMatchObject({ type: 999, legs: [{ marketHash: a, bettingOutcomeOne: true }, { marketHash: b, bettingOutcomeOne: false }], parlay: { bettor: bettor.address, requestSize: '10000000' } });
    // A maker quotes within the window: outcome two at 75%, 60 of stake, so 20 for the bettor at 25%.
    await postOrder(ex, maker, { marketHash: parlay, totalBetSize: 60n * USDC, percentageOdds: 75n * E18, isMakerBettingOutcomeOne: false });

    const offers = await asBettor(['offers', parlay]);
    expect(offers.code).toBe(0);
    expect(Date.now()).toBeGreaterThanOrEqual(requested.json.parlay.quoteWindowEndsAt);
    expect(offers.json.offers.map((o: { odds: string; available: string }) => [o.odds, o.available])).toEqual([[(25n * E18).toString(), (20n * USDC).toString()]]);

    const fill = await asBettor(['fill', parlay, '--stake', '10']);
    expect(fill.code).toBe(0);
    expect(fill.json).toMatchObject({ totalFilled: (10n * USDC).toString(), averageOdds: (25n * E18).toString() });
  });
});

describe('wallet API keys', () => {
  it('keys create, list and revoke sign with the wallet key, without the admin token', async () => {
    const walletKey = generatePrivateKey();
    secrets.push(walletKey, walletKey.slice(2));
    const wallet = privateKeyToAccount(walletKey);
    const asWallet = (args: string[]) => oddex(args, { ODDEX_ADMIN_TOKEN: '', ODDEX_PRIVATE_KEY: walletKey });

    const created = await asWallet(['--json', 'keys', 'create']);
    expect(created.code).toBe(0);
    expect(created.json).toEqual({ id: expect.any(String), apiKey: expect.any(String), address: wallet.address });
    expect((await ex.get('/user/realtime-token/api-key', { 'x-api-key': created.json.apiKey })).status).toBe(200);
    const human = await asWallet(['keys', 'create']);
    expect(human.stdout).toContain('use it as ODDEX_API_KEY');

    const listed = await asWallet(['--json', 'keys', 'list']);
    expect(listed.json.map((k: { id: string }) => k.id)).toEqual([created.json.id, expect.any(String)]);
    expect(listed.json[0]).toEqual({ id: created.json.id, createdAt: expect.any(String) });
    expect((await asWallet(['keys', 'list'])).stdout).toContain(created.json.id);

    const revoked = await asWallet(['--json', 'keys', 'revoke', created.json.id]);
    expect(revoked.json).toEqual({ id: created.json.id, revoked: true });
    expect((await ex.get('/user/realtime-token/api-key', { 'x-api-key': created.json.apiKey })).status).toBe(401);
    const again = await asWallet(['--json', 'keys', 'revoke', created.json.id]);
    expect([again.code, again.json.errorCode, again.json.httpStatus]).toEqual([1, 'API_KEY_NOT_FOUND', 404]);
    expect((await asWallet(['--json', 'keys', 'list'])).json.map((k: { id: string }) => k.id)).not.toContain(created.json.id);

    const noKey = await oddex(['--json', 'keys', 'list']);
    expect([noKey.code, noKey.json.errorCode]).toEqual([2, 'USAGE']);
  });
});

describe('demo funds', () => {
  it('a new wallet funds itself with demo-funds, no admin token needed; outside demo mode the refusal says why', async () => {
    const demo = await startTestExchange({ demo: true });
    try {
      const file = join(dir, 'demo.key');
      expect((await oddex(['wallet', file])).code).toBe(0);
      const key = readFileSync(file, 'utf8').trim();
      secrets.push(key, key.slice(2));
      const address = privateKeyToAccount(key as `0x${string}`).address;
      const noToken = { ODDEX_URL: demo.url, ODDEX_ADMIN_TOKEN: '', ODDEX_KEY_FILE: file };
      const r = await oddex(['--json', 'demo-funds'], noToken);
      expect(r.code).toBe(0);
      expect(r.json).toMatchObject({ address, balance: (100n * USDC).toString(), escrowed: '0' });
      expect((await demo.get(`/balances/${address}`)).body.data.balance).toBe('100000000');
      const human = await oddex(['demo-funds'], noToken);
      expect(human.stdout).toBe(`${address} now holds 200 (escrowed 0)\n`);
    } finally {
      await demo.destroy();
    }

    // The suite's exchange is not in demo mode.
    const off = await oddex(['--json', 'demo-funds', taker.address]);
    expect([off.code, off.json.errorCode, off.json.httpStatus]).toEqual([1, 'DEMO_MODE_OFF', 403]);
  });
});

it('reads the admin token from ./data/admin-token when no variable is set', async () => {
  const cwdToken = join(dir, 'data');
  rmSync(cwdToken, { recursive: true, force: true });
  const { mkdirSync } = await import('node:fs');
  mkdirSync(cwdToken);
  writeFileSync(join(cwdToken, 'admin-token'), TEST_ADMIN_TOKEN + '\n');
  const r = await new Promise<Run>((resolve) =>
    execFile(process.execPath, [BIN, '--json', 'account', 'view', maker.address], { cwd: dir, env: { PATH: process.env.PATH ?? '', ODDEX_URL: ex.url } }, (err, stdout, stderr) =>
      resolve({ code: err ? 1 : 0, stdout, stderr, json: stdout ? JSON.parse(stdout) : undefined }),
    ),
  );
  expect(r.code).toBe(0);
  expect(r.json.address).toBe(maker.address);
});

it('reads the admin token from the data dir ODDEX_DATA_DIR names, and says which file it looked for', async () => {
  const elsewhere = join(dir, 'exchange-data');
  const run = (env: Record<string, string>) =>
    new Promise<Run>((resolve) =>
      execFile(process.execPath, [BIN, '--json', 'account', 'view', maker.address], { cwd: dir, env: { PATH: process.env.PATH ?? '', ODDEX_URL: ex.url, ...env } }, (err, stdout, stderr) =>
        resolve({ code: typeof err?.code === 'number' ? err.code : err ? 1 : 0, stdout, stderr, json: stdout ? JSON.parse(stdout) : undefined }),
      ),
    );
  const missing = await run({ ODDEX_DATA_DIR: elsewhere });
  expect([missing.code, missing.json.message]).toEqual([2, `operator commands need the admin token: no ${elsewhere}/admin-token; set ODDEX_ADMIN_TOKEN, or ODDEX_ADMIN_TOKEN_FILE / --admin-token-file`]);
  const { mkdirSync } = await import('node:fs');
  mkdirSync(elsewhere, { recursive: true });
  writeFileSync(join(elsewhere, 'admin-token'), TEST_ADMIN_TOKEN + '\n');
  const found = await run({ ODDEX_DATA_DIR: elsewhere });
  expect([found.code, found.json.address]).toEqual([0, maker.address]);
});
