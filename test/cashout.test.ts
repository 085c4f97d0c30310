// Cash out against the real server on the local ledger: a fill signed with cashOutTarget = its market hash hedges
// the taker's position and pays it at once what the position is owed in every result (outcome one, outcome two, a
// void) less the cash-out fee (1%, 20% of it to the affiliate); settlement pays the rest, less the 10% commission on
// net winnings. Every scenario starts from the same bet: the maker M backs outcome two with 20 USDC at 40%, the taker
// T outcome one with 30 USDC (owed 50 if it wins, 0 if not). The hedger H then quotes outcome one at 80% (T's bet is
// winning: the hedge takes outcome two at 20%, 10 returning 50) or at 30% (T's bet is losing: 35 at 70% returns 50).
// Balances of T, M, H, the fee account and the affiliate are checked to the wei after the cash out and after the
// report, full and partial cash outs, for a market T's bet wins, loses and one voided; then the refusals.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PrivateKeyAccount } from 'viem';
import { OddexClient } from '@oddex/sdk';
import { publicationsOut, renderForEveryChannel, startTestExchange, type TestExchange } from './helpers/server.js';
import { E18, USDC, newWallet, signedFill, type FillInput } from './helpers/wallets.js';
import { betTestConfig, createFixtureMarket, createSoccerLeague, fillAndConfirm, fund, postOrder, waitFor, type TestCatalogue } from './helpers/bets.js';

const FUNDS = 100n * USDC;
const CASHOUT_BPS = 100;
const FEE_BPS = 1000;
const SHARE_BPS = 2000;
const feeAccount = newWallet().address;
const affiliate = newWallet().address;
/** Wei of a USDC amount written in decimals ("99.6"), exact. */
const u = (s: string): bigint => {
  const [whole, frac = ''] = s.split('.');
  return BigInt(whole!) * USDC + BigInt(frac.padEnd(6, '0'));
};

interface Figures {
  T: string;
  M: string;
  H: string;
  fee: string;
  affiliate: string;
}

describe('cash out (local ledger)', () => {
  let ex: TestExchange;
  let cat: TestCatalogue;
  const held = async (address: string) => BigInt((await ex.get(`/balances/${address}`)).body.data.balance);
  const heldBy = async (w: { address: string }) => held(w.address);
  /** recent_trades_consolidated:global, every entry published. */
  const published: Record<string, unknown>[] = [];
  const cashOutFill = (w: PrivateKeyAccount, f: FillInput) => signedFill(w, ex.ctx.config, f).then((body) => ex.post('/orders/fill/v2', body));

  beforeAll(async () => {
    ex = await startTestExchange({
      ...betTestConfig(),
      fees: { singlesBps: FEE_BPS, parlaysBps: FEE_BPS, account: feeAccount, affiliateShareBps: SHARE_BPS, cashoutBps: CASHOUT_BPS },
      exchangeAffiliate: affiliate,
    });
    ex.ctx.bus.on('consolidatedTrades', (entries) => published.push(...(entries as Record<string, unknown>[])));
    renderForEveryChannel(ex);
    cat = await createSoccerLeague(ex);
  });
  afterAll(async () => ex.destroy());

  /** The opening bet, then H quotes outcome one at `hedgeOdds` percent. */
  async function opening(hedgeOdds: bigint) {
    const { markets } = await createFixtureMarket(ex, cat, { type: 52 });
    const market = markets[0]!.marketHash;
    const [M, T, H] = [newWallet(), newWallet(), newWallet()];
    for (const w of [M, T, H]) await fund(ex, w, FUNDS);
    await postOrder(ex, M, { marketHash: market, totalBetSize: 20n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: false });
    await fillAndConfirm(ex, T, { market, isTakerBettingOutcomeOne: true, stakeWei: 30n * USDC, desiredOdds: 60n * E18 });
    await postOrder(ex, H, { marketHash: market, totalBetSize: 100n * USDC, percentageOdds: hedgeOdds * E18, isMakerBettingOutcomeOne: true });
    return { market, M, T, H };
  }

  const scenarios: {
    name: string;
    hedgeOdds: bigint;
    stake: string;
    outcome: 0 | 1 | 2;
    /** Paid at once before the fee, and the fee. */
    cashOut: { amount: string; fee: string };
    afterCashOut: Figures;
    settled: Figures;
  }[] = [
    {
      // T owed 50 either way for 40 staked: 40 now (the void's figure) less 0.4 (1% of the 40 the hedge is worth), 10 at
      // settlement less the commission of 1 on the 10 profit; H wins 50 on 40 (commission 1), M loses 20.
      name: 'a full cash out of a winning bet, the bet then winning',
      hedgeOdds: 80n,
      stake: '10',
      outcome: 1,
      cashOut: { amount: '40', fee: '0.4' },
      afterCashOut: { T: '99.6', M: '80', H: '60', fee: '0.32', affiliate: '0.08' },
      settled: { T: '108.6', M: '80', H: '109', fee: '1.92', affiliate: '0.48' },
    },
    {
      // Half the hedge: owed 50 on one, 25 on two, 35 on a void: 25 now less 0.2 (1% of 20), 25 more if one wins,
      // less the commission of 1.5 on the 15 profit; H wins 25 on 20 (commission 0.5).
      name: 'a partial cash out of a winning bet, the bet then winning',
      hedgeOdds: 80n,
      stake: '5',
      outcome: 1,
      cashOut: { amount: '25', fee: '0.2' },
      afterCashOut: { T: '89.8', M: '80', H: '80', fee: '0.16', affiliate: '0.04' },
      settled: { T: '113.3', M: '80', H: '104.5', fee: '1.76', affiliate: '0.44' },
    },
    {
      // Owed 50 either way for 65 staked: all 50 now less 0.15 (1% of 15); nothing left for settlement. M wins 50 on 20
      // (commission 3), H loses its 15.
      name: 'a full cash out of a losing bet, the bet then losing',
      hedgeOdds: 30n,
      stake: '35',
      outcome: 2,
      cashOut: { amount: '50', fee: '0.15' },
      afterCashOut: { T: '84.85', M: '80', H: '85', fee: '0.12', affiliate: '0.03' },
      settled: { T: '84.85', M: '127', H: '85', fee: '2.52', affiliate: '0.63' },
    },
    {
      // 14 at 70% returns 20: owed 50 on one, 20 on two, 44 on a void: 20 now less 0.06 (1% of 6); outcome two pays no more.
      name: 'a partial cash out of a losing bet, the bet then losing',
      hedgeOdds: 30n,
      stake: '14',
      outcome: 2,
      cashOut: { amount: '20', fee: '0.06' },
      afterCashOut: { T: '75.94', M: '80', H: '94', fee: '0.048', affiliate: '0.012' },
      settled: { T: '75.94', M: '127', H: '94', fee: '2.448', affiliate: '0.612' },
    },
    {
      // The void returns the 40 staked: all paid at once already.
      name: 'a full cash out, the market then voided',
      hedgeOdds: 80n,
      stake: '10',
      outcome: 0,
      cashOut: { amount: '40', fee: '0.4' },
      afterCashOut: { T: '99.6', M: '80', H: '60', fee: '0.32', affiliate: '0.08' },
      settled: { T: '99.6', M: '100', H: '100', fee: '0.32', affiliate: '0.08' },
    },
    {
      // The void returns the 44 staked: 20 paid at once, 24 at settlement.
      name: 'a partial cash out, the market then voided',
      hedgeOdds: 30n,
      stake: '14',
      outcome: 0,
      cashOut: { amount: '20', fee: '0.06' },
      afterCashOut: { T: '75.94', M: '80', H: '94', fee: '0.048', affiliate: '0.012' },
      settled: { T: '99.94', M: '100', H: '100', fee: '0.048', affiliate: '0.012' },
    },
  ];

  for (const s of scenarios) {
    it(`${s.name}: paid to the wei, recorded in the statement, positions and trades`, async () => {
      const fee0 = await held(feeAccount);
      const aff0 = await held(affiliate);
      const { market, M, T, H } = await opening(s.hedgeOdds);
      const figures = async () => ({
        T: await heldBy(T),
        M: await heldBy(M),
        H: await heldBy(H),
        fee: (await held(feeAccount)) - fee0,
        affiliate: (await held(affiliate)) - aff0,
      });
      const expected = (f: Figures) => ({ T: u(f.T), M: u(f.M), H: u(f.H), fee: u(f.fee), affiliate: u(f.affiliate) });
      const quote = (await ex.get(`/cashout/quote?bettor=${T.address}&marketHash=${market}`)).body.data;
      const hedgeOdds = (100n - s.hedgeOdds) * E18;
      expect([quote.isTakerBettingOutcomeOne, quote.desiredOdds]).toEqual([false, hedgeOdds.toString()]);
      const fillHash = await fillAndConfirm(ex, T, { market, isTakerBettingOutcomeOne: false, stakeWei: u(s.stake), desiredOdds: hedgeOdds, cashOutTarget: market });
      expect(await figures()).toEqual(expected(s.afterCashOut));
      if (s.stake === (BigInt(quote.stakeWei) / USDC).toString()) {
        // The full quoted hedge: the quote said what the cash out pays at once, after its fee.
        expect(u(s.cashOut.amount) - u(s.cashOut.fee)).toBe(BigInt(quote.paidNow));
      }

      // The statement: the hedge's stake, then the cash out and its fee, the balance after each.
      const statement = (await ex.get(`/account/statement?bettor=${T.address}&page=0&perPage=100&sortAsc=true`)).body.data.entries;
      const tail = statement.slice(-3).map((e: { kind: string; amount: string; balance: string }) => [e.kind, e.amount, e.balance]);
      const balance = u(s.afterCashOut.T);
      expect(tail).toEqual([
        ['stake', (-u(s.stake)).toString(), (balance + u(s.cashOut.fee) - u(s.cashOut.amount)).toString()],
        ['cashout', u(s.cashOut.amount).toString(), (balance + u(s.cashOut.fee)).toString()],
        ['fee', (-u(s.cashOut.fee)).toString(), balance.toString()],
      ]);
      // The position: what the cash out paid, its fee, and the escrow left for settlement.
      const position = async () =>
        (await ex.get(`/positions?bettor=${T.address}&page=0&perPage=10`)).body.data.positions.find((p: { marketHash: string }) => p.marketHash === market);
      const open = await position();
      const stakes = 30n * USDC + u(s.stake);
      expect(open).toMatchObject({ cashedOut: u(s.cashOut.amount).toString(), cashOutFees: u(s.cashOut.fee).toString(), refunds: '0', settled: false });
      expect(open.escrow).toBe((stakes - u(s.cashOut.amount)).toString());
      // The hedge's trades carry the cash out; the opening bet's do not.
      const trades = (await ex.get(`/trades?bettor=${T.address}&pageSize=100`)).body.data.trades as { fillHash: string; cashOutAmount?: string; cashOutFee?: string }[];
      for (const t of trades) {
        const cash = t.fillHash === fillHash ? { cashOutAmount: u(s.cashOut.amount).toString(), cashOutFee: u(s.cashOut.fee).toString() } : {};
        expect({ cashOutAmount: t.cashOutAmount, cashOutFee: t.cashOutFee }).toEqual({ cashOutAmount: undefined, cashOutFee: undefined, ...cash });
      }
      // The consolidated entries show it too (in token units, as their other amounts), on REST sorted in SQL and in
      // memory, and on the realtime feed: the hedge's entry only, never the opening bet's nor the hedger's.
      const cashFields = { cashOutAmount: s.cashOut.amount, cashOutFee: s.cashOut.fee };
      const consolidatedOf = async (settled: boolean) => {
        for (const sortBy of ['betTime', 'gameLabel']) {
          const listed = (await ex.get(`/trades/consolidated?bettor=${T.address}&settled=${settled}&sortBy=${sortBy}&page=0&perPage=100&sortAsc=true`)).body.data.trades as Record<string, unknown>[];
          expect(listed.map((e) => [e.fillHash, e.cashOutAmount, e.cashOutFee]), sortBy).toEqual(
            listed.map((e) => [e.fillHash, ...(e.fillHash === fillHash ? [cashFields.cashOutAmount, cashFields.cashOutFee] : [undefined, undefined])]),
          );
          expect(listed.filter((e) => e.fillHash === fillHash)).toHaveLength(1);
        }
        const hedgerEntries = (await ex.get(`/trades/consolidated?bettor=${H.address}&settled=${settled}&page=0&perPage=100&sortAsc=true`)).body.data.trades as Record<string, unknown>[];
        expect(hedgerEntries.map((e) => e.cashOutAmount)).toEqual([undefined]);
        return (await ex.get(`/trades/consolidated?bettor=${T.address}&settled=${settled}&page=0&perPage=100&sortAsc=true`)).body.data.trades.find((e: { fillHash: string }) => e.fillHash === fillHash);
      };
      const openEntry = await consolidatedOf(false);
      expect(openEntry).toMatchObject(cashFields);
      const lastPublished = () => published.filter((e) => e.fillHash === fillHash && e.bettor === T.address).at(-1);
      await publicationsOut(ex);
      expect(lastPublished()).toEqual(openEntry);
      // No capital-efficiency refund for T after its cash out.
      expect((await ex.get(`/trades/portfolio/refunds?bettor=${T.address}&sortAsc=true&page=0&perPage=10`)).body.data.results).toEqual([]);

      expect((await ex.admin('POST', `/admin/markets/${market}/report`, { outcome: s.outcome })).status).toBe(200);
      expect(await figures()).toEqual(expected(s.settled));
      // Funds are conserved: what the three wallets were given is now theirs, the fee account's and the affiliate's.
      const f = await figures();
      expect(f.T + f.M + f.H + f.fee + f.affiliate).toBe(3n * FUNDS);
      const settled = await waitFor(position, (p) => p.settled === true);
      // Profit: everything paid (at once and at settlement) less the commission, the cash-out fee and the stakes.
      expect(BigInt(settled.settledProfit)).toBe(u(s.settled.T) - FUNDS);
      expect((await ex.get(`/balances/${T.address}`)).body.data.escrowed).toBe('0');
      const settledEntry = await consolidatedOf(true);
      expect(settledEntry).toMatchObject({ ...cashFields, settled: true });
      await publicationsOut(ex);
      expect(lastPublished()).toEqual(settledEntry);
    });
  }

  it('refuses cash outs that do not hedge the position, with their errorCodes, and changes nothing', async () => {
    const { market, T } = await opening(80n);
    const other = (await createFixtureMarket(ex, cat, { type: 52 })).markets[0]!.marketHash;
    const hedge = { market, isTakerBettingOutcomeOne: false, stakeWei: 10n * USDC, desiredOdds: 20n * E18, cashOutTarget: market };
    const refused = async (w: PrivateKeyAccount, f: FillInput) => {
      const res = await cashOutFill(w, f);
      return [res.status, res.body.errorCode];
    };
    const before = await heldBy(T);
    // Any target other than the zero hash and the fill's market hash.
    expect(await refused(T, { ...hedge, cashOutTarget: other })).toEqual([400, 'INVALID_CASHOUT_TARGET']);
    expect(await refused(T, { ...hedge, cashOutTarget: '0x' + 'ab'.repeat(32) })).toEqual([400, 'INVALID_CASHOUT_TARGET']);
    // The target is signed: a signature over the zero hash does not sign a cash out.
    const unsigned = await signedFill(T, ex.ctx.config, { ...hedge, cashOutTarget: undefined });
    const malformed = await ex.post('/orders/fill/v2', { ...unsigned, cashOutTarget: '0x12' });
    expect([malformed.status, malformed.body.errorCode]).toEqual([400, 'INVALID_PARAMETER']);
    const mismatch = await ex.post('/orders/fill/v2', { ...unsigned, cashOutTarget: market });
    expect([mismatch.status, mismatch.body.errorCode]).toEqual([403, 'TAKER_SIGNATURE_MISMATCH']);
    // No position; the wrong side; more than the hedge (11 at 20% returns 55 of the 50 it needs).
    expect(await refused(newWallet(), hedge)).toEqual([404, 'NO_POSITION']);
    expect(await refused(T, { ...hedge, isTakerBettingOutcomeOne: true, desiredOdds: 1n })).toEqual([400, 'CASHOUT_WRONG_SIDE']);
    expect(await refused(T, { ...hedge, stakeWei: 11n * USDC })).toEqual([400, 'CASHOUT_STAKE_TOO_HIGH']);
    expect(await heldBy(T)).toBe(before);
    // A full cash out leaves nothing to cash out.
    await fillAndConfirm(ex, T, hedge);
    expect(await refused(T, { ...hedge, stakeWei: 1n * USDC })).toEqual([409, 'NOTHING_TO_CASH_OUT']);
    // The zero hash is an ordinary fill.
    const { market: m2, T: t2 } = await opening(80n);
    await fillAndConfirm(ex, t2, { market: m2, isTakerBettingOutcomeOne: false, stakeWei: 4n * USDC, desiredOdds: 20n * E18, cashOutTarget: '0x' + '0'.repeat(64) });
    // ...which refunds the escrow the hedged part no longer needs: no cash out after that refund.
    expect((await ex.get(`/trades/portfolio/refunds?bettor=${t2.address}&sortAsc=true&page=0&perPage=10`)).body.data.results.length).toBe(1);
    expect(await refused(t2, { ...hedge, market: m2, cashOutTarget: m2, stakeWei: 2n * USDC })).toEqual([409, 'CASHOUT_AFTER_REFUND']);
  });

  it('quotes no hedge smaller than the taker minimum: such a fill would be refused, so the rest waits for settlement', async () => {
    const { market, T } = await opening(80n);
    // 9.5 of the 10 the hedge takes at 20%: 0.5 is left, below the 1 USDC taker minimum.
    await fillAndConfirm(ex, T, { market, isTakerBettingOutcomeOne: false, stakeWei: 9_500_000n, desiredOdds: 20n * E18, cashOutTarget: market });
    const quote = await ex.get(`/cashout/quote?bettor=${T.address}&marketHash=${market}`);
    expect([quote.status, quote.body]).toEqual([
      400,
      { status: 'failure', errorCode: 'TAKER_AMOUNT_TOO_LOW', message: 'the hedge stake 500000 is below the taker minimum 1000000' },
    ]);
  });

  it('a full cash out leaving a wei of rounding is flat: NOTHING_TO_CASH_OUT, not INSUFFICIENT_SPACE, with makers on the book', async () => {
    const { markets } = await createFixtureMarket(ex, cat, { type: 52 });
    const market = markets[0]!.marketHash;
    const [M, T, H] = [newWallet(), newWallet(), newWallet()];
    for (const w of [M, T, H]) await fund(ex, w, FUNDS);
    // 7 at 32.875% returns 21.292775 on outcome one (the maker's 14.292775, rounded down).
    await postOrder(ex, M, { marketHash: market, totalBetSize: 20n * USDC, percentageOdds: 67_125n * 10n ** 15n, isMakerBettingOutcomeOne: false });
    await fillAndConfirm(ex, T, { market, isTakerBettingOutcomeOne: true, stakeWei: 7n * USDC, desiredOdds: 32_875n * 10n ** 15n });
    // The hedge at 71.25%: 15.171102 returns 21.292774, a wei short of the position's 21.292775 (the stake rounds down).
    await postOrder(ex, H, { marketHash: market, totalBetSize: 50n * USDC, percentageOdds: 28_750n * 10n ** 15n, isMakerBettingOutcomeOne: true });
    const quote = (await ex.get(`/cashout/quote?bettor=${T.address}&marketHash=${market}`)).body.data;
    expect([quote.stakeWei, quote.desiredOdds]).toEqual(['15171102', String(71_250n * 10n ** 15n)]);
    await fillAndConfirm(ex, T, { market, isTakerBettingOutcomeOne: false, stakeWei: 15_171_102n, desiredOdds: 71_250n * 10n ** 15n, cashOutTarget: market });
    const position = (await ex.get(`/positions?bettor=${T.address}`)).body.data.positions[0];
    expect([position.payoutIfOutcomeOne, position.payoutIfOutcomeTwo]).toEqual(['21292775', '21292774']);
    // H still offers plenty: the wei left is rounding that no stake can hedge (one wei at 71.25% buys no maker wei).
    const again = await ex.get(`/cashout/quote?bettor=${T.address}&marketHash=${market}`);
    expect([again.status, again.body.errorCode]).toEqual([409, 'NOTHING_TO_CASH_OUT']);
  });

  it('generates no refund after a cash out: a later ordinary hedge is paid at settlement, to the wei', async () => {
    const { market, M, T, H } = await opening(80n);
    // Half the hedge as a cash out (25 at once, less 0.2), then the other half as an ordinary fill.
    await fillAndConfirm(ex, T, { market, isTakerBettingOutcomeOne: false, stakeWei: 5n * USDC, desiredOdds: 20n * E18, cashOutTarget: market });
    expect(await heldBy(T)).toBe(u('89.8'));
    await fillAndConfirm(ex, T, { market, isTakerBettingOutcomeOne: false, stakeWei: 5n * USDC, desiredOdds: 20n * E18 });
    // No refund: the 5 staked left the wallet and stays in escrow.
    expect(await heldBy(T)).toBe(u('84.8'));
    expect((await ex.get(`/trades/portfolio/refunds?bettor=${T.address}&sortAsc=true&page=0&perPage=10`)).body.data.results).toEqual([]);
    expect((await ex.get(`/balances/${T.address}`)).body.data.escrowed).toBe(u('15').toString());
    const fee0 = await held(feeAccount);
    expect((await ex.admin('POST', `/admin/markets/${market}/report`, { outcome: 2 })).status).toBe(200);
    // Outcome two pays 50 on 40 staked: 25 more (50 less the 25 paid), less the commission of 1 on the profit of 10.
    expect([await heldBy(T), await heldBy(M), await heldBy(H)]).toEqual([u('108.8'), u('127'), u('60')]);
    // Commission: T 1, M 3; 80% of it to the fee account.
    expect((await held(feeAccount)) - fee0).toBe(u('3.2'));
  });

  it('the typed client cashes out: quote, then the fill signed with cashOutTarget, in part or whole', async () => {
    const { market, T } = await opening(80n);
    const client = new OddexClient({ url: ex.url, signer: T });
    await expect(client.cashOut(market, { stakeWei: 11n * USDC })).rejects.toThrow(RangeError);
    const partial = await client.cashOut(market, { stakeWei: 5n * USDC });
    expect([partial.totalFilled, partial.quote.stakeWei]).toEqual([5n * USDC, 10n * USDC]);
    await waitFor(() => heldBy(T), (b) => b === u('89.8'));
    // The rest of the hedge, as quoted now: owed 50 on either outcome, 40 on a void, 25 of it paid already.
    const rest = await client.cashOut(market);
    expect([rest.totalFilled, rest.quote.paidNow]).toEqual([5n * USDC, u('14.8')]);
    // 40 in all paid at once (25, then 15), less 0.2 and 0.2 of fees.
    await waitFor(() => heldBy(T), (b) => b === u('99.6'));
    const position = await waitFor(
      async () => (await client.positions()).positions[0]!,
      (p) => p.cashedOut === 40n * USDC,
    );
    expect([position.cashedOut, position.cashOutFees]).toEqual([40n * USDC, u('0.4')]);
    await expect(client.cashOut(market)).rejects.toMatchObject({ errorCode: 'NOTHING_TO_CASH_OUT' });
  });
});
