// Fees against the real server: a 5% commission on each bettor's net winnings per market, taken at settlement and
// paid to the fee account, 20% of it to the affiliate the trades name. A win, a loss, a void, a quarter line (each leg
// a market of its own) and a bettor holding both sides of a market (charged on the net, not on the winning side), each
// checked to the wei on the bettors' balances, the fee and affiliate accounts (addresses read from /metadata), the
// trades' and consolidated entries' additive `fee` and their net returns; then GET /admin/fees and its bad inputs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PrivateKeyAccount } from 'viem';
import { OddexClient } from '@oddex/sdk';
import { loadConfig } from '../src/config.js';
import { startTestExchange, type TestExchange } from './helpers/server.js';
import { E18, USDC, newWallet } from './helpers/wallets.js';
import { balanceOf, betTestConfig, createFixtureMarket, createSoccerLeague, fillAndConfirm, fund, postOrder, type TestCatalogue } from './helpers/bets.js';

const FUNDS = 100n * USDC;
const FEE_BPS = 500;
const SHARE_BPS = 2000;
const feeAccount = newWallet().address;
const affiliate = newWallet().address;

type TradeItem = { marketHash: string; maker: boolean; fee?: string; netReturn: string; settleNetReturnValue: string; settled: boolean };
type Entry = { marketHash: string; fee?: string; netReturn: string; settleNetReturnValue: string; isQuarterLineParent: boolean };

describe('fees on net winnings', () => {
  let ex: TestExchange;
  let cat: TestCatalogue;
  let accounts: { fee: string; affiliate: string };
  let bothSides = '';
  /** What the fee and affiliate accounts should hold after the scenarios so far. */
  const expected = { fee: 0n, affiliate: 0n };
  /** Fee and affiliate share charged per market. */
  const feesByMarket = new Map<string, [bigint, bigint]>();

  const balances = async (w: PrivateKeyAccount) => {
    const b = await balanceOf(ex, w);
    return { balance: BigInt(b.balance), escrowed: BigInt(b.escrowed) };
  };
  const heldBy = async (address: string) => BigInt((await ex.get(`/balances/${address}`)).body.data.balance);
  const tradesOf = async (w: PrivateKeyAccount): Promise<TradeItem[]> => (await ex.get(`/trades?bettor=${w.address}&pageSize=100`)).body.data.trades;
  const entriesOf = async (w: PrivateKeyAccount): Promise<Entry[]> => {
    const res = await ex.get(`/trades/consolidated?bettor=${w.address}&settled=true&page=0&perPage=100&sortAsc=true`);
    expect(res.status).toBe(200);
    return res.body.data.trades;
  };
  const report = async (marketHash: string, outcome: 0 | 1 | 2) =>
    expect((await ex.admin('POST', `/admin/markets/${marketHash}/report`, { outcome })).status).toBe(200);
  /** Books a fee charged in a market: 20% of it to the affiliate (rounded down), the rest to the fee account. */
  const charged = (marketHash: string, fee: bigint) => {
    const share = (fee * BigInt(SHARE_BPS)) / 10_000n;
    expected.affiliate += share;
    expected.fee += fee - share;
    const [fees, shares] = feesByMarket.get(marketHash) ?? [0n, 0n];
    feesByMarket.set(marketHash, [fees + fee, shares + share]);
  };
  const expectAccounts = async () => expect([await heldBy(accounts.fee), await heldBy(accounts.affiliate)]).toEqual([expected.fee, expected.affiliate]);

  beforeAll(async () => {
    // Set as an operator sets them.
    const settings = loadConfig({
      ODDEX_FEE_SINGLES_BPS: String(FEE_BPS),
      ODDEX_FEE_PARLAYS_BPS: String(FEE_BPS),
      ODDEX_FEE_ACCOUNT: feeAccount,
      ODDEX_AFFILIATE_SHARE_BPS: String(SHARE_BPS),
      ODDEX_AFFILIATE_ADDRESS: affiliate,
    });
    ex = await startTestExchange({ ...betTestConfig(), fees: settings.fees, exchangeAffiliate: settings.exchangeAffiliate });
    cat = await createSoccerLeague(ex);
    const meta = (await ex.get('/metadata')).body.data;
    accounts = { fee: meta.feeAccount, affiliate: meta.exchangeAffiliate.address };
    expect(accounts).toEqual({ fee: feeAccount, affiliate });
  });
  afterAll(async () => ex.destroy());

  /** A moneyline bet: the maker backs outcome two with 20 USDC at 40%, the taker outcome one with 30 USDC at 60%. */
  async function moneylineBet() {
    const { markets } = await createFixtureMarket(ex, cat, { type: 52 });
    const market = markets[0]!.marketHash;
    const maker = newWallet();
    const taker = newWallet();
    await fund(ex, maker, FUNDS);
    await fund(ex, taker, FUNDS);
    await postOrder(ex, maker, { marketHash: market, totalBetSize: 20n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: false });
    await fillAndConfirm(ex, taker, { market, isTakerBettingOutcomeOne: true, stakeWei: 30n * USDC, desiredOdds: 60n * E18 });
    return { market, maker, taker };
  }

  const scenarios = [
    // Outcome one: the taker wins 20 (fee 1), the maker loses 20 (no fee).
    { name: 'a win', outcome: 1, takerFee: 1_000_000n, makerFee: 0n, takerNet: '19', makerNet: '-20' },
    // Outcome two: the maker wins 30 (fee 1.5), the taker loses 30.
    { name: 'a loss', outcome: 2, takerFee: 0n, makerFee: 1_500_000n, takerNet: '-30', makerNet: '28.5' },
    // Void: stakes back, nobody profits, nobody pays.
    { name: 'a void', outcome: 0, takerFee: 0n, makerFee: 0n, takerNet: '0', makerNet: '0' },
  ] as const;

  for (const s of scenarios) {
    it(`charges ${s.name} to the wei`, async () => {
      const { market, maker, taker } = await moneylineBet();
      await report(market, s.outcome);
      charged(market, s.takerFee + s.makerFee);
      const pay = (net: string) => FUNDS + BigInt(Math.round(Number(net) * 1e6));
      expect(await balances(taker)).toEqual({ balance: pay(s.takerNet), escrowed: 0n });
      expect(await balances(maker)).toEqual({ balance: pay(s.makerNet), escrowed: 0n });
      await expectAccounts();

      const [takerTrade] = await tradesOf(taker);
      const [makerTrade] = await tradesOf(maker);
      expect(takerTrade).toMatchObject({ settled: true, fee: s.takerFee.toString(), netReturn: s.takerNet, settleNetReturnValue: s.takerNet });
      expect(makerTrade).toMatchObject({ settled: true, fee: s.makerFee.toString(), netReturn: s.makerNet, settleNetReturnValue: s.makerNet });
      // The typed client reads the fee as bigint wei.
      const [sdkTrade] = (await new OddexClient({ url: ex.url }).trades({ bettor: taker.address })).trades;
      expect(sdkTrade!.fee).toBe(s.takerFee);
      const [takerEntry] = await entriesOf(taker);
      expect(takerEntry).toMatchObject({ fee: (Number(s.takerFee) / 1e6).toString(), netReturn: s.takerNet, settleNetReturnValue: s.takerNet });

      // Positions and the statement show the commission: profit after it, and the payout then the fee as movements
      // whose running balance ends at the balance.
      for (const [w, fee, net, stake] of [
        [taker, s.takerFee, s.takerNet, 30n * USDC],
        [maker, s.makerFee, s.makerNet, 20n * USDC],
      ] as const) {
        const [position] = (await ex.get(`/positions?bettor=${w.address}`)).body.data.positions;
        expect(position).toMatchObject({ marketHash: market, settled: true, fees: fee.toString(), settledProfit: String(pay(net) - FUNDS) });
        const entries: { kind: string; amount: string; balance: string }[] = (await ex.get(`/account/statement?bettor=${w.address}&sortAsc=true`)).body.data.entries;
        const payout = pay(net) - FUNDS + stake + fee;
        expect(entries.map((e) => [e.kind, e.amount])).toEqual([
          ['deposit', FUNDS.toString()],
          ['stake', (-stake).toString()],
          ...(payout !== 0n ? [['payout', payout.toString()]] : []),
          ...(fee !== 0n ? [['fee', (-fee).toString()]] : []),
        ]);
        expect(entries.at(-1)!.balance).toBe(pay(net).toString());
      }
    });
  }

  it("enters the fees on the fee account's and the affiliate's statements as fees of their markets", async () => {
    for (const [address, income] of [[accounts.fee, expected.fee], [accounts.affiliate, expected.affiliate]] as const) {
      const entries: { kind: string; amount: string; balance: string; marketHash?: string }[] = (await ex.get(`/account/statement?bettor=${address}&sortAsc=true`)).body.data.entries;
      const byMarket = new Map<string, bigint>();
      for (const e of entries) byMarket.set(e.marketHash ?? '', (byMarket.get(e.marketHash ?? '') ?? 0n) + BigInt(e.amount));
      expect(entries.every((e) => e.kind === 'fee')).toBe(true);
      expect(entries.at(-1)!.balance).toBe(income.toString());
      const earned = ([fees, shares]: [bigint, bigint]) => (address === accounts.fee ? fees - shares : shares);
      expect(byMarket).toEqual(new Map([...feesByMarket].map(([market, pair]) => [market, earned(pair)] as const).filter(([, amount]) => amount !== 0n)));
    }
  });

  it('charges each leg of a quarter line as a market of its own', async () => {
    // Line -0.75, 3-1: both legs win. The taker stakes 10.000001 split 5.000001 / 5.000000 over the legs, which pay
    // 8.333335 and 8.333333: profits 3.333334 and 3.333333, 5% of each rounded down is 166666.
    const { exchangeEventId, markets } = await createFixtureMarket(ex, cat, { type: 3, line: -0.75 });
    const [parent, lower, higher] = markets.map((m) => m.marketHash) as [string, string, string];
    const maker = newWallet();
    const taker = newWallet();
    await fund(ex, maker, FUNDS);
    await fund(ex, taker, FUNDS);
    await postOrder(ex, maker, { marketHash: parent, totalBetSize: 20n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: false });
    await fillAndConfirm(ex, taker, { market: parent, isTakerBettingOutcomeOne: true, stakeWei: 10_000_001n, desiredOdds: 60n * E18 });
    expect((await ex.admin('POST', `/admin/fixtures/${exchangeEventId}/result`, { teamOneScore: 3, teamTwoScore: 1 })).status).toBe(200);
    charged(lower, 166_666n);
    charged(higher, 166_666n);

    expect(await balances(taker)).toEqual({ balance: FUNDS - 10_000_001n + 8_333_335n + 8_333_333n - 333_332n, escrowed: 0n });
    expect(await balances(maker)).toEqual({ balance: FUNDS - 6_666_667n, escrowed: 0n });
    await expectAccounts();
    const trades = await tradesOf(taker);
    expect(trades.map((t) => [t.marketHash, t.fee, t.netReturn]).sort()).toEqual(
      [
        [lower, '166666', '3.166668'],
        [higher, '166666', '3.166667'],
      ].sort(),
    );
    // The parent entry sums its legs.
    const entries = await entriesOf(taker);
    expect(entries.map((e) => [e.marketHash, e.fee, e.netReturn])).toEqual([
      [parent, '0.333332', '6.333335'],
      [lower, '0.166666', '3.166668'],
      [higher, '0.166666', '3.166667'],
    ]);
  });

  it('charges a bettor holding both sides on its net winnings in the market, not on the winning side', async () => {
    const { markets } = await createFixtureMarket(ex, cat, { type: 52 });
    const market = markets[0]!.marketHash;
    const both = newWallet();
    const taker = newWallet();
    const maker = newWallet();
    for (const w of [both, taker, maker]) await fund(ex, w, FUNDS);
    // `both` backs outcome two as a maker (20 against the taker's 30)...
    await postOrder(ex, both, { marketHash: market, totalBetSize: 20n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: false });
    await fillAndConfirm(ex, taker, { market, isTakerBettingOutcomeOne: true, stakeWei: 30n * USDC, desiredOdds: 60n * E18 });
    // ...then outcome one as a taker (10 against the maker's 10 at even odds): a refund returns the escrow it no longer needs.
    await postOrder(ex, maker, { marketHash: market, totalBetSize: 10n * USDC, percentageOdds: 50n * E18, isMakerBettingOutcomeOne: false });
    await fillAndConfirm(ex, both, { market, isTakerBettingOutcomeOne: true, stakeWei: 10n * USDC, desiredOdds: 50n * E18 });
    await report(market, 2);
    // Outcome two: `both` wins 30 on one side and loses 10 on the other: 5% of its net 20 is 1 (not 1.5 on the 30).
    // The maker wins 10: fee 0.5. The taker loses.
    charged(market, 1_000_000n);
    charged(market, 500_000n);
    bothSides = market;
    expect(await balances(both)).toEqual({ balance: FUNDS + 19n * USDC, escrowed: 0n });
    expect(await balances(maker)).toEqual({ balance: FUNDS + 9_500_000n, escrowed: 0n });
    expect(await balances(taker)).toEqual({ balance: FUNDS - 30n * USDC, escrowed: 0n });
    await expectAccounts();
    // The fee falls on the winning trade; the trades' net returns add up to the position's.
    const trades = await tradesOf(both);
    expect(trades.map((t) => [t.maker, t.fee, t.netReturn]).sort()).toEqual(
      [
        [true, '1000000', '29'],
        [false, '0', '-10'],
      ].sort(),
    );
  });

  it('keeps every fee across a restart, also when the fee settings changed meanwhile', async () => {
    const before = [await heldBy(accounts.fee), await heldBy(accounts.affiliate)];
    const feesBefore = (await ex.admin('GET', '/admin/fees')).body.data;
    await ex.close();
    // No fee on anything now: what was charged stays charged (the rates rode on the journaled reports).
    ex = await startTestExchange(
      { ...betTestConfig(), fees: { singlesBps: 0, parlaysBps: 0, account: feeAccount, affiliateShareBps: 0, cashoutBps: 0 }, exchangeAffiliate: affiliate },
      { dataDir: ex.dataDir },
    );
    expect([await heldBy(accounts.fee), await heldBy(accounts.affiliate)]).toEqual(before);
    expect((await ex.admin('GET', '/admin/fees')).body.data).toEqual(feesBefore);
  });

  it('GET /admin/fees sums the fees per day and market, and refuses bad ranges', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const res = await ex.admin('GET', `/admin/fees?from=${today}&to=${today}`);
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect([data.feeAccount, data.from, data.to]).toEqual([feeAccount, today, today]);
    // One row per market that charged: the both-sides market charged two bettors, the others one.
    const rows = [...feesByMarket]
      .filter(([, [fee]]) => fee > 0n)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([marketHash, [fee, share]]) => ({
        day: today,
        marketHash,
        fees: fee.toString(),
        affiliateFees: share.toString(),
        feeAccountFees: (fee - share).toString(),
        charges: marketHash === bothSides ? 2 : 1,
      }));
    expect(data.days).toEqual(rows);
    expect(data.totals).toEqual({ fees: (expected.fee + expected.affiliate).toString(), affiliateFees: expected.affiliate.toString(), feeAccountFees: expected.fee.toString() });
    // The default range ends today.
    expect((await ex.admin('GET', '/admin/fees')).body.data.totals).toEqual(data.totals);

    for (const query of ['from=2026-02-30&to=2026-03-01', 'from=2026-03-02&to=2026-03-01', 'from=2020-01-01&to=2026-01-01']) {
      const bad = await ex.admin('GET', `/admin/fees?${query}`);
      expect([query, bad.status, bad.body.errorCode]).toEqual([query, 400, 'INVALID_DATE_RANGE']);
    }
    const malformed = await ex.admin('GET', '/admin/fees?from=yesterday');
    expect([malformed.status, malformed.body.errorCode]).toEqual([400, 'INVALID_PARAMETER']);
    expect((await ex.get('/admin/fees')).status).toBe(401);
  });
});
