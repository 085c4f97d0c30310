// A gateway process and a sequencer process on one PostgreSQL database, commands between them over NATS (Debian's
// nats-server). Trading through the gateway answers exactly as the sequencer's own API does, its reads see what it
// wrote, repeats of an order, a fill, a cancel or a whole request are not applied twice (funds exact to the wei),
// API keys issued on one process are taken by the other, the gateway's catalogue follows the statuses the sequencer
// journals, and while NATS is down the gateway retries within its bound, then answers 503 SEQUENCER_UNAVAILABLE, and trades
// again once NATS is back.
import { setTimeout as sleep } from 'node:timers/promises';
import { connect } from '@nats-io/transport-node';
import WebSocket from 'ws';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PrivateKeyAccount } from 'viem';
import { loadConfig, type Config } from '../src/config.js';
import { suiteChildren } from './helpers/process.js';
import { noPostgres, postgresForSuite, postgresSuite } from './helpers/postgres.js';
import { natsForSuite, startNats } from './helpers/nats.js';
import { COMMAND_SUBJECT, POSITION_SUBJECT } from '../src/sequencer/nats/wire.js';
import { E18, USDC, newWallet, signedCancel, signedFill, signedOrder } from './helpers/wallets.js';
import { call } from './helpers/positioned-call.js';

/** Whether the process takes a WebSocket connection at the realtime endpoint. */
const upgrades = (base: string) =>
  new Promise<boolean>((resolve) => {
    const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/connection/websocket`);
    ws.once('open', () => {
      ws.close();
      resolve(true);
    });
    ws.once('error', () => resolve(false));
  });

const ADMIN = 'gateway-nats-test-admin';
/** How long the gateway repeats a command no sequencer answers (ODDEX_SEQUENCER_RETRY_MS). */
const BOUND_MS = 4000;

/** A reply with one identifier swapped for another: two like requests answered alike but for their own ids. */
const swapped = (reply: unknown, from: string, to: string): unknown => JSON.parse(JSON.stringify(reply).split(from).join(to));

describe.skipIf(noPostgres)(postgresSuite('a gateway process sending commands over NATS to a sequencer process'), () => {
  const postgres = postgresForSuite();
  const nats = natsForSuite();
  const { tempDir, spawn } = suiteChildren('gateway');
  let sequencer = '';
  let gateway = '';
  let config: Config;
  /** The environment of every gateway of the suite. */
  let gatewayEnv: Record<string, string> = {};
  let markets: string[] = [];
  const makers = [newWallet(), newWallet()];
  const takers = [newWallet(), newWallet()];
  let minted = 0n;

  const admin = { authorization: `Bearer ${ADMIN}` };
  const fund = async (w: PrivateKeyAccount, amount: bigint) => {
    expect((await call(sequencer, 'POST', '/admin/faucet', { address: w.address, amount: amount.toString() }, admin)).status).toBe(200);
    minted += amount;
  };
  /** Balance plus escrow of every wallet of the suite, as the gateway reads them. */
  const heldByAll = async () => {
    let total = 0n;
    for (const w of [...makers, ...takers]) {
      const b = (await call(gateway, 'GET', `/balances/${w.address}`)).body.data;
      total += BigInt(b.balance) + BigInt(b.escrowed);
    }
    return total;
  };
  const order = (maker: PrivateKeyAccount, marketHash: string, percentageOdds = 55n * E18) =>
    signedOrder(maker, config, { marketHash, totalBetSize: 20n * USDC, percentageOdds, isMakerBettingOutcomeOne: true });
  const fill = (taker: PrivateKeyAccount, market: string) =>
    signedFill(taker, config, { market, isTakerBettingOutcomeOne: false, stakeWei: 5n * USDC, desiredOdds: 45n * E18 });

  beforeAll(async () => {
    const url = await postgres().createDatabase();
    const common = {
      ODDEX_DATABASE_URL: url,
      ODDEX_NATS_URL: nats().url,
      ODDEX_ADMIN_TOKEN: ADMIN,
      ODDEX_DEMO: 'true',
      ODDEX_DELAY_PREGAME_MS: '0',
      ODDEX_CHAIN_CONFIRM_MS: '50',
      ODDEX_RATE_LIMITS: 'false',
    };
    // Without the realtime role: its WebSocket clients would go to realtime nodes.
    sequencer = await spawn({ ...common, ODDEX_DATA_DIR: tempDir(), ODDEX_ROLES: 'sequencer,projector,settlement' });
    // Started after the sequencer seeded the demo catalogue: a gateway reads the catalogue at start.
    gatewayEnv = { ...common, ODDEX_ROLES: 'gateway', ODDEX_SEQUENCER_ATTEMPT_TIMEOUT_MS: '500', ODDEX_SEQUENCER_RETRY_MS: String(BOUND_MS) };
    gateway = await spawn({ ...gatewayEnv, ODDEX_DATA_DIR: tempDir() });
    const metadata = (await call(sequencer, 'GET', '/metadata')).body.data;
    config = loadConfig({ ODDEX_EXECUTOR_ADDRESS: metadata.executorAddress }, []);
    markets = (await call(gateway, 'GET', '/markets/active?type=52&pageSize=100')).body.data.markets
      .filter((m: { liveEnabled: boolean }) => !m.liveEnabled)
      .map((m: { marketHash: string }) => m.marketHash);
    for (const w of [...makers, ...takers]) await fund(w, 1000n * USDC);
  }, 120_000);

  it('trades through the gateway and answers exactly as the sequencer process does, reads included', async () => {
    expect(markets.length).toBeGreaterThanOrEqual(2);
    const [m1, m2] = markets as [string, string];
    // The same deployment on both sides: what clients sign against.
    expect((await call(gateway, 'GET', '/metadata')).body).toEqual((await call(sequencer, 'GET', '/metadata')).body);
    // Neither runs the realtime role: no WebSocket on either.
    expect([await upgrades(sequencer), await upgrades(gateway)]).toEqual([false, false]);

    // Like orders, one through each process: answered alike but for their hashes.
    const [viaGateway, viaSequencer] = await Promise.all([order(makers[0]!, m1), order(makers[1]!, m2)]);
    const posted = await call(gateway, 'POST', '/orders/new', { orders: [viaGateway.body] });
    expect(posted.status).toBe(200);
    expect(posted.body).toEqual({ status: 'success', data: { orders: [viaGateway.hash], statuses: { [viaGateway.hash]: 'OK' }, inserted: 1 } });
    const postedThere = await call(sequencer, 'POST', '/orders/new', { orders: [viaSequencer.body] });
    expect(swapped(postedThere.body, viaSequencer.hash, viaGateway.hash)).toEqual(posted.body);
    // The write's position: the gateway's own reads wait for it.
    expect(posted.position).toBeGreaterThan(0);
    const mine = await call(gateway, 'GET', `/orders?orderHashes=${viaGateway.hash}`);
    expect(mine.position).toBeGreaterThanOrEqual(posted.position);
    expect(mine.body.data.map((o: { orderHash: string; orderStatus: string }) => [o.orderHash, o.orderStatus])).toEqual([[viaGateway.hash, 'ACTIVE']]);

    // Like fills of the two orders: the same reply but for the fill hash.
    const [fillA, fillB] = await Promise.all([fill(takers[0]!, m1), fill(takers[1]!, m2)]);
    const filled = await call(gateway, 'POST', '/orders/fill/v2', fillA);
    expect(filled.status).toBe(200);
    expect(filled.body.data).toMatchObject({ isPartialFill: false, totalFilled: (5n * USDC).toString() });
    const filledThere = await call(sequencer, 'POST', '/orders/fill/v2', fillB);
    expect(swapped(filledThere.body, filledThere.body.data.fillHash, filled.body.data.fillHash)).toEqual(filled.body);
    const trades = await call(gateway, 'GET', `/trades?bettor=${takers[0]!.address}&startDate=0`);
    expect(trades.body.data.trades.map((t: { fillHash: string }) => t.fillHash)).toEqual([filled.body.data.fillHash]);

    // Once the chain confirmed both fills, every read answers the same on both processes at the same position.
    await sleep(500);
    const reads = [
      `/orders?orderHashes=${viaGateway.hash},${viaSequencer.hash}`,
      `/orders?maker=${makers[0]!.address}`,
      '/trades?startDate=0&pageSize=100',
      `/trades/consolidated?bettor=${takers[0]!.address}&settled=false&page=0&perPage=100&sortAsc=true`,
      `/account/statement?bettor=${takers[1]!.address}`,
      `/positions?bettor=${takers[0]!.address}`,
      ...[...makers, ...takers].map((w) => `/balances/${w.address}`),
    ];
    for (const path of reads) {
      const there = await call(sequencer, 'GET', path);
      const here = await call(gateway, 'GET', path, undefined, { 'oddex-min-position': String(there.position) });
      expect([path, here.status, here.body]).toEqual([path, 200, there.body]);
    }
    expect(await heldByAll()).toBe(minted);

    // Demo funds through the gateway: the grant's reply reads the read side once it covers the grant.
    const [w1, w2] = [newWallet(), newWallet()];
    const granted = await call(gateway, 'POST', '/user/demo-funds', { address: w1.address });
    expect(granted.status).toBe(200);
    expect(granted.body.data).toMatchObject({ address: w1.address, balance: '100000000', escrowed: '0' });
    const grantedThere = await call(sequencer, 'POST', '/user/demo-funds', { address: w2.address });
    expect(swapped(grantedThere.body, w2.address, w1.address)).toEqual(granted.body);

    // What needs the sequencer's own objects (the operator routes, best odds, cash-out quotes, parlay requests) the
    // gateway forwards to it: answered as the sequencer answers, and a forwarded write is read back on the gateway.
    const faucet = await call(gateway, 'POST', '/admin/faucet', { address: w1.address, amount: '7' }, admin);
    const faucetThere = await call(sequencer, 'POST', '/admin/faucet', { address: w2.address, amount: '7' }, admin);
    expect([faucet.status, faucet.body]).toEqual([200, swapped(faucetThere.body, w2.address, w1.address)]);
    expect((await call(gateway, 'GET', `/balances/${w1.address}`)).body.data.balance).toBe('100000007');
    expect((await call(gateway, 'POST', '/admin/faucet', { address: w1.address, amount: '7' })).status).toBe(401);
    // (The quote's answer is the engine's: the book holds nothing to hedge with.)
    for (const [path, status] of [
      [`/cashout/quote?bettor=${takers[0]!.address}&marketHash=${m1}`, 400],
      [`/orders/odds/best?marketHashes=${m1},${m2}&baseToken=${config.baseTokenAddress}`, 200],
      [`/admin/accounts/${takers[0]!.address}`, 200],
    ] as const) {
      const there = await call(sequencer, 'GET', path, undefined, admin);
      expect([path, there.status]).toEqual([path, status]);
      expect([path, await call(gateway, 'GET', path, undefined, admin).then((r) => [r.status, r.body])]).toEqual([path, [status, there.body]]);
    }
    const parlay = await call(gateway, 'POST', '/parlays/request', { legs: [] });
    expect([parlay.status, parlay.body]).toEqual([400, (await call(sequencer, 'POST', '/parlays/request', { legs: [] })).body]);
  }, 60_000);

  it('applies a repeated order, fill, cancel or request once, and answers the repeat as the sequencer process does', async () => {
    const market = markets[2] ?? markets[0]!;
    const before = await heldByAll();
    expect(before).toBe(minted);
    const o = await order(makers[0]!, market, 60n * E18);
    expect((await call(gateway, 'POST', '/orders/new', { orders: [o.body] })).body.data.statuses).toEqual({ [o.hash]: 'OK' });
    const again = await call(gateway, 'POST', '/orders/new', { orders: [o.body] });
    expect(again.body).toEqual({ status: 'success', data: { orders: [o.hash], statuses: { [o.hash]: 'ORDERS_ALREADY_EXIST' }, inserted: 0 } });
    expect((await call(sequencer, 'POST', '/orders/new', { orders: [o.body] })).body).toEqual(again.body);

    const f = await signedFill(takers[0]!, config, { market, isTakerBettingOutcomeOne: false, stakeWei: 4n * USDC, desiredOdds: 40n * E18 });
    expect((await call(gateway, 'POST', '/orders/fill/v2', f)).status).toBe(200);
    const refill = await call(gateway, 'POST', '/orders/fill/v2', f);
    expect([refill.status, refill.body.errorCode]).toEqual([409, 'FILL_ALREADY_SUBMITTED']);
    const refillThere = await call(sequencer, 'POST', '/orders/fill/v2', f);
    expect([refillThere.status, refillThere.body]).toEqual([409, refill.body]);

    await sleep(300); // the chain confirms the fill: the cancel finds none pending
    const cancel = await signedCancel(makers[0]!, config, 'v2', { orderHashes: [o.hash] });
    const cancelled = await call(gateway, 'POST', '/orders/cancel/v2', cancel);
    expect(cancelled.body).toEqual({ status: 'success', data: { cancelledCount: 1, orders: [{ orderHash: o.hash, pendingFills: [] }], notCancelled: [] } });
    const recancel = await call(gateway, 'POST', '/orders/cancel/v2', cancel);
    expect([recancel.status, recancel.body.errorCode]).toEqual([409, 'CANCEL_REQUEST_ALREADY_PROCESSED']);
    expect(await call(sequencer, 'POST', '/orders/cancel/v2', cancel)).toMatchObject({ status: 409, body: recancel.body });

    // The transport's own repeat: one request id sent three times (a gateway that lost the reply) is one grant,
    // each answered with the first one's reply. Written by hand: the journal's version 2 text of a faucet.
    const wallet = makers[1]!;
    const start = BigInt((await call(gateway, 'GET', `/balances/${wallet.address}`)).body.data.balance);
    const request = JSON.stringify({ id: 'test-repeat-1', command: '2' + JSON.stringify({ kind: 'faucet', at: Date.now(), address: wallet.address, amount: '1234567' }) });
    const nc = await connect({ servers: nats().url });
    try {
      const replies = await Promise.all([0, 1, 2].map(() => nc.request('oddex.sequencer.commands', request, { timeout: 5000 }).then((m) => m.string())));
      expect(new Set(replies).size).toBe(1);
      expect(JSON.parse(replies[0]!)).toMatchObject({ ok: true, result: { kind: 'none' } });
      const later = await nc.request('oddex.sequencer.commands', request, { timeout: 5000 });
      expect(later.string()).toBe(replies[0]);
    } finally {
      await nc.close();
    }
    minted += 1_234_567n;
    const position = String((await call(sequencer, 'GET', '/metadata')).position);
    const after = (await call(gateway, 'GET', `/balances/${wallet.address}`, undefined, { 'oddex-min-position': position })).body.data;
    expect(BigInt(after.balance)).toBe(start + 1_234_567n);
    await sleep(300); // the chain confirms the fill
    expect(await heldByAll()).toBe(minted);
  }, 60_000);

  it('takes the API keys the other process issued and revoked, and sends a heartbeat', async () => {
    const maker = makers[1]!;
    const issued = await call(sequencer, 'POST', '/admin/api-keys', { address: maker.address }, admin);
    expect(issued.status).toBe(200);
    const heartbeat = (base: string) =>
      call(base, 'POST', '/heartbeat', { requestor: maker.address, timeoutSeconds: 0 }, { 'x-api-key': issued.body.data.apiKey });
    const waitUntil = async (base: string, status: number) => {
      for (const started = Date.now(); ; await sleep(100)) {
        const res = await heartbeat(base);
        if (res.status === status || Date.now() - started > 6000) return res;
      }
    };
    const beat = await waitUntil(gateway, 200);
    expect(beat.status).toBe(200);
    expect(beat.body.data).toMatchObject({ requestor: maker.address, timeoutSeconds: 0 });
    // Revoked where it was issued: refused by the gateway too once it has reloaded the keys.
    expect((await call(sequencer, 'DELETE', `/admin/api-keys/${issued.body.data.id}`, undefined, admin)).status).toBe(200);
    const refused = await waitUntil(gateway, 401);
    expect([refused.status, refused.body.errorCode]).toEqual([401, 'INVALID_API_KEY']);
  }, 30_000);

  it('follows the market statuses the sequencer journals: a suspension shows and refuses on the gateway as on the sequencer', async () => {
    const market = markets[4] ?? markets[0]!;
    const find = `/markets/find?marketHashes=${market}`;
    const suspended = await call(sequencer, 'POST', `/admin/markets/${market}/status`, { status: 'SUSPENDED' }, admin);
    expect(suspended.body.data.status).toBe('SUSPENDED');
    let seen = await call(gateway, 'GET', find);
    for (const started = Date.now(); seen.body.data[0]?.status !== 'SUSPENDED' && Date.now() - started < 5000; await sleep(50)) seen = await call(gateway, 'GET', find);
    expect(seen.body).toEqual((await call(sequencer, 'GET', find)).body);
    const f = await signedFill(takers[0]!, config, { market, isTakerBettingOutcomeOne: true, stakeWei: 2n * USDC, desiredOdds: 50n * E18 });
    const refused = await call(gateway, 'POST', '/orders/fill/v2', f);
    expect([refused.status, refused.body.errorCode]).toEqual([400, 'MARKET_NOT_TRADEABLE']);
    expect((await call(sequencer, 'POST', '/orders/fill/v2', f)).body).toEqual(refused.body);
    expect((await call(sequencer, 'POST', `/admin/markets/${market}/status`, { status: 'ACTIVE' }, admin)).body.data.status).toBe('ACTIVE');
  }, 30_000);

  it('learns the fixtures, markets and live scores created on the sequencer after it started, and trades on them', async () => {
    const ok = async (path: string, body: unknown) => {
      const res = await call(sequencer, 'POST', path, body, admin);
      expect([path, res.status]).toEqual([path, 200]);
      return res.body.data;
    };
    const sport = await ok('/admin/sports', { label: 'Gateway Ball' });
    const league = await ok('/admin/leagues', { sportId: sport.sportId, label: 'Gateway League' });
    const [one, two] = [await ok('/admin/teams', { sportId: sport.sportId, name: 'Gate One' }), await ok('/admin/teams', { sportId: sport.sportId, name: 'Gate Two' })];
    const fixture = await ok('/admin/fixtures', { leagueId: league.leagueId, teamOneId: one.id, teamTwoId: two.id, gameTime: Math.floor(Date.now() / 1000) + 86_400 });
    const [market] = await ok('/admin/markets', { exchangeEventId: fixture.eventId, type: 52 });
    await ok('/admin/live-scores', { exchangeEventId: fixture.eventId, currentPeriod: '1st Half', periodTime: '03:00', teamOneScore: 0, teamTwoScore: 1, periods: [] });
    const reads = [`/markets/find?marketHashes=${market.marketHash}`, `/fixture/active?leagueId=${league.leagueId}`, `/live-scores?exchangeEventIds=${fixture.eventId}`];
    for (const path of reads) {
      const there = (await call(sequencer, 'GET', path)).body;
      let here = await call(gateway, 'GET', path);
      for (const started = Date.now(); JSON.stringify(here.body) !== JSON.stringify(there) && Date.now() - started < 5000; await sleep(50)) here = await call(gateway, 'GET', path);
      expect([path, here.body]).toEqual([path, there]);
    }
    // A later goal moves only the live scores' revision: the gateway reads them again (not the whole catalogue).
    await ok('/admin/live-scores', { exchangeEventId: fixture.eventId, currentPeriod: '1st Half', periodTime: '21:00', teamOneScore: 1, teamTwoScore: 1, periods: [] });
    const scores = `/live-scores?exchangeEventIds=${fixture.eventId}`;
    const updated = (await call(sequencer, 'GET', scores)).body;
    expect(updated.data[0]).toMatchObject({ teamOneScore: 1, teamTwoScore: 1 });
    let seen = await call(gateway, 'GET', scores);
    for (const started = Date.now(); JSON.stringify(seen.body) !== JSON.stringify(updated) && Date.now() - started < 5000; await sleep(50)) seen = await call(gateway, 'GET', scores);
    expect(seen.body).toEqual(updated);
    const o = await order(makers[0]!, market.marketHash, 52n * E18);
    expect((await call(gateway, 'POST', '/orders/new', { orders: [o.body] })).body.data.statuses).toEqual({ [o.hash]: 'OK' });
    const f = await signedFill(takers[0]!, config, { market: market.marketHash, isTakerBettingOutcomeOne: false, stakeWei: 2n * USDC, desiredOdds: 48n * E18 });
    const filled = await call(gateway, 'POST', '/orders/fill/v2', f);
    expect([filled.status, filled.body.data?.totalFilled]).toEqual([200, (2n * USDC).toString()]);
    await sleep(300); // the chain confirms the fill
    expect(await heldByAll()).toBe(minted);
  }, 30_000);

  it('answers 503 SEQUENCER_UNAVAILABLE within its bound while NATS is down, rides through a short outage, and trades on once it is back', async () => {
    const market = markets[3] ?? markets[0]!;
    await nats().halt();
    const o = await order(makers[1]!, market, 62n * E18);
    const started = Date.now();
    const refused = await call(gateway, 'POST', '/orders/new', { orders: [o.body] });
    const took = Date.now() - started;
    expect([refused.status, refused.body.errorCode, refused.headers.get('retry-after')]).toEqual([503, 'SEQUENCER_UNAVAILABLE', '1']);
    expect(took).toBeGreaterThanOrEqual(BOUND_MS - 50);
    expect(took).toBeLessThan(BOUND_MS + 2000);
    // Nothing was applied: the sequencer's own API never saw the order.
    expect((await call(sequencer, 'GET', `/orders?orderHashes=${o.hash}`)).body.data).toEqual([]);
    // A gateway started while NATS is down serves reads, and commands once NATS is back.
    const late = await spawn({ ...gatewayEnv, ODDEX_DATA_DIR: tempDir() });
    expect((await call(late, 'GET', `/balances/${takers[1]!.address}`)).body).toEqual((await call(sequencer, 'GET', `/balances/${takers[1]!.address}`)).body);

    // A command sent while NATS is down is answered once it is back within the bound.
    const pending = call(gateway, 'POST', '/orders/new', { orders: [o.body] });
    await sleep(400);
    await nats().start();
    const rode = await pending;
    expect(rode.body).toEqual({ status: 'success', data: { orders: [o.hash], statuses: { [o.hash]: 'OK' }, inserted: 1 } });

    const f = await signedFill(takers[1]!, config, { market, isTakerBettingOutcomeOne: false, stakeWei: 3n * USDC, desiredOdds: 38n * E18 });
    const filled = await call(late, 'POST', '/orders/fill/v2', f);
    expect([filled.status, filled.body.data.totalFilled]).toEqual([200, (3n * USDC).toString()]);
    await sleep(300);
    expect(await heldByAll()).toBe(minted);
  }, 60_000);

  it('answers 503 STORAGE_UNAVAILABLE, not a 500, when the sequencer could not reach PostgreSQL (restarting) for a command', async () => {
    // A sequencer whose database is starting up again fails a command with PostgreSQL's 57P03 ("the database system
    // is starting up"); its own API answers that 503 STORAGE_UNAVAILABLE, and so must a gateway it replies to over NATS.
    const own = await startNats();
    const nc = await connect({ servers: own.url });
    try {
      const sub = nc.subscribe(COMMAND_SUBJECT, {
        queue: COMMAND_SUBJECT,
        callback: (_err, msg) => {
          const failures = [
            { failure: 'the database system is starting up', code: '57P03' },
            { failure: 'terminating connection due to administrator command', code: '57P01' },
            { failure: 'sorry, too many clients already', code: '53300' },
          ];
          msg.respond(JSON.stringify({ ok: false, ...failures[served++ % failures.length] }));
        },
      });
      let served = 0;
      const gw = await spawn({ ...gatewayEnv, ODDEX_NATS_URL: own.url, ODDEX_DATA_DIR: tempDir() });
      for (let i = 0; i < 3; i++) {
        const o = await order(makers[0]!, markets[0]!, 57n * E18);
        const res = await call(gw, 'POST', '/orders/new', { orders: [o.body] });
        expect([res.status, res.body.errorCode]).toEqual([503, 'STORAGE_UNAVAILABLE']);
      }
      expect(served).toBe(3);
      sub.unsubscribe();
    } finally {
      await nc.close();
      await own.stop();
    }
  }, 60_000);

  it('says on /health/ready that it cannot take writes while no sequencer answers or NATS is down, and serves reads meanwhile', async () => {
    // A NATS server of its own, with no sequencer on it at first.
    const own = await startNats();
    const nc = await connect({ servers: own.url });
    try {
      const gw = await spawn({ ...gatewayEnv, ODDEX_NATS_URL: own.url, ODDEX_DATA_DIR: tempDir() });
      const ready = async () => {
        const res = await fetch(gw + '/health/ready');
        return { status: res.status, body: (await res.json()) as { errorCode?: string; message?: string } };
      };
      const read = () => call(gw, 'GET', `/balances/${takers[0]!.address}`);
      // No sequencer subscribed: every write would end in 503 SEQUENCER_UNAVAILABLE, and readiness says so.
      let none = await ready();
      // (until its NATS connection is up, it says that instead)
      for (let i = 0; i < 30 && /not connected to NATS/.test(none.body.message ?? ''); i++) none = (await sleep(100), await ready());
      expect([none.status, none.body.errorCode]).toEqual([503, 'SEQUENCER_UNAVAILABLE']);
      expect(none.body.message).toMatch(/no sequencer answered/);
      expect((await call(gw, 'GET', '/health')).status).toBe(200);
      expect((await read()).status).toBe(200);
      // (Its /metrics names no writer thread: a gateway has none.)
      expect(await (await fetch(gw + '/metrics')).text()).toMatch(/^# HELP oddex_writer_thread_busy_ratio .*main thread \(HTTP; this process runs no engine or journal\)/m);
      // A sequencer answers (here one that only tells its position): ready.
      const sub = nc.subscribe(POSITION_SUBJECT, {
        queue: POSITION_SUBJECT,
        callback: (_err, msg) => {
          msg.respond(JSON.stringify({ position: 1 }));
        },
      });
      await nc.flush();
      expect((await ready()).status).toBe(200);
      sub.unsubscribe();
      // NATS down: not ready, naming NATS; reads are still served.
      await nc.close();
      await own.halt();
      await sleep(300);
      const down = await ready();
      expect([down.status, down.body.errorCode]).toEqual([503, 'SEQUENCER_UNAVAILABLE']);
      expect(down.body.message).toMatch(/not connected to NATS/);
      expect((await read()).status).toBe(200);
    } finally {
      await nc.close().catch(() => {});
      await own.stop();
    }
  }, 60_000);
});
