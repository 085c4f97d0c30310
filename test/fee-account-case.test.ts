// ODDEX_FEE_ACCOUNT written in lower case (any address spelling is valid): every fee goes to the one fee account that
// GET /balances shows, and funds are conserved to the wei. Cash-out fees were credited to the address as configured
// while settlement fees went to its checksummed spelling: two ledger entries for one address, and the cash-out fees
// disappeared from the fee account's balance at the next settlement.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestExchange, type TestExchange } from './helpers/server.js';
import { E18, USDC, newWallet } from './helpers/wallets.js';
import { betTestConfig, createFixtureMarket, createSoccerLeague, fillAndConfirm, fund, postOrder, waitFor } from './helpers/bets.js';

const feeAccount = newWallet().address;

describe('a fee account configured in lower case', () => {
  let ex: TestExchange;
  beforeAll(async () => {
    ex = await startTestExchange({
      ...betTestConfig(),
      fees: { singlesBps: 1000, parlaysBps: 1000, account: feeAccount.toLowerCase(), affiliateShareBps: 0, cashoutBps: 100 },
    });
  });
  afterAll(async () => ex.destroy());

  it('keeps the cash-out fee in the fee account after the market settles; every wei is accounted for', async () => {
    const cat = await createSoccerLeague(ex);
    const market = (await createFixtureMarket(ex, cat, { type: 52 })).markets[0]!.marketHash;
    const [M, T, H] = [newWallet(), newWallet(), newWallet()];
    for (const w of [M, T, H]) await fund(ex, w, 100n * USDC);
    const held = async (address: string) => (await ex.get(`/balances/${address}`)).body.data as { balance: string; escrowed: string };
    const total = async () => {
      let sum = 0n;
      for (const a of [M.address, T.address, H.address, feeAccount]) {
        const b = await held(a);
        sum += BigInt(b.balance) + BigInt(b.escrowed);
      }
      return sum;
    };
    // T backs outcome one with 30 at 60% against M; H offers outcome one at 80%: T cashes out with 10 on outcome two.
    await postOrder(ex, M, { marketHash: market, totalBetSize: 20n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: false });
    await fillAndConfirm(ex, T, { market, isTakerBettingOutcomeOne: true, stakeWei: 30n * USDC, desiredOdds: 60n * E18 });
    await postOrder(ex, H, { marketHash: market, totalBetSize: 100n * USDC, percentageOdds: 80n * E18, isMakerBettingOutcomeOne: true });
    await fillAndConfirm(ex, T, { market, isTakerBettingOutcomeOne: false, stakeWei: 10n * USDC, desiredOdds: 20n * E18, cashOutTarget: market });
    // The cash out pays 40 at once less its fee of 0.4 (1% of the 40 the hedge is worth).
    expect((await held(feeAccount)).balance).toBe('400000');
    expect(await total()).toBe(300n * USDC);

    expect((await ex.admin('POST', `/admin/markets/${market}/report`, { outcome: 1 })).status).toBe(200);
    // Settlement adds the 10% commissions on T's 10 and H's 10 of net winnings to the 0.4.
    const fee = await waitFor(() => held(feeAccount), (b) => b.balance !== '400000');
    expect(fee.balance).toBe('2400000');
    expect(await total()).toBe(300n * USDC);
  });
});
