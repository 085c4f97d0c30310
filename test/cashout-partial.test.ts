// A partial cash-out quote against the real server (GET /cashout/quote?partial=true), on the local ledger: the taker T
// backs outcome one with 30 USDC against M's 20 at 40% (owed 50 if one wins, 0 if not); its hedge, outcome two, needs
// a return of 50. The book first covers 31 of it (3 at 20% returning 15, 4 at 25% returning 16): without partial=true
// that is 400 INSUFFICIENT_SPACE as before; with it, the quote for those 31, whose fill (its stakeWei at its
// desiredOdds, signed as a cash out) pays exactly the quoted figures. A second partial cash out takes what a new maker
// adds (2.5 at 20% returning 12.5; what a void would return now bounds its payment), then a book covering the rest
// quotes the whole of it, as a quote without partial=true does; the market then settles. Balances and the position are checked to the wei after each step.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PrivateKeyAccount } from 'viem';
import { OddexClient, type CashOutQuote } from '@oddex/sdk';
import { startTestExchange, type TestExchange } from './helpers/server.js';
import { E18, USDC, newWallet } from './helpers/wallets.js';
import { betTestConfig, createFixtureMarket, createSoccerLeague, fillAndConfirm, fund, postOrder, type TestCatalogue } from './helpers/bets.js';

const FUNDS = 100n * USDC;
const CASHOUT_BPS = 100;
const feeAccount = newWallet().address;
/** Wei of a USDC amount written in decimals ("99.6"), exact. */
const u = (s: string): bigint => {
  const [whole, frac = ''] = s.split('.');
  return BigInt(whole!) * USDC + BigInt(frac.padEnd(6, '0'));
};

describe('GET /cashout/quote?partial=true', () => {
  let ex: TestExchange;
  let cat: TestCatalogue;
  const quote = (bettor: string, marketHash: string, extra = '') => ex.get(`/cashout/quote?bettor=${bettor}&marketHash=${marketHash}${extra}`);
  const held = async (address: string) => BigInt((await ex.get(`/balances/${address}`)).body.data.balance);

  beforeAll(async () => {
    ex = await startTestExchange({ ...betTestConfig(), fees: { singlesBps: 0, parlaysBps: 0, account: feeAccount, affiliateShareBps: 0, cashoutBps: CASHOUT_BPS } });
    cat = await createSoccerLeague(ex);
  });
  afterAll(async () => ex.destroy());

  /** A maker backing outcome one (the side T's hedge takes) at `odds` percent for `size` USDC. */
  async function hedger(market: string, odds: bigint, size: string): Promise<PrivateKeyAccount> {
    const h = newWallet();
    await fund(ex, h, FUNDS);
    await postOrder(ex, h, { marketHash: market, totalBetSize: u(size), percentageOdds: odds * E18, isMakerBettingOutcomeOne: true });
    return h;
  }

  it('quotes the part of the hedge the book covers, and a fill taking it pays exactly that; the rest is cashed out later', async () => {
    const { markets } = await createFixtureMarket(ex, cat, { type: 52 });
    const market = markets[0]!.marketHash;
    const [M, T] = [newWallet(), newWallet()];
    for (const w of [M, T]) await fund(ex, w, FUNDS);
    await postOrder(ex, M, { marketHash: market, totalBetSize: 20n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: false });
    await fillAndConfirm(ex, T, { market, isTakerBettingOutcomeOne: true, stakeWei: 30n * USDC, desiredOdds: 60n * E18 });
    const position = async () =>
      (await ex.get(`/positions?bettor=${T.address}&page=0&perPage=10`)).body.data.positions.find((p: { marketHash: string }) => p.marketHash === market);

    // Nothing on the book: refused, partial or not.
    for (const extra of ['', '&partial=false', '&partial=true']) {
      const res = await quote(T.address, market, extra);
      expect([extra, res.status, res.body.errorCode]).toEqual([extra, 400, 'INSUFFICIENT_SPACE']);
    }
    // 12 at 80% (3 at taker odds 20% returns 15) and 12 at 75% (4 at 25% returns 16): 31 of the 50.
    const H1 = await hedger(market, 80n, '12');
    const H2 = await hedger(market, 75n, '12');
    const whole = await quote(T.address, market);
    expect([whole.status, whole.body.errorCode, whole.body.message]).toEqual([400, 'INSUFFICIENT_SPACE', `the book returns ${u('31')} of the ${u('50')} the hedge needs`]);
    expect((await quote(T.address, market, '&partial=false')).body).toEqual(whole.body);
    // Only true or false.
    for (const bad of ['1', 'yes', 'TRUE', '']) {
      const res = await quote(T.address, market, `&partial=${bad}`);
      expect([bad, res.status, res.body.errorCode, res.body.details?.[0]?.field]).toEqual([bad, 400, 'INVALID_PARAMETER', 'partial']);
    }

    // Owed 50 if one wins, 31 if two (37 staked, on a void): 31 now; worth 31 - 7 = 24, 1% of it the fee (0.24).
    const first = await quote(T.address, market, '&partial=true');
    expect([first.status, first.body.data]).toEqual([
      200,
      {
        marketHash: market,
        isTakerBettingOutcomeOne: false,
        stakeWei: u('7').toString(),
        // The worse of the two levels: 25% is taken first.
        desiredOdds: (20n * E18).toString(),
        amount: u('23.76').toString(),
        fee: u('0.24').toString(),
        paidNow: u('30.76').toString(),
        partial: true,
        uncoveredWei: u('19').toString(),
      },
    ]);
    // The typed client asks the same with { partial: true }, amounts as bigint; without it, the refusal.
    const client = new OddexClient({ url: ex.url });
    const typed: CashOutQuote = await client.cashoutQuote(market, T.address, { partial: true });
    expect(typed).toEqual({ ...first.body.data, stakeWei: u('7'), desiredOdds: 20n * E18, amount: u('23.76'), fee: u('0.24'), paidNow: u('30.76'), uncoveredWei: u('19') });
    await expect(client.cashoutQuote(market, T.address)).rejects.toMatchObject({ errorCode: 'INSUFFICIENT_SPACE', status: 400 });
    // The fill with exactly the quote's stake and odds, signed as a cash out, takes both orders whole.
    const q1 = first.body.data;
    await fillAndConfirm(ex, T, { market, isTakerBettingOutcomeOne: false, stakeWei: BigInt(q1.stakeWei), desiredOdds: BigInt(q1.desiredOdds), cashOutTarget: market });
    expect(await held(T.address)).toBe(FUNDS - u('30') - u('7') + BigInt(q1.paidNow));
    expect([await held(T.address), await held(H1.address), await held(H2.address), await held(feeAccount)]).toEqual([u('93.76'), u('88'), u('88'), u('0.24')]);
    expect(await position()).toMatchObject({
      stakeOutcomeOne: u('30').toString(),
      stakeOutcomeTwo: u('7').toString(),
      payoutIfOutcomeOne: u('50').toString(),
      payoutIfOutcomeTwo: u('31').toString(),
      cashedOut: u('31').toString(),
      cashOutFees: u('0.24').toString(),
      escrow: u('6').toString(),
      refunds: '0',
    });
    // The rest is still a position: the book holds nothing for it now.
    expect((await quote(T.address, market, '&partial=true')).body.errorCode).toBe('INSUFFICIENT_SPACE');

    // More liquidity, still short: 10 at 80% (2.5 at 20% returns 12.5) of the 19 left. Owed 43.5 on two (50 on one),
    // 39.5 on a void, 31 of it paid: 8.5 now; worth 43.5 - 31 - 2.5 = 10, fee 0.1.
    const H3 = await hedger(market, 80n, '10');
    const second = (await quote(T.address, market, '&partial=true')).body.data;
    expect(second).toEqual({
      marketHash: market,
      isTakerBettingOutcomeOne: false,
      stakeWei: u('2.5').toString(),
      desiredOdds: (20n * E18).toString(),
      amount: u('9.9').toString(),
      fee: u('0.1').toString(),
      paidNow: u('8.4').toString(),
      partial: true,
      uncoveredWei: u('6.5').toString(),
    });
    await fillAndConfirm(ex, T, { market, isTakerBettingOutcomeOne: false, stakeWei: BigInt(second.stakeWei), desiredOdds: BigInt(second.desiredOdds), cashOutTarget: market });
    expect([await held(T.address), await held(H3.address), await held(feeAccount)]).toEqual([u('93.76') - u('2.5') + u('8.4'), u('100') - u('10'), u('0.34')]);
    expect(await position()).toMatchObject({
      payoutIfOutcomeOne: u('50').toString(),
      payoutIfOutcomeTwo: u('43.5').toString(),
      cashedOut: u('39.5').toString(),
      cashOutFees: u('0.34').toString(),
      escrow: '0',
    });

    // A book covering the rest: the whole quote, the same with partial=true, without the partial fields. 1.3 at 20%
    // returns the 6.5: owed 50 either way (39.5 paid), 40.8 on a void: 1.3 now; worth 10.5 - 1.3 = 9.2, fee 0.092.
    const H4 = await hedger(market, 80n, '100');
    const rest = await quote(T.address, market, '&partial=true');
    expect(rest.body).toEqual((await quote(T.address, market)).body);
    expect(rest.body.data).toEqual({
      marketHash: market,
      isTakerBettingOutcomeOne: false,
      stakeWei: u('1.3').toString(),
      desiredOdds: (20n * E18).toString(),
      amount: u('9.108').toString(),
      fee: u('0.092').toString(),
      paidNow: u('1.208').toString(),
    });
    await fillAndConfirm(ex, T, { market, isTakerBettingOutcomeOne: false, stakeWei: u('1.3'), desiredOdds: 20n * E18, cashOutTarget: market });
    expect(await held(T.address)).toBe(u('99.66') - u('1.3') + u('1.208'));
    expect((await quote(T.address, market, '&partial=true')).body.errorCode).toBe('NOTHING_TO_CASH_OUT');

    // Outcome one: the 50 less the 40.8 paid at once comes now; the hedgers win what they were matched for (H4 6.5 on
    // its 5.2). Every wallet's funds add up to what it was given.
    expect((await ex.admin('POST', `/admin/markets/${market}/report`, { outcome: 1 })).status).toBe(200);
    const final = [await held(T.address), await held(M.address), await held(H1.address), await held(H2.address), await held(H3.address), await held(H4.address), await held(feeAccount)];
    expect(final).toEqual([u('108.768'), u('80'), u('103'), u('104'), u('102.5'), u('101.3'), u('0.432')]);
    expect(final.reduce((a, b) => a + b)).toBe(6n * FUNDS);
    expect((await ex.get(`/balances/${T.address}`)).body.data.escrowed).toBe('0');
  });
});
