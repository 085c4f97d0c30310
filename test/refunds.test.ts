// Capital-efficiency refunds against the real server: a maker and a taker build offsetting positions over three
// fills; each refund, each wallet balance, the refund listing and its realtime feed are checked to the wei, then the
// market settles as outcome one, outcome two or void and refunds plus settlement must pay exactly what the bettor
// would have received without refunds. Then every bad input of GET /trades/portfolio/refunds.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { publicationsOut, renderForEveryChannel, startTestExchange, type TestExchange } from './helpers/server.js';
import { E18, USDC, newWallet } from './helpers/wallets.js';
import { centrifugeClient, createApiKey, fetchToken, wsUrl } from './helpers/realtime.js';
import { balanceOf, betTestConfig, createFixtureMarket, createSoccerLeague, fillAndConfirm, fund, humanToWei, postOrder, type TestCatalogue } from './helpers/bets.js';

const FUNDS = 100n * USDC;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
type Group = { marketHash: string; baseToken: string; totalRefundedBetTimeValue: number; events: Record<string, unknown>[] };
type ChannelGroup = { marketHash: string; baseToken: string; totalRefunded: number; events: Record<string, unknown>[] };
/** A REST group as ce_refunds:{bettor} carries it: the spec's totalRefunded (number) for the total. */
const asPublished = ({ totalRefundedBetTimeValue, ...g }: Group): ChannelGroup => ({
  marketHash: g.marketHash,
  baseToken: g.baseToken,
  totalRefunded: totalRefundedBetTimeValue,
  events: g.events,
});

describe('capital-efficiency refunds', () => {
  let ex: TestExchange;
  let cat: TestCatalogue;
  const maker = newWallet();
  const taker = newWallet();
  const published: { bettor: string; groups: ChannelGroup[] }[] = [];
  const markets: string[] = [];
  const refunds = async (query: string) => ex.get(`/trades/portfolio/refunds?${query}`);
  const balances = async () => [await balanceOf(ex, maker), await balanceOf(ex, taker)].map((b) => [b.balance, b.escrowed]);

  beforeAll(async () => {
    ex = await startTestExchange(betTestConfig());
    ex.ctx.bus.on('refunds', (update) => published.push(update as { bettor: string; groups: ChannelGroup[] }));
    renderForEveryChannel(ex);
    cat = await createSoccerLeague(ex);
    await fund(ex, maker, FUNDS);
    await fund(ex, taker, FUNDS);
  });
  afterAll(async () => ex.destroy());

  // Per outcome: what settlement credits each side (wei) and what the whole position pays without refunds.
  const scenarios = [
    { outcome: 1, makerCredit: 5_000_000n, takerCredit: 0n, makerPayouts: 40_000_000n, takerPayouts: 37_500_001n },
    { outcome: 2, makerCredit: 2_500_001n, takerCredit: 2_499_999n, makerPayouts: 37_500_001n, takerPayouts: 40_000_000n },
    { outcome: 0, makerCredit: 0n, takerCredit: 5_000_000n, makerPayouts: 35_000_000n, takerPayouts: 42_500_001n },
  ] as const;
  const MAKER_STAKES = 35_000_000n;
  const TAKER_STAKES = 42_500_001n;
  let makerStart = FUNDS;
  let takerStart = FUNDS;

  for (const s of scenarios) {
    it(`refunds offsetting positions fill by fill, then settles outcome ${s.outcome} to the wei`, async () => {
      const { markets: created } = await createFixtureMarket(ex, cat, { type: 52 });
      const market = created[0]!.marketHash;
      markets.push(market);
      const m0 = makerStart;
      const t0 = takerStart;
      const w = (x: bigint) => x.toString();

      // Fill 1: the maker backs outcome one at 50%, the taker outcome two with 20. Nothing offsets yet.
      await postOrder(ex, maker, { marketHash: market, totalBetSize: 30n * USDC, percentageOdds: 50n * E18, isMakerBettingOutcomeOne: true });
      const fill1 = await fillAndConfirm(ex, taker, { market, isTakerBettingOutcomeOne: false, stakeWei: 20n * USDC, desiredOdds: 50n * E18 });
      expect(await balances()).toEqual([
        [w(m0 - 20_000_000n), '20000000'],
        [w(t0 - 20_000_000n), '20000000'],
      ]);
      // Listed before any refund (so the listing keeps this item rendered): no refunds in the market yet.
      const before = (await ex.get(`/trades?bettor=${maker.address}&marketHashes=${market}`)).body.data.trades;
      expect(before.map((t: { marketHasRefunds: boolean }) => t.marketHasRefunds)).toEqual([false]);

      // Fill 2: the maker backs outcome two at 40%, the taker outcome one with 15 (maker stake 10).
      // Maker: worst case loss 5 of 30 held -> refund 25. Taker: worst case 10 of 35 held -> refund 25.
      await postOrder(ex, maker, { marketHash: market, totalBetSize: 30n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: false });
      const fill2 = await fillAndConfirm(ex, taker, { market, isTakerBettingOutcomeOne: true, stakeWei: 15n * USDC, desiredOdds: 60n * E18 });
      expect(await balances()).toEqual([
        [w(m0 - 30_000_000n + 25_000_000n), '5000000'],
        [w(t0 - 35_000_000n + 25_000_000n), '10000000'],
      ]);

      // Fill 3: the taker adds 7.500001 on outcome one (maker stake 5, rounded down).
      // Maker: fully hedged, worst case 0 -> refund 10. Taker: worst case 5 of 17.500001 -> refund 12.500001.
      const fill3 = await fillAndConfirm(ex, taker, { market, isTakerBettingOutcomeOne: true, stakeWei: 7_500_001n, desiredOdds: 60n * E18 });
      expect(await balances()).toEqual([
        [w(m0 - MAKER_STAKES + 35_000_000n), '0'],
        [w(t0 - TAKER_STAKES + 37_500_001n), '5000000'],
      ]);
      expect(fill1).not.toBe(fill2);

      const group = (bettor: string, isMaker: boolean, amounts: [string, bigint, string][]) => ({
        marketHash: market,
        baseToken: ex.ctx.config.baseTokenAddress,
        totalRefundedBetTimeValue: Number(amounts.reduce((x, [, a]) => x + a, 0n)) / 1e6,
        events: amounts.map(([fillOrderHash, amount, human]) => ({
          marketHash: market,
          baseToken: ex.ctx.config.baseTokenAddress,
          bettor,
          maker: isMaker,
          fillOrderHash,
          amount: amount.toString(),
          amountBetTimeValue: human,
          createdAt: expect.stringMatching(ISO),
        })),
      });
      const makerGroup = group(maker.address, true, [[fill2, 25_000_000n, '25'], [fill3, 10_000_000n, '10']]);
      const takerGroup = group(taker.address, false, [[fill2, 25_000_000n, '25'], [fill3, 12_500_001n, '12.500001']]);
      const listing = async (bettor: string, extra = '') =>
        (await refunds(`bettor=${bettor}&marketHash=${market}&sortAsc=true&page=0&perPage=10${extra}`)).body.data;
      // The maker flag: true lists maker refunds only; absent or false lists taker refunds only.
      expect(await listing(maker.address, '&maker=true')).toEqual({ results: [makerGroup], count: 1 });
      expect(await listing(maker.address)).toEqual({ results: [], count: 0 });
      expect(await listing(maker.address, '&maker=false')).toEqual({ results: [], count: 0 });
      expect(await listing(taker.address)).toEqual({ results: [takerGroup], count: 1 });
      expect(await listing(taker.address.toLowerCase())).toEqual({ results: [takerGroup], count: 1 });
      const desc = await refunds(`bettor=${taker.address}&marketHash=${market}&sortAsc=false&page=0&perPage=10`);
      expect(desc.body.data.results[0].events.map((e: { amount: string }) => e.amount)).toEqual(['12500001', '25000000']);
      expect(await listing(taker.address, `&fillHash=${fill3}`)).toEqual({ results: [group(taker.address, false, [[fill3, 12_500_001n, '12.500001']])], count: 1 });
      expect(await listing(taker.address, `&fillHash=${fill1}`)).toEqual({ results: [], count: 0 });
      expect(await listing(taker.address, '&maker=true')).toEqual({ results: [], count: 0 });
      expect(await listing(taker.address, '&maker=false')).toEqual({ results: [takerGroup], count: 1 });
      expect(await listing(maker.address, `&maker=true&baseToken=${ex.ctx.config.baseTokenAddress.toLowerCase()}`)).toEqual({ results: [makerGroup], count: 1 });
      expect(await listing(maker.address, `&maker=true&baseToken=0x${'1'.repeat(40)}`)).toEqual({ results: [], count: 0 });

      // Realtime: each ce_refunds publication carries only the new events of the group with its running total
      // (named totalRefunded); newest publication first, their events are the descending listing's.
      await publicationsOut(ex);
      for (const [bettor, isMaker] of [[maker.address, true], [taker.address, false]] as const) {
        const groups = published.filter((p) => p.bettor === bettor).flatMap((p) => p.groups).filter((g) => g.marketHash === market);
        const [rest] = (await refunds(`bettor=${bettor}&marketHash=${market}&sortAsc=false&page=0&perPage=10&maker=${isMaker}`)).body.data.results;
        expect(groups.map((g) => g.events.length)).toEqual([1, 1]);
        expect(groups.reverse().flatMap((g) => g.events)).toEqual(rest.events);
        expect(groups[0]).toEqual({ ...asPublished(rest), events: [rest.events[0]] });
      }

      // Trades in the market show that refunds were paid.
      const makerTrades = (await ex.get(`/trades?bettor=${maker.address}&marketHashes=${market}`)).body.data.trades;
      expect(makerTrades.map((t: { marketHasRefunds: boolean }) => t.marketHasRefunds)).toEqual([true, true, true]);
      const openEntries = (await ex.get(`/trades/consolidated?bettor=${taker.address}&marketHash=${market}&settled=false&page=0&perPage=10&sortAsc=true`)).body.data.trades;
      expect(openEntries.map((e: { marketHasRefunds: boolean; fillHash: string }) => [e.fillHash, e.marketHasRefunds])).toEqual([
        [fill1, true],
        [fill2, true],
        [fill3, true],
      ]);

      // Settlement credits the payouts less the refunds.
      const report = await ex.admin('POST', `/admin/markets/${market}/report`, { outcome: s.outcome });
      expect(report.status).toBe(200);
      makerStart = m0 - MAKER_STAKES + 35_000_000n + s.makerCredit;
      takerStart = t0 - TAKER_STAKES + 37_500_001n + s.takerCredit;
      expect(await balances()).toEqual([
        [w(makerStart), '0'],
        [w(takerStart), '0'],
      ]);
      // Refunds plus settlement equal what the positions pay without refunds.
      expect(35_000_000n + s.makerCredit).toBe(s.makerPayouts);
      expect(37_500_001n + s.takerCredit).toBe(s.takerPayouts);
      expect(makerStart - m0).toBe(s.makerPayouts - MAKER_STAKES);
      expect(takerStart - t0).toBe(s.takerPayouts - TAKER_STAKES);

      // settleNetReturnValue: each trade's settlement credit less its stake, adding up to the credit to the wei.
      for (const [bettor, credit, payouts, stakes] of [
        [maker.address, s.makerCredit, s.makerPayouts, MAKER_STAKES],
        [taker.address, s.takerCredit, s.takerPayouts, TAKER_STAKES],
      ] as const) {
        const trades = (await ex.get(`/trades?bettor=${bettor}&marketHashes=${market}`)).body.data.trades as Record<string, string>[];
        const sum = (f: (t: Record<string, string>) => bigint) => trades.reduce((x, t) => x + f(t), 0n);
        expect(sum((t) => humanToWei(t.settleNetReturnValue!) + BigInt(t.stake!))).toBe(credit);
        expect(sum((t) => humanToWei(t.netReturn!))).toBe(payouts - stakes);
        for (const t of trades) {
          const credited = humanToWei(t.settleNetReturnValue!) + BigInt(t.stake!);
          expect(credited >= 0n && credited <= humanToWei(String(t.settleValue))).toBe(true);
        }
        const entries = (await ex.get(`/trades/consolidated?bettor=${bettor}&marketHash=${market}&settled=true&page=0&perPage=10&sortAsc=true`)).body.data.trades as Record<string, string>[];
        expect(entries.map((e) => e.marketHasRefunds)).toEqual([true, true, true]);
        expect(entries.reduce((x, e) => x + humanToWei(e.settleNetReturnValue!) + humanToWei(e.totalStake!), 0n)).toBe(credit);
        expect(entries.reduce((x, e) => x + humanToWei(e.totalReturn!), 0n)).toBe(payouts);
      }
    });
  }

  it('pages refund groups, ordered by their latest refund', async () => {
    const page = async (sortAsc: boolean, n: number, perPage: number) =>
      (await refunds(`bettor=${maker.address}&maker=true&sortAsc=${sortAsc}&page=${n}&perPage=${perPage}`)).body.data;
    const first = await page(true, 0, 2);
    const second = await page(true, 1, 2);
    expect([first.count, second.count]).toEqual([3, 3]);
    expect([...first.results, ...second.results].map((g: Group) => g.marketHash)).toEqual(markets);
    expect((await page(false, 0, 500)).results.map((g: Group) => g.marketHash)).toEqual([...markets].reverse());
    expect(await page(true, 2, 2)).toEqual({ results: [], count: 3 });
    expect((await refunds(`bettor=${newWallet().address}&sortAsc=true&page=0&perPage=10`)).body.data).toEqual({ results: [], count: 0 });
  });

  it('rebuilds the same refunds, trades and consolidated entries after a restart (journal replay)', async () => {
    const views = async () => [
      (await refunds(`bettor=${taker.address}&sortAsc=true&page=0&perPage=500`)).body.data,
      (await ex.get(`/trades?bettor=${taker.address}&pageSize=300`)).body.data,
      (await ex.get(`/trades/consolidated?bettor=${maker.address}&settled=true&page=0&perPage=100&sortAsc=true`)).body.data,
    ];
    const before = await views();
    expect(before[0].count).toBe(3);
    ex = await ex.restart();
    expect(await views()).toEqual(before);
  });

  it('publishes refund groups on ce_refunds:{bettor} and consolidated entries on recent_trades_consolidated:global', async () => {
    const m = newWallet();
    const t = newWallet();
    await fund(ex, m, FUNDS);
    await fund(ex, t, FUNDS);
    const key = await createApiKey(ex, t.address);
    const client = centrifugeClient(wsUrl(ex), { getToken: () => fetchToken(ex, key) });
    const received: { refunds: unknown[][]; consolidated: unknown[] } = { refunds: [], consolidated: [] };
    const refundSub = client.newSubscription(`ce_refunds:${t.address}`);
    const tradeSub = client.newSubscription('recent_trades_consolidated:global');
    refundSub.on('publication', (ctx) => received.refunds!.push(ctx.data as unknown[]));
    tradeSub.on('publication', (ctx) => received.consolidated.push(ctx.data));
    const subscribed = Promise.all([refundSub, tradeSub].map((sub) => new Promise((resolve) => sub.once('subscribed', resolve))));
    refundSub.subscribe();
    tradeSub.subscribe();
    client.connect();
    try {
      await subscribed;
      const { markets: created } = await createFixtureMarket(ex, cat, { type: 52 });
      const market = created[0]!.marketHash;
      await postOrder(ex, m, { marketHash: market, totalBetSize: 30n * USDC, percentageOdds: 50n * E18, isMakerBettingOutcomeOne: true });
      await postOrder(ex, m, { marketHash: market, totalBetSize: 30n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: false });
      const fill1 = await fillAndConfirm(ex, t, { market, isTakerBettingOutcomeOne: false, stakeWei: 20n * USDC, desiredOdds: 50n * E18 });
      const fill2 = await fillAndConfirm(ex, t, { market, isTakerBettingOutcomeOne: true, stakeWei: 15n * USDC, desiredOdds: 60n * E18 });
      const groups = (await refunds(`bettor=${t.address}&sortAsc=false&page=0&perPage=10`)).body.data.results;
      expect(groups[0].events.map((e: { fillOrderHash: string; amount: string }) => [e.fillOrderHash, e.amount])).toEqual([[fill2, '25000000']]);
      // The taker's entry of fill 1 is republished when fill 2's refund flips its marketHasRefunds.
      const entries = (await ex.get(`/trades/consolidated?bettor=${t.address}&settled=false&page=0&perPage=10&sortAsc=true`)).body.data.trades;
      const lastOf = (fillHash: string) =>
        received.consolidated!.filter((e) => (e as Record<string, unknown>).bettor === t.address && (e as Record<string, unknown>).fillHash === fillHash).at(-1);
      // Publications follow the replies; a loaded machine may deliver them a while later.
      await vi.waitFor(
        () => {
          expect(received.refunds).toEqual([groups.map(asPublished)]);
          expect([lastOf(fill1), lastOf(fill2)]).toEqual(entries);
        },
        { timeout: 10_000, interval: 20 },
      );
      expect(entries.map((e: { marketHasRefunds: boolean }) => e.marketHasRefunds)).toEqual([true, true]);
    } finally {
      client.disconnect();
    }
  });

  it('rejects every bad input with its errorCode', async () => {
    const base = { bettor: maker.address, sortAsc: 'true', page: '0', perPage: '10' };
    const cases: [string, Record<string, string | undefined>, string][] = [
      ['missing bettor', { bettor: undefined }, 'bettor'],
      ['missing sortAsc', { sortAsc: undefined }, 'sortAsc'],
      ['missing page', { page: undefined }, 'page'],
      ['missing perPage', { perPage: undefined }, 'perPage'],
      ['malformed bettor', { bettor: 'alice' }, 'bettor'],
      ['short bettor', { bettor: maker.address.slice(0, 41) }, 'bettor'],
      ['sortAsc not boolean', { sortAsc: 'up' }, 'sortAsc'],
      ['negative page', { page: '-1' }, 'page'],
      ['page too large', { page: '100001' }, 'page'],
      ['perPage 0', { perPage: '0' }, 'perPage'],
      ['perPage above 500', { perPage: '501' }, 'perPage'],
      ['perPage not a number', { perPage: 'ten' }, 'perPage'],
      ['malformed marketHash', { marketHash: '0x1234' }, 'marketHash'],
      ['malformed fillHash', { fillHash: 'nope' }, 'fillHash'],
      ['malformed baseToken', { baseToken: '0xZZ' }, 'baseToken'],
      ['maker not boolean', { maker: 'sometimes' }, 'maker'],
    ];
    for (const [name, change, field] of cases) {
      const params = Object.entries({ ...base, ...change }).filter(([, v]) => v !== undefined) as [string, string][];
      const res = await refunds(new URLSearchParams(params).toString());
      expect([name, res.status, res.body.status, res.body.errorCode, res.body.details?.[0]?.field]).toEqual([name, 400, 'failure', 'INVALID_PARAMETER', field]);
    }
    expect((await refunds(new URLSearchParams({ ...base, perPage: '500' }).toString())).status).toBe(200);
  });
});
