// One truth for a market's life: the engine's journaled report, whose commit also writes the catalogue's SETTLED
// status. A real server process kills itself (SIGKILL) right after committing a report, before it answers, hands
// anything to the chain or publishes; after the restart the market is SETTLED with that outcome, paid exactly once,
// and a report with another outcome is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../src/config.js';
import { DB_FILE } from '../src/store/sqlite/db.js';
import { crashSuite, type ChildExchange } from './helpers/process.js';
import { startTestExchange, type TestExchange } from './helpers/server.js';
import { E18, USDC, newWallet, signedFill, signedOrder } from './helpers/wallets.js';

const ADMIN = 'report-crash-admin';

describe('SIGKILL between a market report and its settlement work', () => {
  const suite = crashSuite('report-crash', ADMIN, 20);
  const { dataDir } = suite;
  let running: ChildExchange | undefined;

  const { call } = suite;
  const balance = async (address: string) => (await call('GET', `/balances/${address}`)).body.data;

  it('finds the market reported exactly once after the restart, SETTLED and paid to the wei', async () => {
    running = await suite.spawn({ ODDEX_TEST_KILL_AFTER_COMMIT_OF: 'marketReported' });
    const config = loadConfig({ ODDEX_EXECUTOR_ADDRESS: (await call('GET', '/metadata')).body.data.executorAddress }, []);
    const active = (await call('GET', '/markets/active?type=52&pageSize=100')).body.data.markets;
    const [market, other] = active.filter((m: { liveEnabled: boolean }) => !m.liveEnabled).map((m: { marketHash: string }) => m.marketHash);
    const maker = newWallet();
    const taker = newWallet();
    for (const w of [maker, taker]) expect((await call('POST', '/admin/faucet', { address: w.address, amount: (100n * USDC).toString() }, true)).status).toBe(200);
    const order = await signedOrder(maker, config, { marketHash: market, totalBetSize: 50n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: true });
    const resting = await signedOrder(maker, config, { marketHash: other, totalBetSize: 10n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: true });
    const posted = await call('POST', '/orders/new', { orders: [order.body, resting.body] });
    expect([posted.status, posted.body.errorCode, posted.body.message]).toEqual([200, undefined, undefined]);
    const fill = await signedFill(taker, config, { market, isTakerBettingOutcomeOne: false, stakeWei: 30n * USDC, desiredOdds: 60n * E18 });
    expect((await call('POST', '/orders/fill/v2', fill)).status).toBe(200);
    for (let i = 0; i < 100 && (await balance(taker.address)).escrowed !== '30000000'; i++) await sleep(20);
    expect(await balance(taker.address)).toMatchObject({ balance: '70000000', escrowed: '30000000' });

    // The report commits, then the process dies before answering.
    const report = await call('POST', `/admin/markets/${market}/report`, { outcome: 2 }, true).then(
      (r) => r.status,
      () => 'no answer',
    );
    expect(report).toBe('no answer');
    expect(await running.exited).toBeNull(); // killed by a signal, not an exit
    expect(running.child.signalCode).toBe('SIGKILL');

    running = await suite.spawn();
    const found = (await call('GET', `/markets/find?marketHashes=${market},${other}`)).body.data;
    expect(found.map((m: { marketHash: string; status: string; outcome?: number }) => [m.marketHash, m.status, m.outcome])).toEqual([
      [market, 'SETTLED', 2],
      [other, 'ACTIVE', undefined],
    ]);
    expect((await call('GET', '/markets/active?type=52&pageSize=100')).body.data.markets.map((m: { marketHash: string }) => m.marketHash)).not.toContain(market);
    // The taker won 30 + 20 on outcome two; the maker's 20 is gone, and only the 10 resting elsewhere stays exposed.
    expect(await balance(taker.address)).toMatchObject({ balance: '120000000', escrowed: '0' });
    expect(await balance(maker.address)).toMatchObject({ balance: '80000000', escrowed: '0', openExposure: '10000000' });
    const orders = (await call('GET', `/orders?orderHashes=${order.hash},${resting.hash}`)).body.data;
    expect(Object.fromEntries(orders.map((o: { orderHash: string; orderStatus: string }) => [o.orderHash, o.orderStatus]))).toEqual({
      [order.hash]: 'CANCELLED',
      [resting.hash]: 'ACTIVE',
    });

    // The operator, who got no answer, reports again: the same outcome is answered with the market as reported, and
    // pays nobody twice (balances below); another outcome contradicts it.
    const retried = await call('POST', `/admin/markets/${market}/report`, { outcome: 2 }, true);
    expect([retried.status, retried.body.data.map((m: { marketHash: string; status: string; outcome: number }) => [m.marketHash, m.status, m.outcome])]).toEqual([
      200,
      [[market, 'SETTLED', 2]],
    ]);
    for (const outcome of [1, 0]) {
      const again = await call('POST', `/admin/markets/${market}/report`, { outcome }, true);
      expect([again.status, again.body.errorCode]).toEqual([409, 'MARKET_ALREADY_REPORTED']);
    }
    const suspend = await call('POST', `/admin/markets/${market}/status`, { status: 'SUSPENDED' }, true);
    expect([suspend.status, suspend.body.errorCode]).toEqual([409, 'MARKET_ALREADY_REPORTED']);
    expect(await balance(taker.address)).toMatchObject({ balance: '120000000', escrowed: '0' });
    const settled = (await call('GET', `/trades?bettor=${taker.address}&settled=true`)).body.data;
    expect(settled.count).toBe(1);
    expect(settled.trades[0]).toMatchObject({ outcome: 2, settleValue: 50 });

    running.child.kill('SIGTERM');
    expect(await running.exited).toBe(0);
    // Exactly one report was journaled for the market.
    const db = new Database(join(dataDir, DB_FILE), { readonly: true });
    try {
      const reports = db.prepare("SELECT command FROM journal WHERE command LIKE '%\"reportMarkets\"%'").all() as { command: string }[];
      expect(reports.filter((r) => r.command.includes(market))).toHaveLength(1);
    } finally {
      db.close();
    }
  }, 60_000);

  it('keeps a suspension and a kick-off committed just before a SIGKILL, with their effects on trading', async () => {
    running = await suite.spawn({ ODDEX_TEST_KILL_AFTER_COMMIT_OF: 'marketStatusChanged' });
    const config = loadConfig({ ODDEX_EXECUTOR_ADDRESS: (await call('GET', '/metadata')).body.data.executorAddress }, []);
    const markets = (await call('GET', '/markets/active?type=52&pageSize=100')).body.data.markets as {
      marketHash: string;
      liveEnabled: boolean;
      leagueId: number;
      exchangeEventId: string;
    }[];
    const closed = markets.filter((m) => !m.liveEnabled);
    const suspended = closed[2]!;
    // A market of another fixture that goes in play; it is not enabled for in-play betting.
    const kickOff = closed.find((m) => m.exchangeEventId !== suspended.exchangeEventId)!;
    const maker = newWallet();
    expect((await call('POST', '/admin/faucet', { address: maker.address, amount: (100n * USDC).toString() }, true)).status).toBe(200);
    const order = (marketHash: string) =>
      signedOrder(maker, config, { marketHash, totalBetSize: 10n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: true });
    const quote = await order(kickOff.marketHash);
    expect((await call('POST', '/orders/new', { orders: [quote.body] })).body.data.statuses).toEqual({ [quote.hash]: 'OK' });

    const suspend = await call('POST', `/admin/markets/${suspended.marketHash}/status`, { status: 'SUSPENDED' }, true).then((r) => r.status, () => 'no answer');
    expect(suspend).toBe('no answer');
    await running.exited;
    running = await suite.spawn({ ODDEX_TEST_KILL_AFTER_COMMIT_OF: 'fixtureStatusChanged' });
    expect((await call('GET', `/markets/find?marketHashes=${suspended.marketHash}`)).body.data[0].status).toBe('SUSPENDED');
    const refused = await order(suspended.marketHash);
    const post = await call('POST', '/orders/new', { orders: [refused.body] });
    expect(post.body.data.statuses).toEqual({ [refused.hash]: 'INVALID_MARKET' });

    const live = await call('POST', `/admin/fixtures/${kickOff.exchangeEventId}/status`, { status: 2 }, true).then((r) => r.status, () => 'no answer');
    expect(live).toBe('no answer');
    await running.exited;
    running = await suite.spawn();
    const fixtures = (await call('GET', `/fixture/active?leagueId=${kickOff.leagueId}`)).body.data as { eventId: string; status: number }[];
    expect(fixtures.find((f) => f.eventId === kickOff.exchangeEventId)?.status).toBe(2);
    // The kick-off's cancel was part of the same commit: the quote is gone and its exposure freed.
    expect((await call('GET', `/orders?orderHashes=${quote.hash}`)).body.data[0].orderStatus).toBe('CANCELLED');
    expect(await balance(maker.address)).toMatchObject({ balance: '100000000', openExposure: '0' });
    const late = await order(kickOff.marketHash);
    const lateRes = await call('POST', '/orders/new', { orders: [late.body] });
    expect([lateRes.status, lateRes.body.data.statuses]).toEqual([200, { [late.hash]: 'INVALID_MARKET' }]);
    // Reopening the suspended market works, and is answered.
    expect((await call('POST', `/admin/markets/${suspended.marketHash}/status`, { status: 'ACTIVE' }, true)).body.data.status).toBe('ACTIVE');
    const reopened = await order(suspended.marketHash);
    expect((await call('POST', '/orders/new', { orders: [reopened.body] })).body.data.statuses).toEqual({ [reopened.hash]: 'OK' });
  }, 60_000);
});

describe('reports in the engine', () => {
  let ex: TestExchange;
  beforeAll(async () => {
    ex = await startTestExchange({ demo: true });
  });
  afterAll(async () => ex.destroy());

  it('refuses in the engine a report of a reported market with another outcome', async () => {
    const active = await ex.get('/markets/active?pageSize=100&type=52');
    const market: string = active.body.data.markets.find((m: { liveEnabled: boolean }) => !m.liveEnabled).marketHash;
    await ex.ctx.trading.marketsReported([{ marketHash: market, outcome: 1 }]);
    await expect(ex.ctx.trading.marketsReported([{ marketHash: market, outcome: 2 }])).rejects.toMatchObject({ errorCode: 'MARKET_ALREADY_REPORTED' });
    // The same outcome again changes nothing and is accepted.
    await ex.ctx.trading.marketsReported([{ marketHash: market, outcome: 1 }]);
    expect(ex.ctx.catalogue.getMarket(market)).toMatchObject({ status: 'SETTLED', outcome: 1 });
  });

  it('settles at start-up a catalogue left behind a journaled report by an older version', async () => {
    const active = await ex.get('/markets/active?pageSize=100&type=52');
    const market: string = active.body.data.markets.find((m: { liveEnabled: boolean }) => !m.liveEnabled).marketHash;
    await ex.ctx.trading.marketsReported([{ marketHash: market, outcome: 2 }], { teamOneScore: 0, teamTwoScore: 1 });
    // What the former second write could leave after a crash: the report journaled, the catalogue still ACTIVE.
    ex.ctx.db!.prepare("UPDATE markets SET status = 'ACTIVE', outcome = NULL, reported_date = NULL WHERE market_hash = ?").run(market);
    ex = await ex.restart();
    const unsettled = (h: string) => ex.ctx.catalogue.isUnsettled(h);
    expect((await ex.get(`/markets/find?marketHashes=${market}`)).body.data[0]).toMatchObject({ status: 'SETTLED', outcome: 2, teamOneScore: 0, teamTwoScore: 1 });
    expect(await ex.ctx.trading.readModels.reportsBehindCatalogue(unsettled)).toEqual([]);
  });
});
