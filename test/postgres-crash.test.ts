// The exchange on PostgreSQL, killed: SIGKILL of the exchange in the middle of a stream of orders and fills, and
// `pg_ctl stop -m immediate` of the database under the same stream. Every acknowledged change survives, funds are
// conserved to the wei, trading resumes by itself once the database is back, and a second exchange on the same
// database refuses to start.
import { describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { loadConfig, type Config } from '../src/config.js';
import { crashSuite, spawnExchange, type ChildExchange } from './helpers/process.js';
import { noPostgres, postgresForSuite, postgresSuite } from './helpers/postgres.js';
import type { PrivateKeyAccount } from 'viem';
import { E18, USDC, newWallet, signedFill, signedOrder } from './helpers/wallets.js';

type TestWallet = PrivateKeyAccount;

const ADMIN = 'pg-crash-test-admin';

describe.skipIf(noPostgres)(postgresSuite('the exchange on PostgreSQL, crashed'), () => {
  const server = postgresForSuite();
  const suite = crashSuite('pg-crash', ADMIN, 50);
  let running: ChildExchange | undefined;
  let url = '';

  const start = async () => (running = await suite.spawn({ ODDEX_DATABASE_URL: url }));

  /** Makers and takers funded, the deployment's config, and pre-game markets. */
  async function setUp() {
    const { call } = suite;
    const config = loadConfig({ ODDEX_EXECUTOR_ADDRESS: (await call('GET', '/metadata')).body.data.executorAddress }, []);
    const markets: string[] = (await call('GET', '/markets/active?type=52&pageSize=100')).body.data.markets
      .filter((m: { liveEnabled: boolean }) => !m.liveEnabled)
      .map((m: { marketHash: string }) => m.marketHash);
    const makers = [newWallet(), newWallet()];
    const takers = [newWallet(), newWallet()];
    for (const w of [...makers, ...takers]) await call('POST', '/admin/faucet', { address: w.address, amount: (1000n * USDC).toString() }, true);
    return { config, markets, makers, takers, minted: 4n * 1000n * USDC };
  }

  /** Fires pre-signed orders and fills without waiting, calling `midway` at the 40th order; returns what was acknowledged. */
  async function stream(config: Config, markets: string[], makers: TestWallet[], takers: TestWallet[], midway: () => unknown) {
    const { call } = suite;
    const orders = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        signedOrder(makers[i % 2]!, config, { marketHash: markets[i % 5]!, totalBetSize: 10n * USDC, percentageOdds: BigInt(40 + (i % 8)) * E18, isMakerBettingOutcomeOne: true }),
      ),
    );
    const fills = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        signedFill(takers[i % 2]!, config, { market: markets[i % 5]!, isTakerBettingOutcomeOne: false, stakeWei: 3n * USDC, desiredOdds: 52n * E18, oddsSlippage: 10 }),
      ),
    );
    const ackedOrders: string[] = [];
    const ackedFills: string[] = [];
    const refusals: string[] = [];
    // Space for every fill, written before the stream: a fill racing the first orders of its market (on a loaded
    // machine its signature may be checked first) would otherwise find none.
    for (const [i, marketHash] of markets.slice(0, 5).entries()) {
      const o = await signedOrder(makers[i % 2]!, config, { marketHash, totalBetSize: 30n * USDC, percentageOdds: 45n * E18, isMakerBettingOutcomeOne: true });
      expect((await call('POST', '/orders/new', { orders: [o.body] })).body.data.statuses[o.hash]).toBe('OK');
      ackedOrders.push(o.hash);
    }
    const inflight: Promise<unknown>[] = [];
    for (let i = 0; i < orders.length; i++) {
      inflight.push(
        call('POST', '/orders/new', { orders: [orders[i]!.body] }).then(
          (r) => (r.body.data?.statuses[orders[i]!.hash] === 'OK' ? ackedOrders.push(orders[i]!.hash) : refusals.push(r.body.errorCode)),
          () => undefined,
        ),
      );
      if (i % 2 === 1) {
        inflight.push(
          call('POST', '/orders/fill/v2', fills[i >> 1]).then(
            (r) => (r.status === 200 ? ackedFills.push(r.body.data.fillHash) : refusals.push(r.body.errorCode)),
            () => undefined,
          ),
        );
      }
      if (i === 40) await midway();
      await sleep(2);
    }
    await Promise.allSettled(inflight);
    return { ackedOrders, ackedFills, refusals };
  }

  /** Every acknowledged order and fill is on the read side, and every wei minted is in a wallet or in escrow. */
  async function expectKept(acked: { ackedOrders: string[]; ackedFills: string[] }, wallets: TestWallet[], minted: bigint) {
    const { call } = suite;
    const stored = (await call('GET', `/orders?orderHashes=${acked.ackedOrders.join(',')}&perPage=1000`)).body.data;
    expect(stored.map((o: { orderHash: string }) => o.orderHash).sort()).toEqual([...acked.ackedOrders].sort());
    const trades: { fillHash: string }[] = (await call('GET', '/trades?startDate=0&pageSize=300')).body.data.trades;
    for (const fillHash of acked.ackedFills) expect(trades.filter((t) => t.fillHash === fillHash).length).toBeGreaterThanOrEqual(2);
    // Pending fills confirm after the restart; then the books balance.
    await sleep(300);
    let total = 0n;
    for (const w of wallets) {
      const b = (await call('GET', `/balances/${w.address}`)).body.data;
      total += BigInt(b.balance) + BigInt(b.escrowed);
    }
    expect(total).toBe(minted);
  }

  it('keeps every acknowledged order and fill across a SIGKILL of the exchange, and its read models equal a rebuild', async () => {
    url = await server().createDatabase();
    await start();
    const { config, markets, makers, takers, minted } = await setUp();
    const acked = await stream(config, markets, makers, takers, () => running!.child.kill('SIGKILL'));
    await running!.exited;
    expect(acked.ackedOrders.length).toBeGreaterThan(5);
    expect(acked.ackedOrders.length).toBeLessThan(60);
    await start();
    await expectKept(acked, [...makers, ...takers], minted);

    // The read models after the crash equal a fresh rebuild from the journal: emptied, then projected at start.
    const { call } = suite;
    const readSide = async () => ({
      trades: (await call('GET', '/trades?startDate=0&pageSize=300')).body.data,
      orders: await Promise.all(makers.map(async (m) => (await call('GET', `/orders?maker=${m.address}&perPage=1000`)).body.data)),
      consolidated: await Promise.all(
        takers.map(async (t) => (await call('GET', `/trades/consolidated?bettor=${t.address}&settled=false&page=0&perPage=100&sortAsc=true`)).body.data),
      ),
      statements: await Promise.all(takers.map(async (t) => (await call('GET', `/account/statement?bettor=${t.address}`)).body.data)),
      balances: await Promise.all([...makers, ...takers].map(async (w) => (await call('GET', `/balances/${w.address}`)).body.data)),
    });
    const afterCrash = await readSide();
    running!.child.kill('SIGTERM');
    await running!.exited;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename LIKE 'rm\\_%' AND tablename <> 'rm_position'");
      await admin.query(`TRUNCATE ${rows.map((r) => r.name).join(', ')}`);
      await admin.query('UPDATE rm_position SET journal_seq = 0');
    } finally {
      await admin.end();
    }
    await start();
    expect(await readSide()).toEqual(afterCrash);

    // One exchange writes a database: a second one started on it refuses, and says why.
    await expect(spawnExchange({ ...suite.env, ODDEX_DATABASE_URL: url, ODDEX_DATA_DIR: `${suite.dataDir}-second` })).rejects.toThrow(/another writer holds this database/);
    running!.child.kill('SIGTERM');
    await running!.exited;
  }, 180_000);

  it('keeps every acknowledged change when the database stops (immediate) under load, and trades on once it is back, without a restart', async () => {
    url = await server().createDatabase();
    await start();
    const { config, markets, makers, takers, minted } = await setUp();
    const acked = await stream(config, markets, makers, takers, () => server().crash());
    // Refused while the database was away, never a 500; then the database returns and the same process trades on.
    expect(acked.refusals.length).toBeGreaterThan(0);
    expect(new Set(acked.refusals)).toEqual(new Set(['STORAGE_UNAVAILABLE']));
    await server().start();
    const { call } = suite;
    const again = await signedOrder(makers[0]!, config, { marketHash: markets[0]!, totalBetSize: 10n * USDC, percentageOdds: 45n * E18, isMakerBettingOutcomeOne: true });
    let status = 0;
    for (let attempt = 0; attempt < 100 && status !== 200; attempt++) {
      const r = await call('POST', '/orders/new', { orders: [again.body] });
      status = r.status;
      if (status !== 200) await sleep(100);
    }
    expect(status).toBe(200);
    acked.ackedOrders.push(again.hash);
    await expectKept(acked, [...makers, ...takers], minted);
    running!.child.kill('SIGTERM');
    expect(await running!.exited).toBe(0);
  }, 180_000);
});
