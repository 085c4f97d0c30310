// GET /positions and GET /account/statement against the real server: a maker and a taker trade two markets, one with
// offsetting fills that pay capital-efficiency refunds, then that market settles. Positions and the statement must
// match the trades (GET /trades), the refunds and the balances (GET /balances/:address) to the wei, page like the
// other listings, survive a restart, and refuse bad input with its errorCode.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestExchange, type TestExchange } from './helpers/server.js';
import { E18, USDC, newWallet } from './helpers/wallets.js';
import { balanceOf, betTestConfig, createFixtureMarket, createSoccerLeague, fillAndConfirm, fund, postOrder } from './helpers/bets.js';
import type { PrivateKeyAccount } from 'viem';

type Rest = Record<string, unknown>;
const M = (n: number) => (BigInt(n * 1_000_000)).toString();
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('positions and the funds statement', () => {
  let ex: TestExchange;
  const maker = newWallet();
  const taker = newWallet();
  let x: string;
  let y: string;

  const positions = async (w: PrivateKeyAccount, query = ''): Promise<{ positions: Rest[]; count: number }> => {
    const res = await ex.get(`/positions?bettor=${w.address}${query}`);
    expect(res.status).toBe(200);
    return res.body.data;
  };
  const statement = async (w: PrivateKeyAccount, query = '&sortAsc=true'): Promise<{ entries: Rest[]; count: number }> => {
    const res = await ex.get(`/account/statement?bettor=${w.address}${query}`);
    expect(res.status).toBe(200);
    return res.body.data;
  };

  beforeAll(async () => {
    ex = await startTestExchange(betTestConfig());
    const cat = await createSoccerLeague(ex);
    x = (await createFixtureMarket(ex, cat, { type: 52 })).markets[0]!.marketHash;
    y = (await createFixtureMarket(ex, cat, { type: 52 })).markets[0]!.marketHash;
    await fund(ex, maker, 100n * USDC);
    await fund(ex, taker, 100n * USDC);
    // X, fill 1: the maker backs outcome one at 50% (stake 20), the taker outcome two with 20.
    await postOrder(ex, maker, { marketHash: x, totalBetSize: 30n * USDC, percentageOdds: 50n * E18, isMakerBettingOutcomeOne: true });
    await fillAndConfirm(ex, taker, { market: x, isTakerBettingOutcomeOne: false, stakeWei: 20n * USDC, desiredOdds: 50n * E18 });
    // X, fill 2: the maker backs outcome two at 40% (stake 10), the taker outcome one with 15. Each position now
    // risks less than it holds: the maker 5 of 30, the taker 10 of 35; both are refunded 25.
    await postOrder(ex, maker, { marketHash: x, totalBetSize: 30n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: false });
    await fillAndConfirm(ex, taker, { market: x, isTakerBettingOutcomeOne: true, stakeWei: 15n * USDC, desiredOdds: 60n * E18 });
    // Y: the maker backs outcome one at 50% (stake 10), the taker outcome two with 10.
    await postOrder(ex, maker, { marketHash: y, totalBetSize: 20n * USDC, percentageOdds: 50n * E18, isMakerBettingOutcomeOne: true });
    await fillAndConfirm(ex, taker, { market: y, isTakerBettingOutcomeOne: false, stakeWei: 10n * USDC, desiredOdds: 50n * E18 });
    // X settles: outcome one wins. The maker is paid 40 (less the 25 refunded), the taker 25 (all refunded already).
    expect((await ex.admin('POST', `/admin/markets/${x}/report`, { outcome: 1 })).status).toBe(200);
  });
  afterAll(async () => ex.destroy());

  it('lists each position to the wei, the last traded first', async () => {
    const unsettledY = { marketHash: y, settled: false, escrow: M(10), refunds: '0', cashedOut: '0', cashOutFees: '0', pendingStake: '0', lastTradeTime: expect.stringMatching(ISO) };
    expect(await positions(maker)).toEqual({
      count: 2,
      positions: [
        { ...unsettledY, exchangeEventId: expect.any(String), baseToken: expect.any(String), stakeOutcomeOne: M(10), stakeOutcomeTwo: '0', payoutIfOutcomeOne: M(20), payoutIfOutcomeTwo: '0', payoutIfVoid: M(10) },
        {
          marketHash: x, exchangeEventId: expect.any(String), baseToken: expect.any(String), lastTradeTime: expect.stringMatching(ISO),
          stakeOutcomeOne: M(20), stakeOutcomeTwo: M(10), pendingStake: '0', payoutIfOutcomeOne: M(40), payoutIfOutcomeTwo: M(25), payoutIfVoid: M(30),
          escrow: '0', refunds: M(25), cashedOut: '0', cashOutFees: '0', settled: true, outcome: 1, payout: M(40), fees: '0', settledProfit: M(10),
        },
      ],
    });
    expect(await positions(taker)).toEqual({
      count: 2,
      positions: [
        { ...unsettledY, exchangeEventId: expect.any(String), baseToken: expect.any(String), stakeOutcomeOne: '0', stakeOutcomeTwo: M(10), payoutIfOutcomeOne: '0', payoutIfOutcomeTwo: M(20), payoutIfVoid: M(10) },
        {
          marketHash: x, exchangeEventId: expect.any(String), baseToken: expect.any(String), lastTradeTime: expect.stringMatching(ISO),
          stakeOutcomeOne: M(15), stakeOutcomeTwo: M(20), pendingStake: '0', payoutIfOutcomeOne: M(25), payoutIfOutcomeTwo: M(40), payoutIfVoid: M(35),
          escrow: '0', refunds: M(25), cashedOut: '0', cashOutFees: '0', settled: true, outcome: 1, payout: M(25), fees: '0', settledProfit: M(-10),
        },
      ],
    });
  });

  it('agrees with the trades, the refunds and the balances', async () => {
    for (const w of [maker, taker]) {
      const trades: Rest[] = (await ex.get(`/trades?bettor=${w.address}&pageSize=100`)).body.data.trades;
      const { positions: list } = await positions(w);
      for (const p of list) {
        const mine = trades.filter((t) => t.marketHash === p.marketHash && t.tradeStatus === 'SUCCESS');
        const sum = (one: boolean) => mine.filter((t) => t.bettingOutcomeOne === one).reduce((s, t) => s + BigInt(t.stake as string), 0n);
        expect([p.stakeOutcomeOne, p.stakeOutcomeTwo]).toEqual([sum(true).toString(), sum(false).toString()]);
        expect(p.payoutIfVoid).toBe((sum(true) + sum(false)).toString());
        const refunds = (await ex.get(`/trades/portfolio/refunds?bettor=${w.address}&marketHash=${p.marketHash}&maker=${w === maker}&sortAsc=true&page=0&perPage=10`)).body.data.results;
        const refunded = refunds.flatMap((g: { events: { amount?: string }[] }) => g.events).length;
        expect(refunded > 0).toBe(p.refunds !== '0');
      }
      const balance = await balanceOf(ex, w);
      // What the positions hold in escrow is the wallet's escrow.
      expect(list.reduce((s, p) => s + BigInt(p.escrow as string), 0n).toString()).toBe(balance.escrowed);
      // Funded 100: what it has now, in the wallet and in escrow, is 100 plus the settled profit (an open position
      // has not won or lost yet).
      const profit = list.reduce((s, p) => s + BigInt((p.settledProfit as string | undefined) ?? '0'), 0n);
      expect(BigInt(balance.balance) + BigInt(balance.escrowed)).toBe(100n * USDC + profit);
    }
  });

  it('lists every movement of funds with its running balance, ending at the balance', async () => {
    const entry = (kind: string, amount: number, balance: number, extra: Rest = {}) => ({
      id: expect.any(Number), kind, amount: M(amount), balance: M(balance), time: expect.stringMatching(ISO), ...extra,
    });
    const stake = (amount: number, balance: number, market: string) => entry('stake', amount, balance, { marketHash: market, tradeId: expect.any(String) });
    const refund = (amount: number, balance: number, market: string) => entry('refund', amount, balance, { marketHash: market, refundId: expect.any(Number) });
    const makerStatement = await statement(maker);
    expect(makerStatement).toEqual({
      count: 6,
      entries: [
        entry('deposit', 100, 100),
        stake(-20, 80, x),
        stake(-10, 70, x),
        refund(25, 95, x),
        stake(-10, 85, y),
        entry('payout', 15, 100, { marketHash: x }),
      ],
    });
    const takerStatement = await statement(taker);
    expect(takerStatement).toEqual({
      count: 5,
      entries: [entry('deposit', 100, 100), stake(-20, 80, x), stake(-15, 65, x), refund(25, 90, x), stake(-10, 80, y)],
    });
    for (const [w, s] of [[maker, makerStatement], [taker, takerStatement]] as const) {
      expect(s.entries.at(-1)!.balance).toBe((await balanceOf(ex, w)).balance);
      // Each stake is one of the wallet's confirmed trades, to the wei.
      const trades: Rest[] = (await ex.get(`/trades?bettor=${w.address}&pageSize=100`)).body.data.trades;
      const stakes = s.entries.filter((e) => e.kind === 'stake').map((e) => [e.marketHash, (-BigInt(e.amount as string)).toString()]);
      expect(stakes.sort()).toEqual(trades.map((t) => [t.marketHash, t.stake]).sort());
    }
  });

  it('pages like the other listings, newest first by default', async () => {
    const all = (await statement(maker)).entries;
    expect((await statement(maker, '')).entries).toEqual([...all].reverse());
    expect(await statement(maker, '&sortAsc=true&page=1&perPage=4')).toEqual({ count: 6, entries: all.slice(4) });
    const both = (await positions(maker)).positions;
    expect(await positions(maker, '&page=1&perPage=1')).toEqual({ count: 2, positions: both.slice(1) });
    expect(await positions(maker, '&page=2&perPage=1')).toEqual({ count: 2, positions: [] });
    expect(await positions(newWallet())).toEqual({ count: 0, positions: [] });
    expect(await statement(newWallet())).toEqual({ count: 0, entries: [] });
  });

  it('answers the same after a restart', async () => {
    const before = [await positions(maker), await positions(taker), await statement(maker), await statement(taker)];
    ex = await ex.restart();
    expect([await positions(maker), await positions(taker), await statement(maker), await statement(taker)]).toEqual(before);
  });

  it('refuses bad input with its errorCode', async () => {
    for (const url of [
      '/positions',
      '/positions?bettor=0x123',
      `/positions?bettor=${maker.address}&perPage=0`,
      `/positions?bettor=${maker.address}&perPage=501`,
      `/positions?bettor=${maker.address}&page=-1`,
      '/account/statement',
      `/account/statement?bettor=${maker.address}&sortAsc=maybe`,
      `/account/statement?bettor=${maker.address}&perPage=x`,
    ]) {
      const res = await ex.get(url);
      expect([url, res.status, res.body.errorCode]).toEqual([url, 400, 'INVALID_PARAMETER']);
    }
  });
});
