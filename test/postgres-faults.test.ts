// The exchange on PostgreSQL under database faults that leave the process running: it answers throughout (503s,
// never a frozen event loop) and trades on once the database takes writes again, leaving nothing it accepted behind
// (a fill's chain report refused during the outage is reported again without a restart).
import { describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { crashSuite, spawnExchange, type ChildExchange } from './helpers/process.js';
import { noPostgres, postgresForSuite, postgresSuite } from './helpers/postgres.js';
import { E18, USDC, newWallet, signedFill, signedOrder } from './helpers/wallets.js';

const ADMIN = 'pg-faults-test-admin';

describe.skipIf(noPostgres)(postgresSuite('the exchange on PostgreSQL, database faults'), () => {
  const server = postgresForSuite();
  const suite = crashSuite('pg-faults', ADMIN, 50);
  const { call } = suite;
  let running: ChildExchange | undefined;

  /** As the cluster's superuser, on its maintenance database. */
  async function asSuperuser(sql: string) {
    const admin = new pg.Client({ connectionString: server().url });
    await admin.connect();
    try {
      await admin.query(sql);
    } finally {
      await admin.end();
    }
  }
  const terminateSessions = (db: string) =>
    asSuperuser(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ${pg.escapeLiteral(db)} AND pid <> pg_backend_pid()`);

  /** A request answered within `ms`, or 'no answer'. */
  async function timed(path: string, ms: number): Promise<number | 'no answer'> {
    try {
      const res = await fetch(running!.url + path, { signal: AbortSignal.timeout(ms) });
      return res.status;
    } catch {
      return 'no answer';
    }
  }

  async function setUp() {
    const config = loadConfig({ ODDEX_EXECUTOR_ADDRESS: (await call('GET', '/metadata')).body.data.executorAddress }, []);
    const markets: string[] = (await call('GET', '/markets/active?type=52&pageSize=100')).body.data.markets
      .filter((m: { liveEnabled: boolean }) => !m.liveEnabled)
      .map((m: { marketHash: string }) => m.marketHash);
    const maker = newWallet();
    const taker = newWallet();
    for (const w of [maker, taker]) await call('POST', '/admin/faucet', { address: w.address, amount: (1000n * USDC).toString() }, true);
    return { config, markets, maker, taker };
  }

  it('keeps answering while the database refuses writes, then trades on', async () => {
    const url = await server().createDatabase('faults_read_only');
    // The projector lags, so the read models are behind the journal when the writer's store is healed.
    running = await suite.spawn({ ODDEX_DATABASE_URL: url, ODDEX_TEST_PROJECTOR_DELAY_MS: '500' });
    const { config, markets, maker } = await setUp();
    const order = (i: number) =>
      signedOrder(maker, config, { marketHash: markets[0]!, totalBetSize: 10n * USDC, percentageOdds: BigInt(40 + i) * E18, isMakerBettingOutcomeOne: true });
    const first = await order(0);
    expect((await call('POST', '/orders/new', { orders: [first.body] })).status).toBe(200);
    await asSuperuser('ALTER DATABASE faults_read_only SET default_transaction_read_only = on');
    await terminateSessions('faults_read_only');
    try {
      const refused = await call('POST', '/orders/new', { orders: [(await order(1)).body] });
      expect(refused.status).toBe(503);
      expect(refused.body.errorCode).toBe('STORAGE_UNAVAILABLE');
      // For 4 s: every readiness check answered within 2 s (the process is not frozen waiting for its projector), and
      // not ready, as every write is refused meanwhile.
      const answers: (number | 'no answer')[] = [];
      const writes: number[] = [];
      for (let i = 0, end = Date.now() + 4000; Date.now() < end; i++) {
        answers.push(await timed('/health/ready', 2000));
        writes.push((await call('POST', '/orders/new', { orders: [(await order(3 + (i % 8))).body] })).status);
        await sleep(200);
      }
      expect(answers.filter((a) => a === 'no answer')).toEqual([]);
      expect(writes.filter((s) => s !== 503)).toEqual([]);
      expect(answers.filter((a) => a !== 503)).toEqual([]);
    } finally {
      await asSuperuser('ALTER DATABASE faults_read_only RESET default_transaction_read_only');
      await terminateSessions('faults_read_only');
    }
    let status = 0;
    const again = await order(2);
    for (let attempt = 0; attempt < 100 && status !== 200; attempt++) {
      status = (await call('POST', '/orders/new', { orders: [again.body] })).status;
      if (status !== 200) await sleep(200);
    }
    expect(status).toBe(200);
    const stored = (await call('GET', `/orders?orderHashes=${first.hash},${again.hash}`)).body.data;
    expect(stored.length).toBe(2);
    running.child.kill('SIGTERM');
    await running.exited;
  }, 120_000);

  it('settles a fill whose chain report was refused while the database was away, without a restart', async () => {
    const url = await server().createDatabase('faults_pending_fill');
    running = await suite.spawn({ ODDEX_DATABASE_URL: url, ODDEX_CHAIN_CONFIRM_MS: '1500' });
    const { config, markets, maker, taker } = await setUp();
    const o = await signedOrder(maker, config, { marketHash: markets[0]!, totalBetSize: 10n * USDC, percentageOdds: 50n * E18, isMakerBettingOutcomeOne: true });
    expect((await call('POST', '/orders/new', { orders: [o.body] })).status).toBe(200);
    const fill = await signedFill(taker, config, { market: markets[0]!, isTakerBettingOutcomeOne: false, stakeWei: 2n * USDC, desiredOdds: 50n * E18, oddsSlippage: 0 });
    const filled = await call('POST', '/orders/fill/v2', fill);
    expect(filled.status).toBe(200);
    // Down before the chain's confirmation (1.5 s after the fill) and until well after it: the report is refused.
    await server().halt();
    await sleep(3000);
    await server().start();
    const tradeStatuses = async () => {
      const r = await call('GET', `/trades?bettor=${taker.address}`);
      return r.status === 200 ? (r.body.data.trades as { fillHash: string; tradeStatus: string }[]).filter((t) => t.fillHash === filled.body.data.fillHash).map((t) => t.tradeStatus) : [];
    };
    let statuses: string[] = [];
    for (const end = Date.now() + 20_000; Date.now() < end; await sleep(250)) {
      statuses = await tradeStatuses();
      if (statuses.length > 0 && statuses.every((s) => s === 'SUCCESS')) break;
    }
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.every((s) => s === 'SUCCESS')).toBe(true);
    const b = (await call('GET', `/balances/${taker.address}`)).body.data;
    expect(b.pendingTakerStake).toBe('0');
    expect(b.escrowed).toBe((2n * USDC).toString());
    running.child.kill('SIGTERM');
    await running.exited;
  }, 120_000);

  it('starts on PostgreSQL with a data dir that does not exist yet, as the README runs it (./data on a fresh checkout)', async () => {
    const url = await server().createDatabase('faults_fresh_data_dir');
    const dataDir = join(suite.dataDir, 'fresh', 'data');
    const { ODDEX_ADMIN_TOKEN: _token, ...env } = suite.env;
    running = await spawnExchange({ ...env, ODDEX_DATA_DIR: dataDir, ODDEX_DATABASE_URL: url });
    expect(existsSync(join(dataDir, 'admin-token'))).toBe(true);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    running.child.kill('SIGTERM');
    await running.exited;
  }, 60_000);
});
