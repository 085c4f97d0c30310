// A hot standby sequencer (ODDEX_STANDBY) on one PostgreSQL database, behind a gateway over NATS (Debian's
// nats-server). The leader is killed with SIGKILL while makers post and takers fill through the gateway: the standby
// takes the writer's lock and answers within 5 s, every acknowledged order and fill is there afterwards, funds are
// exact to the wei, nothing is applied twice (a request the old leader journaled is answered from the journal, a
// repeated signed fill is refused as before), and the new leader's engine is the state a replay of the journal
// gives. A second writer without ODDEX_STANDBY is refused as it always was, a standby started with no leader takes
// over at once, and a leader that lost its lock to a standby while still running steps out of the gateways' way.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PrivateKeyAccount } from 'viem';
import pg from 'pg';
import { loadConfig, type Config } from '../src/config.js';
import { Engine } from '../src/engine/engine.js';
import { DomainError } from '../src/engine/errors.js';
import { engineParams } from '../src/sequencer/sequencer.js';
import { decodeCommand } from '../src/store/command-codec.js';
import { decodeJson } from '../src/store/json-codec.js';
import { spawnExchange, spawnWatched, type ChildExchange, type WatchedExchange } from './helpers/process.js';
import { noPostgres, postgresForSuite, postgresSuite } from './helpers/postgres.js';
import { natsForSuite } from './helpers/nats.js';
import { E18, USDC, newWallet, signedFill, signedOrder } from './helpers/wallets.js';
import { call, type PositionedReply as Reply } from './helpers/positioned-call.js';

const ADMIN = 'sequencer-standby-test-admin';
const FUNDS = 10_000n * USDC;
const ORDER_STAKE = 20n * USDC;
const FILL_STAKE = 2n * USDC;
/** The issue's bound on a takeover, as a gateway sees it. */
const TAKEOVER_BOUND_MS = 5000;

interface Trade {
  bettor: string;
  stake: string;
  fillHash: string;
  orderHash: string;
  maker: boolean;
  tradeStatus: string;
}

describe.skipIf(noPostgres)(postgresSuite('a hot standby sequencer taking over from a leader killed under load'), () => {
  const postgres = postgresForSuite();
  const nats = natsForSuite();
  const dirs: string[] = [];
  const processes: { child: { kill(signal: NodeJS.Signals): boolean } }[] = [];
  let common: Record<string, string> = {};
  let leader: ChildExchange;
  let standby: WatchedExchange;
  /** The leader the last test started. */
  let latest: WatchedExchange;
  let gateway = '';
  let config: Config;
  let markets: string[] = [];
  const makers = [newWallet(), newWallet(), newWallet()];
  const takers = [newWallet(), newWallet(), newWallet()];
  /** The newest journal position a reply carried: what reads must see. */
  let seen = 0;

  const tempDir = () => {
    const d = mkdtempSync(join(tmpdir(), 'oddex-standby-'));
    dirs.push(d);
    return d;
  };
  const sequencerEnv = () => ({ ...common, ODDEX_DATA_DIR: tempDir(), ODDEX_ROLES: 'sequencer,projector,settlement,realtime' });
  const admin = { authorization: `Bearer ${ADMIN}` };
  const read = async (path: string) => {
    const r = await call(gateway, 'GET', path, undefined, { 'oddex-min-position': String(seen) });
    expect([path, r.status]).toEqual([path, 200]);
    expect(r.position).toBeGreaterThanOrEqual(seen);
    return r.body.data;
  };
  const balance = async (w: PrivateKeyAccount) => {
    const b = await read(`/balances/${w.address}`);
    return { balance: BigInt(b.balance), escrowed: BigInt(b.escrowed) };
  };
  const tradesOf = async (w: PrivateKeyAccount): Promise<Trade[]> => {
    const all: Trade[] = [];
    for (let key = ''; ; ) {
      const page = await read(`/trades?bettor=${w.address}&startDate=0&pageSize=300${key ? `&paginationKey=${key}` : ''}`);
      all.push(...page.trades);
      if (!page.nextKey) return all;
      key = page.nextKey;
    }
  };

  beforeAll(async () => {
    const url = await postgres().createDatabase();
    common = {
      ODDEX_DATABASE_URL: url,
      ODDEX_NATS_URL: nats().url,
      ODDEX_ADMIN_TOKEN: ADMIN,
      ODDEX_DEMO: 'true',
      ODDEX_DELAY_PREGAME_MS: '0',
      ODDEX_CHAIN_CONFIRM_MS: '50',
      ODDEX_RATE_LIMITS: 'false',
      // Two cores run the whole deployment: no verification threads of their own.
      ODDEX_VERIFY_THREADS: '0',
    };
    leader = await spawnExchange(sequencerEnv());
    processes.push(leader);
    // After the leader seeded the demo catalogue: a gateway reads the catalogue at start.
    const [gatewayChild] = await Promise.all([
      spawnExchange({ ...common, ODDEX_DATA_DIR: tempDir(), ODDEX_ROLES: 'gateway', ODDEX_SEQUENCER_ATTEMPT_TIMEOUT_MS: '1000', ODDEX_SEQUENCER_RETRY_MS: '15000' }),
      (async () => {
        standby = spawnWatched({ ...sequencerEnv(), ODDEX_STANDBY: 'true' });
        processes.push(standby);
        await standby.line(/standing by: following the journal at position \d+/);
      })(),
    ]);
    processes.push(gatewayChild!);
    gateway = gatewayChild!.url;
    const metadata = (await call(leader.url, 'GET', '/metadata')).body.data;
    config = loadConfig({ ODDEX_EXECUTOR_ADDRESS: metadata.executorAddress }, []);
    markets = (await call(gateway, 'GET', '/markets/active?type=52&pageSize=100')).body.data.markets
      .filter((m: { liveEnabled: boolean }) => !m.liveEnabled)
      .map((m: { marketHash: string }) => m.marketHash)
      .slice(0, 4);
    for (const w of [...makers, ...takers]) {
      expect((await call(leader.url, 'POST', '/admin/faucet', { address: w.address, amount: FUNDS.toString() }, admin)).status).toBe(200);
    }
  }, 120_000);

  afterAll(() => {
    for (const p of processes) p.child.kill('SIGKILL');
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('refuses a second writer without ODDEX_STANDBY, as before', async () => {
    const second = spawnWatched(sequencerEnv());
    processes.push(second);
    expect(await second.exited).not.toBe(0);
    expect(second.stderr()).toMatch(/another writer holds this database/);
  }, 30_000);

  it('takes over within 5 s of a kill -9 of the leader under load: every acknowledged change kept, funds exact, nothing applied twice', async () => {
    expect(markets.length).toBeGreaterThanOrEqual(2);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(Math.random() * xs.length)]!;

    // A request the leader journals and answers; its repeat, after the takeover, must get the same result and grant
    // nothing more (a faucet has no key of its own the engine could refuse a repeat by).
    const extra = newWallet();
    const request = JSON.stringify({ id: 'standby-repeat-1', command: '2' + JSON.stringify({ kind: 'faucet', at: Date.now(), address: extra.address, amount: '7654321' }) });
    const nc = await connect({ servers: nats().url });
    const ask = async () => JSON.parse((await nc.request('oddex.sequencer.commands', request, { timeout: 15_000 })).string());
    const first = await ask();
    expect(first).toMatchObject({ ok: true, result: { kind: 'none' } });

    const orders = new Map<string, PrivateKeyAccount>();
    const fills = new Map<string, { taker: PrivateKeyAccount; totalFilled: bigint; body: unknown }>();
    const refusals = new Map<string, number>();
    /** Replies to writes sent after the kill, by when they came. */
    const afterKill: { sentAt: number; answeredAt: number; status: number }[] = [];
    let killedAt = 0;
    let running = true;
    const record = (r: Reply, sentAt: number) => {
      if (r.status === 200) seen = Math.max(seen, r.position);
      else refusals.set(`${r.status} ${r.body.errorCode}`, (refusals.get(`${r.status} ${r.body.errorCode}`) ?? 0) + 1);
      if (killedAt > 0 && sentAt >= killedAt) afterKill.push({ sentAt, answeredAt: Date.now(), status: r.status });
    };
    const maker = async (w: PrivateKeyAccount) => {
      while (running) {
        const o = await signedOrder(w, config, { marketHash: pick(markets), totalBetSize: ORDER_STAKE, percentageOdds: 55n * E18, isMakerBettingOutcomeOne: true });
        const sentAt = Date.now();
        const r = await call(gateway, 'POST', '/orders/new', { orders: [o.body] });
        record(r, sentAt);
        if (r.status === 200 && r.body.data.statuses[o.hash] === 'OK') orders.set(o.hash, w);
      }
    };
    const taker = async (w: PrivateKeyAccount) => {
      while (running) {
        const f = await signedFill(w, config, { market: pick(markets), isTakerBettingOutcomeOne: false, stakeWei: FILL_STAKE, desiredOdds: 45n * E18 });
        const sentAt = Date.now();
        const r = await call(gateway, 'POST', '/orders/fill/v2', f);
        record(r, sentAt);
        if (r.status === 200) fills.set(r.body.data.fillHash, { taker: w, totalFilled: BigInt(r.body.data.totalFilled), body: f });
      }
    };
    const load = [...makers.map(maker), ...takers.map(taker)];

    await sleep(2500);
    const beforeKill = { orders: orders.size, fills: fills.size };
    killedAt = Date.now();
    leader.child.kill('SIGKILL');
    await standby.line(/took over as the writer at position \d+, epoch \d+/);
    const tookOverAt = Date.now();
    await standby.line(/listening on http/);
    for (const started = Date.now(); !afterKill.some((a) => a.status === 200) && Date.now() - started < 20_000; ) await sleep(20);
    await sleep(1500);
    running = false;
    await Promise.all(load);

    const firstAnswer = Math.min(...afterKill.filter((a) => a.status === 200).map((a) => a.answeredAt));
    const takeoverMs = firstAnswer - killedAt;
    console.log(
      `takeover: the gateway answered a write ${takeoverMs} ms after kill -9 of the leader (standby took the lock after ${tookOverAt - killedAt} ms); ` +
        `${beforeKill.orders} orders and ${beforeKill.fills} fills acknowledged before the kill, ${orders.size} and ${fills.size} in all; ` +
        `${standby.lines(/answered with the result the previous writer journaled/).length} gateway repeats answered from the journal; refusals ${JSON.stringify([...refusals])}`,
    );
    expect(takeoverMs).toBeLessThan(TAKEOVER_BOUND_MS);
    expect(fills.size).toBeGreaterThan(beforeKill.fills);
    expect(orders.size).toBeGreaterThan(beforeKill.orders);
    // No write was given up on: the gateway rode through the takeover.
    expect([...refusals.keys()].filter((k) => k.startsWith('503'))).toEqual([]);

    // The journaled request's repeat: the first result, granted once.
    const repeat = await ask();
    expect(repeat).toMatchObject({ ok: true, result: first.result });
    expect(repeat.position).toBeLessThanOrEqual(first.position);
    await nc.close();

    // Every acknowledged order is there.
    const hashes = [...orders.keys()];
    for (let i = 0; i < hashes.length; i += 100) {
      const chunk = hashes.slice(i, i + 100);
      const found: { orderHash: string; maker: string }[] = await read(`/orders?orderHashes=${chunk.join(',')}`);
      expect(found.map((o) => o.orderHash).sort()).toEqual(chunk.map((h) => h.toLowerCase()).sort());
      for (const o of found) expect(o.maker).toBe(orders.get(o.orderHash)!.address);
    }

    // The chain confirms every fill, those the old leader handed it included (the new one hands them again).
    const settled = async () => {
      const byBettor = new Map<PrivateKeyAccount, Trade[]>();
      for (const w of [...makers, ...takers]) byBettor.set(w, await tradesOf(w));
      return byBettor;
    };
    let trades = await settled();
    for (const started = Date.now(); [...trades.values()].flat().some((t) => t.tradeStatus !== 'SUCCESS') && Date.now() - started < 15_000; ) {
      await sleep(200);
      trades = await settled();
    }
    expect([...trades.values()].flat().filter((t) => t.tradeStatus !== 'SUCCESS')).toEqual([]);

    // Exactly the acknowledged fills traded, each once, for the stake its reply gave.
    const takerTrades = [...trades.values()].flat().filter((t) => !t.maker);
    const stakeByFill = new Map<string, bigint>();
    for (const t of takerTrades) stakeByFill.set(t.fillHash, (stakeByFill.get(t.fillHash) ?? 0n) + BigInt(t.stake));
    expect([...stakeByFill.keys()].sort()).toEqual([...fills.keys()].sort());
    for (const [fillHash, f] of fills) expect([fillHash, stakeByFill.get(fillHash)]).toEqual([fillHash, f.totalFilled]);

    // Funds to the wei: a taker holds what it was given less its acknowledged fills, in escrow; a maker its matched
    // stakes in escrow; the sum of all is what was minted.
    let held = 0n;
    for (const w of takers) {
      const filled = [...fills.values()].filter((f) => f.taker === w).reduce((sum, f) => sum + f.totalFilled, 0n);
      const b = await balance(w);
      expect([w.address, b]).toEqual([w.address, { balance: FUNDS - filled, escrowed: filled }]);
      held += b.balance + b.escrowed;
    }
    for (const w of makers) {
      const matched = trades.get(w)!.reduce((sum, t) => sum + BigInt(t.stake), 0n);
      const b = await balance(w);
      expect([w.address, b]).toEqual([w.address, { balance: FUNDS - matched, escrowed: matched }]);
      held += b.balance + b.escrowed;
    }
    expect(held).toBe(FUNDS * BigInt(makers.length + takers.length));
    expect(await balance(extra)).toEqual({ balance: 7_654_321n, escrowed: 0n });

    // The new leader's engine is the state a replay of the journal gives: its snapshot, taken on request, equals an
    // engine built here from the journal rows it covers.
    const newLeader = /listening on (http:\/\/[\d.]+:\d+)/.exec(await standby.line(/listening on http/))![1]!;
    const taken = await call(newLeader, 'POST', '/admin/journal/snapshot', undefined, admin);
    expect(taken.status).toBe(200);
    const db = new pg.Client({ connectionString: common.ODDEX_DATABASE_URL });
    await db.connect();
    try {
      const through = taken.body.data.journalSeq as number;
      const { rows } = await db.query<{ command: string }>('SELECT command FROM journal WHERE seq <= $1 ORDER BY seq', [through]);
      expect(rows).toHaveLength(through);
      const replayed = new Engine(engineParams(loadConfig({ ...common, ODDEX_ROLES: 'sequencer,settlement' }, [])));
      for (const { command } of rows) {
        try {
          replayed.apply(decodeCommand(command));
        } catch (err) {
          if (!(err instanceof DomainError)) throw err; // passed over by every replay too
        }
      }
      const stored = await db.query<{ body: string }>('SELECT body FROM snapshots WHERE journal_seq = $1', [through]);
      expect(decodeJson(stored.rows[0]!.body)).toEqual(replayed.snapshot());
    } finally {
      await db.end();
    }

    // A signed fill sent again after the takeover, one acknowledged by each leader, is refused as a repeat always was.
    const fillList = [...fills.values()];
    for (const f of [fillList[0]!, fillList[fillList.length - 1]!]) {
      const again = await call(gateway, 'POST', '/orders/fill/v2', f.body);
      expect([again.status, again.body.errorCode]).toEqual([409, 'FILL_ALREADY_SUBMITTED']);
    }
    const orderAgain = await call(gateway, 'POST', '/orders/new', {
      orders: [(await signedOrder(makers[0]!, config, { marketHash: markets[0]!, totalBetSize: ORDER_STAKE, percentageOdds: 55n * E18, isMakerBettingOutcomeOne: true })).body],
    });
    expect(orderAgain.status).toBe(200);
    seen = Math.max(seen, orderAgain.position);
    expect((await tradesOf(takers[0]!)).length).toBe(trades.get(takers[0]!)!.length);
  }, 90_000);

  it('takes over at once when started with no leader, in the state the journal gives', async () => {
    const before = await Promise.all([...makers, ...takers].map(balance));
    standby.child.kill('SIGKILL');
    await standby.exited;
    const next = (latest = spawnWatched({ ...sequencerEnv(), ODDEX_STANDBY: 'true' }));
    processes.push(next);
    await next.line(/standing by: following the journal/);
    const standingAt = Date.now();
    await next.line(/took over as the writer at position \d+/);
    const url = /listening on (http:\/\/[\d.]+:\d+)/.exec(await next.line(/listening on http/))![1]!;
    console.log(`takeover with no leader: listening ${Date.now() - standingAt} ms after standing by`);
    expect(await Promise.all([...makers, ...takers].map(balance))).toEqual(before);
    expect((await call(url, 'GET', `/balances/${takers[0]!.address}`)).body.data.balance).toBe(before[makers.length]!.balance.toString());
    const f = await signedFill(takers[0]!, config, { market: markets[0]!, isTakerBettingOutcomeOne: false, stakeWei: FILL_STAKE, desiredOdds: 45n * E18 });
    const filled = await call(gateway, 'POST', '/orders/fill/v2', f);
    expect([filled.status, filled.body.data?.totalFilled]).toEqual([200, FILL_STAKE.toString()]);
  }, 60_000);
  /**
   * Ends the leading writer's lock session (its connection to the database is terminated; the process lives on) once
   * a standby waits for the lock, which the server then grants it at once: a leader that lost its session takes the
   * lock back when nobody waits for it.
   */
  const endWriterSession = async () => {
    const db = new pg.Client({ connectionString: common.ODDEX_DATABASE_URL });
    await db.connect();
    try {
      const waiting = `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND objid = ${0x0dde_0002} AND NOT granted`;
      for (let i = 0; (await db.query(waiting)).rowCount === 0; i++) {
        if (i === 100) throw new Error('no standby waits for the writer lock');
        await new Promise((r) => setTimeout(r, 50));
      }
      await db.query(`SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND objid = ${0x0dde_0002} AND granted`);
    } finally {
      await db.end();
    }
  };
  it('steps a leader that lost its lock to a standby out of the gateways: not ready, commands go to the new writer', async () => {
    const old = latest;
    const oldUrl = /listening on (http:\/\/[\d.]+:\d+)/.exec(await old.line(/listening on http/))![1]!;
    const next = spawnWatched({ ...sequencerEnv(), ODDEX_STANDBY: 'true' });
    processes.push(next);
    await next.line(/standing by: following the journal/);
    // The leader's lock session ends while the process lives on (a network cut to the database, an operator's kill).
    await endWriterSession();
    await next.line(/took over as the writer at position \d+/);
    const nextUrl = /listening on (http:\/\/[\d.]+:\d+)/.exec(await next.line(/listening on http/))![1]!;
    const post = async () => {
      const o = await signedOrder(makers[1]!, config, { marketHash: markets[1]!, totalBetSize: ORDER_STAKE, percentageOdds: 55n * E18, isMakerBettingOutcomeOne: true });
      return call(gateway, 'POST', '/orders/new', { orders: [o.body] });
    };
    // The old leader learns it was superseded when its lock connection ends, before any command comes its way.
    await old.line(/stops answering gateways/);
    expect(old.lines(/stops answering gateways/)).toHaveLength(1);
    // Its settlement (the chain's one signer) stops with it.
    expect(old.lines(/settlement stopped: the writer that took the journal over settles/)).toHaveLength(1);
    // Not ready, saying why (not "starting or shutting down": it runs on, and must be restarted as a standby).
    const ready = await fetch(oldUrl + '/health/ready');
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ errorCode: 'NOT_READY', message: expect.stringMatching(/another writer took the journal over.*restart/) });
    const after = await Promise.all(Array.from({ length: 8 }, post));
    expect(after.map((r) => r.status)).toEqual(Array(8).fill(200));
    // Its writer figures are no longer the exchange's: NaN, not the journal position where it stopped (8 commands
    // behind now) and a projector lag below zero.
    const metrics = await (await fetch(oldUrl + '/metrics')).text();
    const figure = (name: string) => new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics)?.[1];
    expect([figure('oddex_journal_position'), figure('oddex_projector_lag_positions'), figure('oddex_projector_lag_seconds')]).toEqual(['Nan', 'Nan', 'Nan']);
    expect(Number(/^oddex_journal_position (\d+)$/m.exec(await (await fetch(nextUrl + '/metrics')).text())?.[1])).toBeGreaterThanOrEqual(Math.max(...after.map((r) => r.position)));
    latest = next;
  }, 60_000);
  it('a superseded leader without the settlement role does not log that it stopped settling (a settlement process settles)', async () => {
    const post = async () => {
      const o = await signedOrder(makers[2]!, config, { marketHash: markets[2] ?? markets[0]!, totalBetSize: ORDER_STAKE, percentageOdds: 55n * E18, isMakerBettingOutcomeOne: true });
      return call(gateway, 'POST', '/orders/new', { orders: [o.body] });
    };
    /** Ends the leader's writer session; `standby` takes over, and the old leader steps out. */
    const takeOver = async (old: WatchedExchange, standby: WatchedExchange) => {
      await standby.line(/standing by: following the journal/);
      await endWriterSession();
      await standby.line(/took over as the writer at position \d+/);
      await standby.line(/listening on http/);
      await old.line(/stops answering gateways/);
      expect(old.lines(/stops answering gateways/)).toHaveLength(1);
    };
    // A leader without the settlement role, as in `npm run cluster`, superseded in turn by a full one.
    const lean = spawnWatched({ ...sequencerEnv(), ODDEX_ROLES: 'sequencer,projector,realtime', ODDEX_STANDBY: 'true' });
    processes.push(lean);
    await takeOver(latest, lean);
    const full = spawnWatched({ ...sequencerEnv(), ODDEX_STANDBY: 'true' });
    processes.push(full);
    await takeOver(lean, full);
    expect(lean.lines(/settlement stopped/)).toEqual([]);
    expect((await post()).status).toBe(200);
  }, 90_000);
});
