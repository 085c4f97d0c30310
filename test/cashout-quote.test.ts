// GET /cashout/quote against the real server: a taker backs outcome one (30 USDC against a maker's 20: owed 50 if
// it wins, 0 if not); the book then moves and the quote prices the hedge, taking outcome two for a return of 50,
// against the makers now on the book, best odds first, to the wei. Taking the quoted fill makes the position pay the
// same whichever outcome wins; the refund that follows at once rules out a later cash out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PrivateKeyAccount } from 'viem';
import { OddexClient } from '@oddex/sdk';
import { startTestExchange, type TestExchange } from './helpers/server.js';
import { E18, USDC, newWallet } from './helpers/wallets.js';
import { balanceOf, betTestConfig, createFixtureMarket, createSoccerLeague, fillAndConfirm, fund, postOrder, type TestCatalogue } from './helpers/bets.js';

const FUNDS = 100n * USDC;
const CASHOUT_BPS = 100;

describe('GET /cashout/quote', () => {
  let ex: TestExchange;
  let cat: TestCatalogue;
  const quote = (bettor: string, marketHash: string) => ex.get(`/cashout/quote?bettor=${bettor}&marketHash=${marketHash}`);

  beforeAll(async () => {
    ex = await startTestExchange({ ...betTestConfig(), fees: { singlesBps: 0, parlaysBps: 500, account: newWallet().address, affiliateShareBps: 0, cashoutBps: CASHOUT_BPS } });
    cat = await createSoccerLeague(ex);
    expect((await ex.get('/metadata')).body.data.cashoutFee).toBe(String(CASHOUT_BPS));
  });
  afterAll(async () => ex.destroy());

  /** The taker's position (outcome one: 30 staked, 50 owed if it wins) and makers on outcome one at `levels`. */
  async function positionAndBook(levels: { odds: bigint; size: bigint }[]) {
    const { markets } = await createFixtureMarket(ex, cat, { type: 52 });
    const market = markets[0]!.marketHash;
    const maker = newWallet();
    const taker = newWallet();
    await fund(ex, maker, 1000n * USDC);
    await fund(ex, taker, FUNDS);
    await postOrder(ex, maker, { marketHash: market, totalBetSize: 20n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: false });
    await fillAndConfirm(ex, taker, { market, isTakerBettingOutcomeOne: true, stakeWei: 30n * USDC, desiredOdds: 60n * E18 });
    const hedgers: PrivateKeyAccount[] = [];
    for (const l of levels) {
      const hedger = newWallet();
      await fund(ex, hedger, 1000n * USDC);
      await postOrder(ex, hedger, { marketHash: market, totalBetSize: l.size, percentageOdds: l.odds, isMakerBettingOutcomeOne: true });
      hedgers.push(hedger);
    }
    return { market, maker, taker, hedgers };
  }

  const fee = (value: bigint) => (value * BigInt(CASHOUT_BPS)) / 10_000n;
  const min = (a: bigint, b: bigint) => (a < b ? a : b);
  const scenarios = [
    // Outcome one is now 80% likely: the hedge takes outcome two at 20%: 10 returns 50; worth 40 (more than the 30 staked).
    { name: 'a winning position', levels: [{ odds: 80n * E18, size: 100n * USDC }], stake: 10n * USDC, odds: 20n * E18, value: 40n * USDC },
    // Now 30%: the hedge takes outcome two at 70%: 35 returns 50; worth 15.
    { name: 'a losing position', levels: [{ odds: 30n * E18, size: 100n * USDC }], stake: 35n * USDC, odds: 70n * E18, value: 15n * USDC },
    // Two levels: 5 at 25% returns 20 (the whole better order), then 6 at 20% returns the 30 left; worth 50 - 11.
    {
      name: 'a position hedged over two levels of the book',
      levels: [
        { odds: 80n * E18, size: 100n * USDC },
        { odds: 75n * E18, size: 15n * USDC },
      ],
      stake: 11n * USDC,
      odds: 20n * E18,
      value: 39n * USDC,
    },
  ] as const;

  for (const s of scenarios) {
    it(`quotes ${s.name} at the current book, to the wei, and the quoted fill hedges it`, async () => {
      const { market, taker } = await positionAndBook([...s.levels]);
      const res = await quote(taker.address, market);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({
        marketHash: market,
        isTakerBettingOutcomeOne: false,
        stakeWei: s.stake.toString(),
        desiredOdds: s.odds.toString(),
        amount: (s.value - fee(s.value)).toString(),
        fee: fee(s.value).toString(),
        // A cash out pays at once what the hedged position is owed in every result: 50, or its stakes on a void.
        paidNow: (min(50n * USDC, 30n * USDC + s.stake) - fee(s.value)).toString(),
      });
      // The typed client answers the same, amounts as bigint.
      expect(await new OddexClient({ url: ex.url }).cashoutQuote(market, taker.address)).toEqual({
        marketHash: market,
        isTakerBettingOutcomeOne: false,
        stakeWei: s.stake,
        desiredOdds: s.odds,
        amount: s.value - fee(s.value),
        fee: fee(s.value),
        paidNow: min(50n * USDC, 30n * USDC + s.stake) - fee(s.value),
      });
      // Taking the quoted fill: the position now pays 50 whichever outcome wins, for 30 + stake staked.
      await fillAndConfirm(ex, taker, { market, isTakerBettingOutcomeOne: false, stakeWei: s.stake, desiredOdds: s.odds });
      const afterHedge = BigInt((await balanceOf(ex, taker)).balance);
      const report = await ex.admin('POST', `/admin/markets/${market}/report`, { outcome: s.name === 'a losing position' ? 1 : 2 });
      expect(report.status).toBe(200);
      const settled = await balanceOf(ex, taker);
      // From the balance after the bet (FUNDS - 30), the hedge is worth exactly the quoted value (before its fee).
      expect(BigInt(settled.balance) - (FUNDS - 30n * USDC)).toBe(s.value);
      expect(settled.escrowed).toBe('0');
      expect(afterHedge).toBeLessThanOrEqual(BigInt(settled.balance));
    });
  }

  it('refuses a cash out after a refund, without a position, and when the book cannot hedge', async () => {
    const { market, maker, taker } = await positionAndBook([{ odds: 80n * E18, size: 100n * USDC }]);
    // The maker backs outcome two (owed 50 if it wins): its hedge takes outcome one, and nobody offers it.
    const thin = await quote(maker.address, market);
    expect([thin.status, thin.body.errorCode]).toEqual([400, 'INSUFFICIENT_SPACE']);
    const none = await quote(newWallet().address, market);
    expect([none.status, none.body.errorCode]).toEqual([404, 'NO_POSITION']);
    // A hedge taken by an ordinary fill refunds the escrow the flat position no longer needs: no cash out after it.
    await fillAndConfirm(ex, taker, { market, isTakerBettingOutcomeOne: false, stakeWei: 10n * USDC, desiredOdds: 20n * E18 });
    const refunded = (await ex.get(`/trades/portfolio/refunds?bettor=${taker.address}&sortAsc=true&page=0&perPage=10`)).body.data.results;
    expect(refunded.length).toBe(1);
    const after = await quote(taker.address, market);
    expect([after.status, after.body.errorCode]).toEqual([409, 'CASHOUT_AFTER_REFUND']);
    // Bad input.
    for (const q of [`bettor=0x12&marketHash=${market}`, `bettor=${taker.address}&marketHash=0x12`, `bettor=${taker.address}`, `marketHash=${market}`]) {
      const bad = await ex.get(`/cashout/quote?${q}`);
      expect([q, bad.status, bad.body.errorCode]).toEqual([q, 400, 'INVALID_PARAMETER']);
    }
  });
});
