// GET /trades/consolidated against the real server: quarter-line bets settled for every combination of leg
// results (payouts to the wei), their 2 entries on /trades and 3 on /trades/consolidated, totals over parents vs
// legs, filters, sorting, paging, the realtime feed on the bus, and every bad input with its errorCode.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keccak256, toBytes } from 'viem';
import type { PrivateKeyAccount } from 'viem';
import { publicationsOut, renderForEveryChannel, startTestExchange, type TestExchange } from './helpers/server.js';
import { E18, USDC, newWallet, signedFill } from './helpers/wallets.js';
import { balanceOf, betTestConfig, humanToWei, createFixtureMarket, createSoccerLeague, fillAndConfirm, fund, postOrder, waitFor, type TestCatalogue } from './helpers/bets.js';

type Entry = Record<string, unknown> & { marketHash: string; fillHash: string; bettor: string };

const TAKER_STAKE = 10_000_001n; // odd: the lower leg takes the extra wei
const MAKER_ODDS = 40n * E18;
// Maker space: 10_000_001 * 40 / 60 = 6_666_667 (rounded down); legs split [3_333_334, 3_333_333], taker [5_000_001, 5_000_000].
const MAKER_STAKE = 6_666_667n;
const FUNDS = 100n * USDC;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('GET /trades/consolidated', () => {
  let ex: TestExchange;
  let cat: TestCatalogue;
  const published: Entry[][] = [];
  const consolidated = async (query: string) => ex.get(`/trades/consolidated?${query}`);
  const list = async (query: string): Promise<Entry[]> => {
    const res = await consolidated(query);
    expect(res.status).toBe(200);
    expect(res.body.data.count).toBeGreaterThanOrEqual(res.body.data.trades.length);
    return res.body.data.trades;
  };

  beforeAll(async () => {
    ex = await startTestExchange(betTestConfig());
    ex.ctx.bus.on('consolidatedTrades', (entries) => published.push(entries as Entry[]));
    renderForEveryChannel(ex);
    cat = await createSoccerLeague(ex);
  });
  afterAll(async () => ex.destroy());

  /** One quarter-line bet: the maker backs outcome two at 40%, the taker outcome one with TAKER_STAKE at 60%. */
  async function quarterLineBet(line: number) {
    const { exchangeEventId, markets } = await createFixtureMarket(ex, cat, { type: 3, line });
    const [parent, lower, higher] = markets.map((m) => m.marketHash) as [string, string, string];
    const maker = newWallet();
    const taker = newWallet();
    await fund(ex, maker, FUNDS);
    await fund(ex, taker, FUNDS);
    await postOrder(ex, maker, { marketHash: parent, totalBetSize: 20n * USDC, percentageOdds: MAKER_ODDS, isMakerBettingOutcomeOne: false });
    const fillHash = await fillAndConfirm(ex, taker, { market: parent, isTakerBettingOutcomeOne: true, stakeWei: TAKER_STAKE, desiredOdds: 60n * E18 });
    return { exchangeEventId, parent, lower, higher, maker, taker, fillHash, gameTime: markets[0]!.gameTime };
  }

  const combinations = [
    { name: 'win/win', line: -0.75, score: [3, 1], legOutcomes: [1, 1], parentOutcome: 1, taker: [8_333_335n, 8_333_333n], maker: [0n, 0n] },
    { name: 'push/win', line: -0.75, score: [2, 1], legOutcomes: [0, 1], parentOutcome: 1, taker: [5_000_001n, 8_333_333n], maker: [3_333_334n, 0n] },
    { name: 'loss/push', line: -0.25, score: [1, 1], legOutcomes: [2, 0], parentOutcome: 2, taker: [0n, 5_000_000n], maker: [8_333_335n, 3_333_333n] },
    { name: 'loss/loss', line: -0.75, score: [0, 1], legOutcomes: [2, 2], parentOutcome: 2, taker: [0n, 0n], maker: [8_333_335n, 8_333_333n] },
  ] as const;

  for (const c of combinations) {
    it(`settles a quarter-line bet with legs ${c.name} to the wei, as 2 trades and 3 consolidated entries`, async () => {
      const bet = await quarterLineBet(c.line);
      const { taker, maker } = bet;
      const report = await ex.admin('POST', `/admin/fixtures/${bet.exchangeEventId}/result`, { teamOneScore: c.score[0], teamTwoScore: c.score[1] });
      expect(report.status).toBe(200);

      const takerPaid = c.taker[0] + c.taker[1];
      const makerPaid = c.maker[0] + c.maker[1];
      expect(takerPaid + makerPaid).toBe(TAKER_STAKE + MAKER_STAKE);
      expect(await balanceOf(ex, taker)).toMatchObject({ balance: (FUNDS - TAKER_STAKE + takerPaid).toString(), escrowed: '0' });
      expect(await balanceOf(ex, maker)).toMatchObject({ balance: (FUNDS - MAKER_STAKE + makerPaid).toString(), escrowed: '0', openExposure: '0' });

      // /trades: one trade per leg, each on its own leg market.
      const trades = (await ex.get(`/trades?bettor=${taker.address}`)).body.data.trades;
      const byMarket = Object.fromEntries(trades.map((t: { marketHash: string }) => [t.marketHash, t]));
      expect(trades).toHaveLength(2);
      for (const [i, leg] of [bet.lower, bet.higher].entries()) {
        expect(byMarket[leg]).toMatchObject({
          stake: ['5000001', '5000000'][i],
          fillHash: bet.fillHash,
          isQuarterLineLeg: true,
          quarterLineParentMarketHash: bet.parent,
          settled: true,
          outcome: c.legOutcomes[i],
          settleValue: Number(c.taker[i]!) / 1e6,
        });
      }

      // /trades/consolidated: parent first, then the lower and the higher leg.
      const entries = await list(`bettor=${taker.address}&settled=true&page=0&perPage=100&sortAsc=true`);
      expect(entries.map((e) => e.marketHash)).toEqual([bet.parent, bet.lower, bet.higher]);
      const parentFillHash = keccak256(toBytes(`quarter:${bet.fillHash}${taker.address.toLowerCase()}`));
      const [parent, lower, higher] = entries as [Entry, Entry, Entry];
      const netHuman = (paid: bigint, stake: bigint) => {
        const n = paid - stake;
        const abs = n < 0n ? -n : n;
        const frac = (abs % USDC).toString().padStart(6, '0').replace(/0+$/, '');
        return `${n < 0n ? '-' : ''}${abs / USDC}${frac ? '.' + frac : ''}`;
      };
      const common = {
        baseToken: ex.ctx.config.baseTokenAddress,
        bettor: taker.address,
        fillOrderHash: bet.fillHash,
        chainVersion: ex.ctx.config.chainVersion,
        tradeStatus: 'SUCCESS',
        weightedAverageOdds: (60n * E18).toString(),
        maker: false,
        settled: true,
        marketHasRefunds: false,
        gameLabel: 'Alpha FC vs Beta FC',
        leagueLabel: 'Test League',
        bettingOutcome: 1,
        exchangeEventId: bet.exchangeEventId,
        gameTime: new Date(bet.gameTime * 1000).toISOString(),
        sportId: expect.any(Number),
        marketType: 3,
        betTime: trades[0].betTime,
        settleDate: expect.stringMatching(ISO),
        // No fee is configured here: settled entries show a fee of 0.
        fee: '0',
      };
      const legLines = c.line === -0.75 ? ['-1', '-0.5'] : ['-0.5', '0'];
      expect(parent).toEqual({
        ...common,
        marketHash: bet.parent,
        fillHash: parentFillHash,
        // Amounts in token units, exact to the last of the 6 decimals.
        totalStake: '10.000001',
        totalBetTimeValue: '10.000001',
        netReturn: netHuman(takerPaid, TAKER_STAKE),
        totalReturn: netHuman(takerPaid, 0n),
        crosschainNetReturn: netHuman(takerPaid, TAKER_STAKE),
        netReturnBetTimeValue: Number(netHuman(takerPaid, TAKER_STAKE)),
        settleNetReturnValue: netHuman(takerPaid, TAKER_STAKE),
        bettingOutcomeLabel: `Alpha FC ${c.line}`,
        quarterLineFillHash: null,
        isQuarterLineParent: true,
        isQuarterLineLeg: false,
        outcome: c.parentOutcome,
      });
      for (const [i, [leg, entry, stake]] of ([[bet.lower, lower, 5_000_001n], [bet.higher, higher, 5_000_000n]] as const).entries()) {
        expect(entry).toEqual({
          ...common,
          marketHash: leg,
          fillHash: bet.fillHash,
          totalStake: ['5.000001', '5'][i],
          totalBetTimeValue: netHuman(stake, 0n),
          netReturn: netHuman(c.taker[i]!, stake),
          totalReturn: netHuman(c.taker[i]!, 0n),
          crosschainNetReturn: netHuman(c.taker[i]!, stake),
          netReturnBetTimeValue: Number(netHuman(c.taker[i]!, stake)),
          settleNetReturnValue: netHuman(c.taker[i]!, stake),
          bettingOutcomeLabel: `Alpha FC ${legLines[i]}`,
          quarterLineFillHash: parentFillHash,
          isQuarterLineParent: false,
          isQuarterLineLeg: true,
          outcome: c.legOutcomes[i],
        });
      }

      // The maker's side: three entries too, on outcome two at 40%, paid what the taker was not.
      const makerEntries = await list(`bettor=${maker.address}&settled=true&page=0&perPage=100&sortAsc=true`);
      expect(makerEntries.map((e) => [e.marketHash, e.totalStake, e.totalReturn, e.bettingOutcome, e.weightedAverageOdds, e.maker])).toEqual([
        [bet.parent, '6.666667', netHuman(makerPaid, 0n), 2, MAKER_ODDS.toString(), true],
        [bet.lower, '3.333334', netHuman(c.maker[0], 0n), 2, MAKER_ODDS.toString(), true],
        [bet.higher, '3.333333', netHuman(c.maker[1], 0n), 2, MAKER_ODDS.toString(), true],
      ]);

      // Realtime: the last publication of each entry equals what REST shows.
      await publicationsOut(ex);
      const last = new Map<string, Entry>();
      for (const batch of published) for (const e of batch) last.set(`${e.bettor}|${e.fillHash}|${e.marketHash}`, e);
      for (const e of [...entries, ...makerEntries]) expect(last.get(`${e.bettor}|${e.fillHash}|${e.marketHash}`)).toEqual(e);
    });
  }

  it('gives the same totals over parents only as over legs only', async () => {
    const totals = async (hide: string) => {
      const entries = [
        ...(await list(`settled=true&page=0&perPage=100&sortAsc=true&${hide}=true`)),
        ...(await list(`settled=false&page=0&perPage=100&sortAsc=true&${hide}=true`)),
      ];
      return {
        n: entries.length,
        totalStake: entries.reduce((s, e) => s + humanToWei(e.totalStake as string), 0n),
        totalReturn: entries.reduce((s, e) => s + humanToWei(e.totalReturn as string), 0n),
        netReturn: entries.reduce((s, e) => s + humanToWei(e.netReturn as string), 0n),
      };
    };
    const parents = await totals('hideQuarterLineLegs');
    const legs = await totals('hideQuarterLineParents');
    // 4 bets, each with a maker and a taker side: 8 parents, 16 legs.
    expect([parents.n, legs.n]).toEqual([8, 16]);
    expect({ ...parents, n: 0 }).toEqual({ ...legs, n: 0 });
    expect(parents.totalStake).toBe(4n * (TAKER_STAKE + MAKER_STAKE));
    expect(parents.totalReturn).toBe(4n * (TAKER_STAKE + MAKER_STAKE));
    expect(parents.netReturn).toBe(0n);
  });

  it('keeps the parent unsettled until both legs settle, and lists pending fills nowhere', async () => {
    const bet = await quarterLineBet(-0.75);
    const query = (settled: boolean) => `bettor=${bet.taker.address}&settled=${settled}&page=0&perPage=10&sortAsc=true`;
    expect((await list(query(false))).map((e) => e.marketHash)).toEqual([bet.parent, bet.lower, bet.higher]);
    // Settle only the lower leg (-1) by hand: team one won by one, so the leg pushes.
    expect((await ex.admin('POST', `/admin/markets/${bet.lower}/report`, { outcome: 0 })).status).toBe(200);
    expect((await list(query(true))).map((e) => [e.marketHash, e.totalReturn])).toEqual([[bet.lower, '5.000001']]);
    const open = await list(query(false));
    expect(open.map((e) => [e.marketHash, e.settled, e.totalReturn, e.netReturn])).toEqual([
      [bet.parent, false, '5.000001', '0'],
      [bet.higher, false, '0', '0'],
    ]);
    expect(open[0]).not.toHaveProperty('outcome');
    expect((await ex.admin('POST', `/admin/markets/${bet.higher}/report`, { outcome: 1 })).status).toBe(200);
    expect((await list(query(true))).map((e) => [e.marketHash, e.totalReturn, e.outcome])).toEqual([
      [bet.parent, '13.333334', 1],
      [bet.lower, '5.000001', 0],
      [bet.higher, '8.333333', 1],
    ]);

    // A fill still waiting on the chain is not a consolidated trade yet. The listing is read while the fill is
    // pending, as a read of its trades after the listing shows (a trade only ever leaves PENDING); a fill confirmed
    // before that read (a busy machine) is tried again with another taker.
    const { markets } = await createFixtureMarket(ex, cat, { type: 52 });
    const marketHash = markets[0]!.marketHash;
    const m = newWallet();
    await fund(ex, m, FUNDS);
    await postOrder(ex, m, { marketHash, totalBetSize: 10n * USDC, percentageOdds: 50n * E18, isMakerBettingOutcomeOne: true });
    let whilePending: { listed: Entry[]; taker: string; fillHash: string } | undefined;
    for (let attempt = 0; attempt < 5 && !whilePending; attempt++) {
      const t = newWallet();
      await fund(ex, t, FUNDS);
      const fill = await ex.post('/orders/fill/v2', await signedFill(t, ex.ctx.config, { market: marketHash, isTakerBettingOutcomeOne: false, stakeWei: 2n * USDC, desiredOdds: 50n * E18 }));
      expect(fill.status).toBe(200);
      const listed = await list(`bettor=${t.address}&settled=false&page=0&perPage=10&sortAsc=true`);
      const trades: { tradeStatus: string }[] = (await ex.get(`/trades?bettor=${t.address}`)).body.data.trades;
      if (trades.some((tr) => tr.tradeStatus === 'PENDING')) whilePending = { listed, taker: t.address, fillHash: fill.body.data.fillHash };
    }
    expect(whilePending?.listed).toEqual([]);
    const { taker, fillHash } = whilePending!;
    // Confirmed, it is listed.
    const confirmed = await waitFor(() => list(`bettor=${taker}&settled=false&page=0&perPage=10&sortAsc=true`), (l) => l.length > 0);
    expect(confirmed.map((e) => [e.tradeStatus, e.fillHash])).toEqual([['SUCCESS', fillHash]]);
    await publicationsOut(ex);
    expect(published.flat().filter((e) => e.tradeStatus === 'PENDING')).toEqual([]);
  });

  describe('filters, sorting and paging', () => {
    let a: PrivateKeyAccount;
    let b: PrivateKeyAccount;
    let market: string;
    let eventId: string;
    const fills: string[] = [];

    beforeAll(async () => {
      const created = await createFixtureMarket(ex, cat, { type: 52 });
      market = created.markets[0]!.marketHash;
      eventId = created.exchangeEventId;
      a = newWallet();
      b = newWallet();
      await fund(ex, a, FUNDS);
      await fund(ex, b, FUNDS);
      // Two orders of a at different odds, so b's first fill matches both: one entry aggregates two trades.
      await postOrder(ex, a, { marketHash: market, totalBetSize: 10n * USDC, percentageOdds: 50n * E18, isMakerBettingOutcomeOne: true });
      await postOrder(ex, a, { marketHash: market, totalBetSize: 12n * USDC, percentageOdds: 60n * E18, isMakerBettingOutcomeOne: true });
      fills.push(await fillAndConfirm(ex, b, { market, isTakerBettingOutcomeOne: false, stakeWei: 14n * USDC, desiredOdds: 40n * E18, oddsSlippage: 50 }));
      fills.push(await fillAndConfirm(ex, b, { market, isTakerBettingOutcomeOne: false, stakeWei: 3n * USDC, desiredOdds: 40n * E18 }));
    });

    const q = (extra: string) => `bettor=${b.address}&settled=false&page=0&perPage=10&sortAsc=true&${extra}`;

    it('aggregates a fill over several orders with stake-weighted odds', async () => {
      const [first] = await list(q('sortBy=betTime'));
      // 10 USDC at taker odds 50% against the first order (maker space 10), 4 USDC at 40% against the second (6).
      expect(first).toMatchObject({
        fillHash: fills[0],
        totalStake: '14',
        weightedAverageOdds: ((10n * 50n * E18 + 4n * 40n * E18) / 14n).toString(),
        bettingOutcome: 2,
        bettingOutcomeLabel: 'Beta FC',
        maker: false,
        isQuarterLineParent: false,
        isQuarterLineLeg: false,
        quarterLineFillHash: null,
      });
      const makerSide = await list(`bettor=${a.address}&settled=false&page=0&perPage=10&sortAsc=true&marketHash=${market}`);
      expect(makerSide.map((e) => [e.fillHash, e.totalStake, e.maker])).toEqual([
        [fills[0], '16', true],
        [fills[1], '4.5', true],
      ]);
    });

    it('sorts by each field in both directions and pages', async () => {
      expect((await list(q('sortBy=totalStake'))).map((e) => e.totalStake)).toEqual(['3', '14']);
      expect((await list(q('sortBy=totalStake').replace('sortAsc=true', 'sortAsc=false'))).map((e) => e.totalStake)).toEqual(['14', '3']);
      expect((await list(q('sortBy=weightedAverageOdds'))).map((e) => e.fillHash)).toEqual([fills[1], fills[0]]);
      for (const field of ['totalBetTimeValue', 'netReturn', 'netReturnBetTimeValue', 'settleNetReturnValue', 'outcome', 'gameLabel', 'bettingOutcome', 'gameTime', 'leagueLabel', 'bettingOutcomeLabel', 'betTime', 'settleDate', 'totalReturn']) {
        const res = await consolidated(q(`sortBy=${field}`));
        expect([field, res.status, res.body.data.count]).toEqual([field, 200, 2]);
      }
      const page0 = await consolidated(q('sortBy=totalStake').replace('perPage=10', 'perPage=1'));
      const page1 = await consolidated(q('sortBy=totalStake').replace('perPage=10', 'perPage=1').replace('page=0', 'page=1'));
      expect([page0.body.data.count, page0.body.data.trades.map((e: Entry) => e.totalStake)]).toEqual([2, ['3']]);
      expect(page1.body.data.trades.map((e: Entry) => e.totalStake)).toEqual(['14']);
      expect((await consolidated(q('').replace('page=0', 'page=5'))).body.data).toEqual({ trades: [], count: 2 });
    });

    it('filters by maker, event, status, market and settled', async () => {
      const fillsOf = async (query: string) => (await list(query)).map((e) => e.fillHash);
      expect(await fillsOf(q('maker=true'))).toEqual([]);
      expect(await fillsOf(q('maker=false'))).toEqual(fills);
      expect(await fillsOf(q(`exchangeEventId=${eventId}`))).toEqual(fills);
      expect(await fillsOf(q('exchangeEventId=nope'))).toEqual([]);
      expect(await fillsOf(q('tradeStatus=SUCCESS'))).toEqual(fills);
      expect(await fillsOf(q('tradeStatus=FAILED'))).toEqual([]);
      expect(await fillsOf(q(`marketHash=${market.toUpperCase().replace('0X', '0x')}`))).toEqual(fills);
      expect(await fillsOf(q(`marketHash=0x${'0'.repeat(64)}`))).toEqual([]);
      expect(await fillsOf(q('').replace('settled=false', 'settled=true'))).toEqual([]);
      expect(await fillsOf(q('').replace(b.address, b.address.toLowerCase()))).toEqual(fills);
    });
  });

  it('rejects every bad input with its errorCode', async () => {
    const base = { settled: 'true', page: '0', perPage: '10', sortAsc: 'true' };
    const cases: [string, Record<string, string | undefined>, string, string][] = [
      ['missing settled', { settled: undefined }, 'INVALID_PARAMETER', 'settled'],
      ['missing page', { page: undefined }, 'INVALID_PARAMETER', 'page'],
      ['missing perPage', { perPage: undefined }, 'INVALID_PARAMETER', 'perPage'],
      ['missing sortAsc', { sortAsc: undefined }, 'INVALID_PARAMETER', 'sortAsc'],
      ['settled not boolean', { settled: 'maybe' }, 'INVALID_PARAMETER', 'settled'],
      ['negative page', { page: '-1' }, 'INVALID_PARAMETER', 'page'],
      ['page too large', { page: '100001' }, 'INVALID_PARAMETER', 'page'],
      ['fractional page', { page: '1.5' }, 'INVALID_PARAMETER', 'page'],
      ['perPage 0', { perPage: '0' }, 'INVALID_PARAMETER', 'perPage'],
      ['perPage above 100', { perPage: '101' }, 'INVALID_PARAMETER', 'perPage'],
      ['unknown sortBy', { sortBy: 'stake' }, 'INVALID_PARAMETER', 'sortBy'],
      ['malformed bettor', { bettor: '0x1234' }, 'INVALID_PARAMETER', 'bettor'],
      ['malformed marketHash', { marketHash: '0xabc' }, 'INVALID_PARAMETER', 'marketHash'],
      ['PENDING status', { tradeStatus: 'PENDING' }, 'INVALID_PARAMETER', 'tradeStatus'],
      ['maker not boolean', { maker: 'yes' }, 'INVALID_PARAMETER', 'maker'],
      ['both hide flags', { hideQuarterLineParents: 'true', hideQuarterLineLegs: 'true' }, 'CONFLICTING_FILTERS', ''],
    ];
    for (const [name, change, code, field] of cases) {
      const params = Object.entries({ ...base, ...change }).filter(([, v]) => v !== undefined) as [string, string][];
      const res = await consolidated(new URLSearchParams(params).toString());
      expect([name, res.status, res.body.status, res.body.errorCode]).toEqual([name, 400, 'failure', code]);
      if (field) expect([name, res.body.details?.[0]?.field]).toEqual([name, field]);
    }
    const fine = await consolidated(new URLSearchParams({ ...base, hideQuarterLineParents: 'true', hideQuarterLineLegs: 'false' }).toString());
    expect(fine.status).toBe(200);
  });
});
