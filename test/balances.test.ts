// GET /balances/:address answers from the read side (each address's last balance record, projected from the
// journal): right after the write that moved the funds, even with a slow projector, and on a data dir whose read
// models were projected before they kept balances (seeded once from the engine at start-up).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { startTestExchange, type TestExchange } from './helpers/server.js';
import { betTestConfig, createFixtureMarket, createSoccerLeague, fundedWallet } from './helpers/bets.js';
import { E18, USDC, signedFill, signedOrder } from './helpers/wallets.js';
import { READ_MODELS_FILE } from '../src/store/sqlite/db.js';

describe('balances from the read side', () => {
  let ex: TestExchange;
  let marketHash: string;

  beforeAll(async () => {
    ex = await startTestExchange({ ...betTestConfig(), demo: false, projectorDelayMs: 15 });
    const cat = await createSoccerLeague(ex);
    marketHash = (await createFixtureMarket(ex, cat, { type: 52 })).markets[0]!.marketHash;
  }, 60_000);
  afterAll(() => ex?.destroy());

  const balance = async (address: string) => {
    const r = await ex.get(`/balances/${address}`);
    expect(r.status).toBe(200);
    return r.body.data;
  };

  it('shows the exposure of an order and the pending stake of a fill to the read that follows each', async () => {
    const maker = await fundedWallet(ex, 1_000n * USDC);
    const taker = await fundedWallet(ex, 1_000n * USDC);
    const order = await signedOrder(maker, ex.ctx.config, { marketHash, totalBetSize: 100n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: true });
    expect((await ex.post('/orders/new', { orders: [order.body] })).body.data.statuses[order.hash]).toBe('OK');
    expect(await balance(maker.address)).toEqual({
      address: maker.address,
      baseToken: ex.ctx.config.baseTokenAddress,
      balance: (1_000n * USDC).toString(),
      escrowed: '0',
      openExposure: (100n * USDC).toString(),
      pendingTakerStake: '0',
    });
    // 30 USDC on outcome two at 60% takes 20 USDC of the maker's space.
    const fill = await signedFill(taker, ex.ctx.config, { market: marketHash, isTakerBettingOutcomeOne: false, stakeWei: 30n * USDC, desiredOdds: 60n * E18 });
    expect((await ex.post('/orders/fill/v2', fill)).status).toBe(200);
    const afterFill = await balance(taker.address);
    expect(afterFill.address).toBe(taker.address);
    // Pending until the chain confirms, then held in escrow: either way the read shows the fill's 30 USDC.
    expect(BigInt(afterFill.pendingTakerStake) + BigInt(afterFill.escrowed)).toBe(30n * USDC);
  });

  it('seeds the balances of read models projected before they were kept, from the engine at start-up', async () => {
    const maker = await fundedWallet(ex, 500n * USDC);
    const order = await signedOrder(maker, ex.ctx.config, { marketHash, totalBetSize: 50n * USDC, percentageOdds: 45n * E18, isMakerBettingOutcomeOne: false });
    expect((await ex.post('/orders/new', { orders: [order.body] })).body.data.statuses[order.hash]).toBe('OK');
    const before = await balance(maker.address);
    expect(before.openExposure).toBe((50n * USDC).toString());

    // The read models as an older version left them: no balance rows, never seeded.
    const dataDir = ex.dataDir;
    await ex.close();
    const db = new Database(join(dataDir, READ_MODELS_FILE));
    db.exec(`DELETE FROM rm_balances; DELETE FROM settings WHERE key = 'balances.seeded'`);
    db.close();
    ex = await startTestExchange({ ...betTestConfig(), demo: false }, { dataDir });
    expect(await balance(maker.address)).toEqual(before);
  });
});
