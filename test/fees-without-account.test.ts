// Fee rates without a fee account: on the local ledger as on the settlement contract (chainFeesOf), the zero address
// cannot be paid, so nothing is charged and /metadata reports rates of 0. The defaults are such a configuration (5% on
// parlays, no account): before, a winner paid the commission and the zero address was credited it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestExchange, type TestExchange } from './helpers/server.js';
import { E18, USDC } from './helpers/wallets.js';
import { balanceOf, betTestConfig, createFixtureMarket, createSoccerLeague, fillAndConfirm, fundedWallet, postOrder, type TestCatalogue } from './helpers/bets.js';

const ZERO = '0x0000000000000000000000000000000000000000';

describe('fee rates without a fee account', () => {
  let ex: TestExchange;
  let cat: TestCatalogue;

  beforeAll(async () => {
    ex = await startTestExchange({
      ...betTestConfig(),
      fees: { singlesBps: 500, parlaysBps: 500, cashoutBps: 300, affiliateShareBps: 0, account: ZERO },
    });
    cat = await createSoccerLeague(ex);
  });
  afterAll(async () => ex.destroy());

  it('reports rates of 0 in /metadata, since nothing can be charged', async () => {
    const meta = (await ex.get('/metadata')).body.data;
    expect(meta.feeAccount).toBe(ZERO);
    const token = Object.keys(meta.oracleFees)[0]!;
    expect(meta.oracleFees[token]).toEqual({ '0': '0', '1': '0', '2': '0', '3': '0' });
    expect(meta.cashoutFee).toBe('0');
  });

  it('pays a winner the whole pot, quotes a cash out without a fee, and credits the zero address nothing', async () => {
    const { markets } = await createFixtureMarket(ex, cat, { type: 52 });
    const market = markets[0]!.marketHash;
    const maker = await fundedWallet(ex, 100n * USDC);
    const hedger = await fundedWallet(ex, 100n * USDC);
    const taker = await fundedWallet(ex, 100n * USDC);
    // The taker backs outcome one with 10 USDC at 50% against 10 USDC of the maker's.
    await postOrder(ex, maker, { marketHash: market, totalBetSize: 20n * USDC, percentageOdds: 50n * E18, isMakerBettingOutcomeOne: false });
    await fillAndConfirm(ex, taker, { market, isTakerBettingOutcomeOne: true, stakeWei: 10n * USDC, desiredOdds: 50n * E18 });
    // A book to hedge against: the cash out's value is 10 USDC (20 owed, 10 staked on the hedge), and no fee on it.
    await postOrder(ex, hedger, { marketHash: market, totalBetSize: 20n * USDC, percentageOdds: 50n * E18, isMakerBettingOutcomeOne: true });
    const quote = await ex.get(`/cashout/quote?bettor=${taker.address}&marketHash=${market}`);
    expect(quote.body.data).toMatchObject({ stakeWei: (10n * USDC).toString(), fee: '0', amount: (10n * USDC).toString() });

    expect((await ex.admin('POST', `/admin/markets/${market}/report`, { outcome: 1 })).status).toBe(200);
    const settled = async () => BigInt((await balanceOf(ex, taker)).balance);
    for (let i = 0; i < 100 && (await settled()) === 90n * USDC; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await settled()).toBe(110n * USDC);
    expect((await ex.get(`/balances/${ZERO}`)).body.data.balance).toBe('0');
    const trades = (await ex.get(`/trades?bettor=${taker.address}`)).body.data.trades;
    expect(trades.map((t: { fee?: string }) => t.fee)).toEqual(['0']);
  });
});
