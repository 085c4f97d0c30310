// The operator's view of an account (GET /admin/accounts/:address) reads its shortfalls and posting restriction from
// the read side, as the projector left them from the journal's restrictionChanged records: each shortfall shows on
// the read that follows it, however slow the projector; a lift clears them; a restart shows the same; read models
// projected before restrictions were kept are seeded from the engine once. A maker's own bet as a taker is no
// shortfall. Runs on both stores.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import pg from 'pg';
import { join } from 'node:path';
import { startTestExchange, type TestExchange } from './helpers/server.js';
import { betTestConfig, createFixtureMarket, createSoccerLeague } from './helpers/bets.js';
import { E18, USDC, newWallet, signedFill, signedOrder } from './helpers/wallets.js';
import { READ_MODELS_FILE } from '../src/store/sqlite/db.js';

describe('account restrictions from the read side', () => {
  let ex: TestExchange;
  let marketHash: string;

  beforeAll(async () => {
    ex = await startTestExchange({ ...betTestConfig(), demo: false, projectorDelayMs: 15 });
    const cat = await createSoccerLeague(ex);
    marketHash = (await createFixtureMarket(ex, cat, { type: 52 })).markets[0]!.marketHash;
  }, 60_000);
  afterAll(() => ex?.destroy());

  const account = async (address: string) => {
    const r = await ex.admin('GET', `/admin/accounts/${address}`);
    expect(r.status).toBe(200);
    return r.body.data;
  };

  /** Posts an order the maker can fund, then moves the funds away: the order leaves the book, a shortfall is recorded. */
  async function shortfall(maker: ReturnType<typeof newWallet>): Promise<void> {
    await ex.admin('POST', '/admin/faucet', { address: maker.address, amount: (50n * USDC).toString() });
    const order = await signedOrder(maker, ex.ctx.config, { marketHash, totalBetSize: 50n * USDC, percentageOdds: 10n * E18, isMakerBettingOutcomeOne: false });
    expect((await ex.post('/orders/new', { orders: [order.body] })).body.data.inserted).toBe(1);
    const moved = await ex.admin('POST', '/admin/chain/transfer', { from: maker.address, to: newWallet().address, amount: (50n * USDC).toString() });
    expect(moved.status).toBe(200);
  }

  it('shows each shortfall and the restriction to the read that follows, clears them on a lift, and keeps them over a restart', async () => {
    const maker = newWallet();
    const threshold = ex.ctx.config.restriction.threshold;
    for (let n = 1; n <= threshold; n++) {
      await shortfall(maker);
      const seen = await account(maker.address);
      expect(seen.recentShortfalls).toHaveLength(n);
      expect(seen.restricted).toBe(n >= threshold);
    }
    const restricted = await account(maker.address);
    expect(restricted).toMatchObject({ address: maker.address, balance: '0', openOrders: 0, restricted: true });
    expect(Date.parse(restricted.restrictedUntil) - Date.now()).toBeGreaterThan(ex.ctx.config.restriction.durationMs - 60_000);
    const times = restricted.recentShortfalls.map((t: string) => Date.parse(t));
    expect(times).toEqual([...times].sort((a, b) => a - b));

    ex = await ex.restart();
    expect(await account(maker.address)).toEqual(restricted);

    const lifted = await ex.admin('POST', `/admin/accounts/${maker.address}/lift-restriction`);
    expect(lifted.body.data).toMatchObject({ restricted: false, restrictedUntil: null, recentShortfalls: [] });
    expect(await account(maker.address)).toMatchObject({ restricted: false, restrictedUntil: null, recentShortfalls: [] });
  });

  it('seeds the restrictions of read models projected before they were kept, from the engine at start-up', async () => {
    const maker = newWallet();
    await shortfall(maker);
    await shortfall(maker);
    const before = await account(maker.address);
    expect(before.recentShortfalls).toHaveLength(2);

    // The read models as an older version left them: no restriction rows, never seeded.
    const { dataDir, databaseUrl } = ex;
    await ex.close();
    const forget = `DELETE FROM rm_restrictions; DELETE FROM ${databaseUrl ? 'store_settings' : 'settings'} WHERE key = 'restrictions.seeded'`;
    if (databaseUrl) {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      await client.query(forget);
      await client.end();
    } else {
      const db = new Database(join(dataDir, READ_MODELS_FILE));
      db.exec(forget);
      db.close();
    }
    ex = await startTestExchange({ ...betTestConfig(), demo: false }, { dataDir, ...(databaseUrl ? { databaseUrl } : {}) });
    expect(await account(maker.address)).toEqual(before);
  });

  it("takes a maker's own bet though its open orders hold its balance; the newest of them leave the book, and no shortfall is recorded", async () => {
    const maker = newWallet();
    const other = newWallet();
    await ex.admin('POST', '/admin/faucet', { address: maker.address, amount: (50n * USDC).toString() });
    await ex.admin('POST', '/admin/faucet', { address: other.address, amount: (100n * USDC).toString() });
    const quote = (pct: bigint) => signedOrder(maker, ex.ctx.config, { marketHash, totalBetSize: 20n * USDC, percentageOdds: pct * E18, isMakerBettingOutcomeOne: false });
    const [older, newer] = [await quote(10n), await quote(11n)];
    expect((await ex.post('/orders/new', { orders: [older.body] })).body.data.inserted).toBe(1);
    expect((await ex.post('/orders/new', { orders: [newer.body] })).body.data.inserted).toBe(1);
    const offer = await signedOrder(other, ex.ctx.config, { marketHash, totalBetSize: 60n * USDC, percentageOdds: 50n * E18, isMakerBettingOutcomeOne: true });
    expect((await ex.post('/orders/new', { orders: [offer.body] })).body.data.inserted).toBe(1);

    // 40 of the maker's 50 are quoted; it bets 25 as a taker. The bet is taken, and the newest order (20) leaves the
    // book, so that the 20 still quoted and the 25 staked fit in the 50.
    const bet = await ex.post('/orders/fill/v2', await signedFill(maker, ex.ctx.config, { market: marketHash, isTakerBettingOutcomeOne: false, stakeWei: 25n * USDC, desiredOdds: 50n * E18 }));
    expect(bet.status).toBe(200);
    expect(bet.body.data.totalFilled).toBe('25000000');
    const orders = (await ex.get(`/orders?orderHashes=${older.hash},${newer.hash}`)).body.data as { orderHash: string; orderStatus: string; cancelReason?: string }[];
    const byHash = new Map(orders.map((o) => [o.orderHash, o]));
    expect(byHash.get(older.hash)).toMatchObject({ orderStatus: 'ACTIVE' });
    expect(byHash.get(newer.hash)).toMatchObject({ orderStatus: 'CANCELLED', cancelReason: 'insufficient_balance' });
    // The stake is pending or already confirmed on the chain: either way 25 of the 50 are spent.
    const funds = (await ex.get(`/balances/${maker.address}`)).body.data;
    expect([BigInt(funds.balance) - BigInt(funds.pendingTakerStake), funds.openExposure]).toEqual([25n * USDC, '20000000']);
    expect(await account(maker.address)).toMatchObject({ restricted: false, recentShortfalls: [] });

    // A bet the wallet cannot cover (the 25 left, and a wei) is still refused, and leaves the orders as they were.
    const tooBig = await ex.post('/orders/fill/v2', await signedFill(maker, ex.ctx.config, { market: marketHash, isTakerBettingOutcomeOne: false, stakeWei: 25n * USDC + 1n, desiredOdds: 50n * E18 }));
    expect(tooBig.status).toBe(400);
    expect(tooBig.body.errorCode).toBe('INSUFFICIENT_BALANCE');
    expect((await ex.get(`/orders?orderHashes=${older.hash}`)).body.data[0].orderStatus).toBe('ACTIVE');
  });
});
