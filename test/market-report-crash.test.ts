// One truth for a market's life: the engine's journaled report. The process stops right after the engine committed
// a report and before the catalogue recorded it; after the restart the market is SETTLED with that outcome, paid
// exactly once, and a report with another outcome is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestExchange, type TestExchange } from './helpers/server.js';
import { E18, USDC, newWallet, signedFill, signedOrder } from './helpers/wallets.js';

describe('a market report interrupted before the catalogue write', () => {
  let ex: TestExchange;
  const maker = newWallet();
  const taker = newWallet();

  beforeAll(async () => {
    ex = await startTestExchange({
      demo: true,
      chainConfirmationDelayMs: 20,
      bettingDelay: { preGameMs: 0, inPlayDefaultMs: 0, inPlayBySportMs: {}, inPlayByLeagueMs: {} },
      rateLimits: { ...(await import('../src/config.js')).defaultConfig().rateLimits, enabled: false },
    });
  });
  afterAll(async () => ex.destroy());

  const balance = async (address: string) => (await ex.get(`/balances/${address}`)).body.data;

  it('is reported exactly once after the restart, with the journaled outcome', async () => {
    const active = await ex.get('/markets/active?pageSize=100&type=52');
    const market: string = active.body.data.markets.find((m: { liveEnabled: boolean }) => !m.liveEnabled).marketHash;
    for (const w of [maker, taker]) await ex.admin('POST', '/admin/faucet', { address: w.address, amount: (100n * USDC).toString() });
    const order = await signedOrder(maker, ex.ctx.config, { marketHash: market, totalBetSize: 50n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: true });
    expect((await ex.post('/orders/new', { orders: [order.body] })).status).toBe(200);
    const fill = await signedFill(taker, ex.ctx.config, { market, isTakerBettingOutcomeOne: false, stakeWei: 30n * USDC, desiredOdds: 60n * E18 });
    expect((await ex.post('/orders/fill/v2', fill)).status).toBe(200);
    for (let i = 0; i < 100 && (await balance(taker.address)).escrowed !== '30000000'; i++) await sleep(20);

    // The catalogue write after the engine's report never happens, as if the process died in between.
    ex.ctx.catalogue.markSettled = () => {
      throw new Error('process died before the catalogue write');
    };
    expect((await ex.admin('POST', `/admin/markets/${market}/report`, { outcome: 2 })).status).toBe(500);
    ex = await ex.restart();

    const found = (await ex.get(`/markets/find?marketHashes=${market}`)).body.data;
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ marketHash: market, status: 'SETTLED', outcome: 2 });
    // Taker won 30 + 20 on outcome two; the maker's 20 is gone. Paid once.
    expect(await balance(taker.address)).toMatchObject({ balance: '120000000', escrowed: '0' });
    expect(await balance(maker.address)).toMatchObject({ balance: '80000000', escrowed: '0', openExposure: '0' });

    const again = await ex.admin('POST', `/admin/markets/${market}/report`, { outcome: 1 });
    expect(again.status).toBe(409);
    expect(again.body.errorCode).toBe('MARKET_ALREADY_REPORTED');
    expect(await balance(taker.address)).toMatchObject({ balance: '120000000', escrowed: '0' });
    const settled = (await ex.get(`/trades?bettor=${taker.address}&settled=true`)).body.data;
    expect(settled.count).toBe(1);
    expect(settled.trades[0]).toMatchObject({ outcome: 2, settleValue: 50 });
  }, 30_000);

  it('refuses in the engine a report of a reported market with another outcome', async () => {
    const active = await ex.get('/markets/active?pageSize=100&type=52');
    const market: string = active.body.data.markets.find((m: { liveEnabled: boolean }) => !m.liveEnabled).marketHash;
    await ex.ctx.trading.marketsReported([{ marketHash: market, outcome: 1 }]);
    await expect(ex.ctx.trading.marketsReported([{ marketHash: market, outcome: 2 }])).rejects.toMatchObject({ errorCode: 'MARKET_ALREADY_REPORTED' });
    // The same outcome again changes nothing and is accepted.
    await ex.ctx.trading.marketsReported([{ marketHash: market, outcome: 1 }]);
  });
});
