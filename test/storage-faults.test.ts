// A journal write that fails (another process holds the SQLite write lock past the busy timeout) refuses the batch
// with 503 STORAGE_FAILED, leaves no trace of it in memory or on disk, and trading resumes without a restart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { startTestExchange, type TestExchange } from './helpers/server.js';
import { E18, USDC, newWallet, signedOrder } from './helpers/wallets.js';

describe('storage failures heal', () => {
  let ex: TestExchange;
  let marketHash: string;
  const maker = newWallet();

  beforeAll(async () => {
    ex = await startTestExchange({
      demo: true,
      rateLimits: { ...(await import('../src/config.js')).defaultConfig().rateLimits, enabled: false },
    });
    const active = await ex.get('/markets/active?pageSize=100&type=52');
    marketHash = active.body.data.markets.find((m: { liveEnabled: boolean }) => !m.liveEnabled).marketHash;
    expect((await ex.admin('POST', '/admin/faucet', { address: maker.address, amount: (100n * USDC).toString() })).status).toBe(200);
  });
  afterAll(async () => ex.destroy());

  const order = () => signedOrder(maker, ex.ctx.config, { marketHash, totalBetSize: 20n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: true });
  const balance = async () => (await ex.get(`/balances/${maker.address}`)).body.data;

  it('refuses the batch whose commit failed, shows nothing of it, and accepts the next order once writes succeed', async () => {
    const before = await balance();
    const refused = await order();
    // A second connection takes the write lock and keeps it while the server tries to commit.
    const intruder = new Database(join(ex.dataDir, 'oddex.sqlite'));
    intruder.exec('BEGIN IMMEDIATE');
    let res;
    try {
      res = await ex.post('/orders/new', { orders: [refused.body] });
    } finally {
      intruder.exec('ROLLBACK');
      intruder.close();
    }
    expect(res.status).toBe(503);
    expect(res.body.errorCode).toBe('STORAGE_FAILED');

    // Memory holds what disk holds: the refused order exists nowhere, the exposure it took is gone.
    expect((await ex.get(`/orders?orderHashes=${refused.hash}`)).body.data).toEqual([]);
    expect((await ex.get(`/orders?maker=${maker.address}`)).body.data).toEqual([]);
    expect(await balance()).toEqual(before);

    // No restart: the next order is accepted and durable.
    const accepted = await order();
    const ok = await ex.post('/orders/new', { orders: [accepted.body] });
    expect(ok.status).toBe(200);
    expect(ok.body.data.statuses).toEqual({ [accepted.hash]: 'OK' });
    expect((await ex.get(`/orders?maker=${maker.address}`)).body.data.map((o: { orderHash: string }) => o.orderHash)).toEqual([accepted.hash]);
    expect((await balance()).openExposure).toBe((20n * USDC).toString());
    expect((await ex.get('/health/ready')).status).toBe(200);

    // Other writes refused by the disk answer 503 with an errorCode too, and succeed once the disk is back.
    const locker = new Database(join(ex.dataDir, 'oddex.sqlite'));
    locker.exec('BEGIN IMMEDIATE');
    let keyRes;
    try {
      keyRes = await ex.admin('POST', '/admin/api-keys', { address: maker.address });
    } finally {
      locker.exec('ROLLBACK');
      locker.close();
    }
    expect([keyRes.status, keyRes.body.errorCode]).toEqual([503, 'STORAGE_UNAVAILABLE']);
    expect((await ex.admin('POST', '/admin/api-keys', { address: maker.address })).status).toBe(200);

    ex = await ex.restart();
    expect((await ex.get(`/orders?orderHashes=${refused.hash},${accepted.hash}`)).body.data.map((o: { orderHash: string }) => o.orderHash)).toEqual([
      accepted.hash,
    ]);
  }, 40_000);
});
