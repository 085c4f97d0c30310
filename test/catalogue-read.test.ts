// The public catalogue endpoints over the demo catalogue: filters, paging, limits, bad input, metadata.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { getAddress } from 'viem';
import { startTestExchange, type TestExchange } from './helpers/server.js';
import { getSetting } from '../src/store/sqlite/db.js';

const NOW = Date.UTC(2026, 5, 1, 10, 7, 0);
type Market = Record<string, unknown> & { marketHash: string; gameTime: number; type: number; exchangeEventId: string };

describe('catalogue read API (demo catalogue)', () => {
  let ex: TestExchange;
  let all: Market[];

  const data = async (path: string) => {
    const res = await ex.get(path);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.status).toBe('success');
    return res.body.data;
  };
  /** Every page of /markets/active for a query. */
  const collect = async (query: string, pageSize = 100): Promise<Market[]> => {
    const out: Market[] = [];
    let key = '';
    for (let pages = 0; pages < 500; pages++) {
      const page = await data(`/markets/active?pageSize=${pageSize}${query ? '&' + query : ''}${key ? '&paginationKey=' + key : ''}`);
      expect(page.markets.length).toBeLessThanOrEqual(pageSize);
      out.push(...page.markets);
      if (!page.nextKey) return out;
      key = page.nextKey;
    }
    throw new Error('paging did not end');
  };
  const bad = async (path: string, errorCode: string, names: string) => {
    const res = await ex.get(path);
    expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(400);
    expect(res.body.status).toBe('failure');
    expect(res.body.errorCode).toBe(errorCode);
    expect(res.body.message).toContain(names);
  };

  beforeAll(async () => {
    ex = await startTestExchange({ demo: true }, { now: () => NOW });
    all = await collect('');
  });
  afterAll(async () => ex.destroy());

  it('seeds a realistic demo catalogue: 5 sports, 8 leagues, 44 fixtures, quarter lines with legs, live games', async () => {
    expect(await data('/sports')).toEqual([
      { sportId: 1, label: 'Basketball' },
      { sportId: 2, label: 'Ice Hockey' },
      { sportId: 4, label: 'American Football' },
      { sportId: 5, label: 'Soccer' },
      { sportId: 6, label: 'Tennis' },
    ]);
    expect(all).toHaveLength(ex.ctx.catalogue.activeMarkets().length);
    expect(all.length).toBeGreaterThan(400);
    expect(new Set(all.map((m) => m.exchangeEventId)).size).toBe(44);
    const types = new Set(all.map((m) => m.type));
    expect([...types].sort((a, b) => a - b)).toEqual([1, 2, 3, 52, 226, 342]);
    const quarters = all.filter((m) => m.isQuarterLineMarket);
    expect(quarters.length).toBeGreaterThan(0);
    for (const q of quarters) {
      expect(q.sportLabel).toBe('Soccer');
      const legs = ex.ctx.catalogue.getMarket(q.marketHash)!.legMarketHashes!;
      const legLines = legs.map((h) => ex.ctx.catalogue.getMarket(h)!.line!);
      expect(legLines).toEqual([Math.floor((q.line as number) * 2) / 2 + 0, Math.ceil((q.line as number) * 2) / 2 + 0]);
    }
    const last = Math.max(...all.map((m) => m.gameTime));
    expect(last).toBeLessThanOrEqual(NOW / 1000 + 15 * 86_400);
  });

  it('the demo is deterministic: a second exchange seeded at the same time has the same markets', async () => {
    const other = await startTestExchange({ demo: true }, { now: () => NOW });
    try {
      const page = (await other.get('/markets/active?pageSize=100')).body.data.markets;
      expect(page).toEqual(all.slice(0, 100));
    } finally {
      await other.destroy();
    }
  });

  it('pages of 7 visit every active market exactly once, in (gameTime, marketHash) order', async () => {
    const paged = await collect('', 7);
    expect(paged).toEqual(all);
    expect(new Set(paged.map((m) => m.marketHash)).size).toBe(paged.length);
    for (let i = 1; i < paged.length; i++) {
      const [a, b] = [paged[i - 1]!, paged[i]!];
      expect(a.gameTime < b.gameTime || (a.gameTime === b.gameTime && a.marketHash < b.marketHash)).toBe(true);
    }
  });

  it('the cursor is stable: suspending a market already seen does not shift the next page', async () => {
    const first = await data('/markets/active?pageSize=7');
    const seen = first.markets[2].marketHash;
    const expectedNext = all.slice(7, 14);
    await ex.admin('POST', `/admin/markets/${seen}/status`, { status: 'SUSPENDED' });
    try {
      const next = await data(`/markets/active?pageSize=7&paginationKey=${first.nextKey}`);
      expect(next.markets).toEqual(expectedNext);
    } finally {
      await ex.admin('POST', `/admin/markets/${seen}/status`, { status: 'ACTIVE' });
    }
  });

  it('defaults to 50 per page and answers the last page with an empty nextKey', async () => {
    const page = await data('/markets/active');
    expect(page.markets).toEqual(all.slice(0, 50));
    expect(typeof page.nextKey).toBe('string');
    expect(page.nextKey).not.toBe('');
    const lastFixture = all[all.length - 1]!.exchangeEventId;
    const tail = await data(`/markets/active?eventId=${lastFixture}`);
    expect(tail.nextKey).toBe('');
  });

  it('filters narrow the list exactly', async () => {
    const byEvent = await collect('eventId=L1002');
    expect(byEvent).toEqual(all.filter((m) => m.exchangeEventId === 'L1002'));
    expect(byEvent.length).toBeGreaterThan(5);

    const byLeague = await collect('leagueId=102');
    expect(byLeague).toEqual(all.filter((m) => m.leagueId === 102));
    expect(byLeague.length).toBeGreaterThan(0);

    const bySports = await collect('sportIds=1,6');
    expect(bySports).toEqual(all.filter((m) => m.sportId === 1 || m.sportId === 6));
    expect(new Set(bySports.map((m) => m.sportId))).toEqual(new Set([1, 6]));

    const byType = await collect('type=2,342');
    expect(byType).toEqual(all.filter((m) => m.type === 2 || m.type === 342));

    const oneXTwo = await collect('betGroup=1X2');
    expect(oneXTwo).toEqual(all.filter((m) => m.type === 1));
    expect(oneXTwo).toHaveLength(18 * 3);
    expect(await collect('betGroup=game-lines')).toEqual(all.filter((m) => m.type !== 1));

    const cutoff = all[Math.floor(all.length / 2)]!.gameTime;
    const later = await collect(`gameTime=${cutoff}`);
    expect(later).toEqual(all.filter((m) => m.gameTime >= cutoff));
    expect(later.length).toBeLessThan(all.length);

    const main = await collect('onlyMainLine=true');
    expect(main).toEqual(all.filter((m) => ![2, 3, 342].includes(m.type) || m.mainLine === true));
    const groups = new Map<string, number>();
    for (const m of main.filter((x) => [2, 3, 342].includes(x.type))) {
      const key = `${m.exchangeEventId}:${m.type}`;
      groups.set(key, (groups.get(key) ?? 0) + 1);
    }
    expect([...groups.values()].every((n) => n === 1)).toBe(true);

    const live = await collect('liveOnly=true');
    expect(new Set(live.map((m) => m.exchangeEventId))).toEqual(new Set(['L1001', 'L1019', 'L1031', 'L1040']));
    expect(live).toEqual(all.filter((m) => ['L1001', 'L1019', 'L1031', 'L1040'].includes(m.exchangeEventId) && m.liveEnabled));

    const combined = await collect('sportIds=5&type=3&onlyMainLine=true&leagueId=101');
    expect(combined).toHaveLength(8);
    expect(combined.every((m) => m.leagueId === 101 && m.type === 3 && m.mainLine === true)).toBe(true);
  });

  it('rejects every bad /markets/active parameter with 400, an errorCode and the parameter named', async () => {
    await bad('/markets/active?pageSize=101', 'INVALID_PARAMETER', 'pageSize');
    await bad('/markets/active?pageSize=0', 'INVALID_PARAMETER', 'pageSize');
    await bad('/markets/active?pageSize=ten', 'INVALID_PARAMETER', 'pageSize');
    await bad('/markets/active?leagueId=abc', 'INVALID_PARAMETER', 'leagueId');
    await bad('/markets/active?gameTime=-1', 'INVALID_PARAMETER', 'gameTime');
    await bad('/markets/active?liveOnly=maybe', 'INVALID_PARAMETER', 'liveOnly');
    await bad('/markets/active?onlyMainLine=2', 'INVALID_PARAMETER', 'onlyMainLine');
    await bad('/markets/active?sportIds=1,x', 'INVALID_PARAMETER', 'sportIds');
    await bad('/markets/active?sportIds=1,,2', 'INVALID_PARAMETER', 'sportIds');
    await bad('/markets/active?type=1,a', 'INVALID_PARAMETER', 'type');
    await bad('/markets/active?betGroup=props', 'INVALID_PARAMETER', 'betGroup');
    await bad('/markets/active?betGroup=1X2&type=1', 'INVALID_PARAMETER', 'betGroup and type');
    await bad('/markets/active?paginationKey=garbage', 'INVALID_PAGINATION_KEY', 'paginationKey');
    const forged = Buffer.from(JSON.stringify([1, 'nope'])).toString('base64url');
    await bad(`/markets/active?paginationKey=${forged}`, 'INVALID_PAGINATION_KEY', 'paginationKey');
  });

  it('/markets/find returns known markets in request order, skips unknown ones, and checks its hashes', async () => {
    const [a, b] = [all[5]!, all[40]!];
    const unknown = '0x' + '0'.repeat(64);
    expect(await data(`/markets/find?marketHashes=${b.marketHash},${unknown},${a.marketHash.toUpperCase().replace('0X', '0x')}`)).toEqual([b, a]);
    const thirty = all.slice(0, 30).map((m) => m.marketHash);
    expect(await data(`/markets/find?marketHashes=${thirty.join(',')}`)).toEqual(all.slice(0, 30));
    const thirtyOne = all.slice(0, 31).map((m) => m.marketHash);
    await bad(`/markets/find?marketHashes=${thirtyOne.join(',')}`, 'BAD_MARKET_HASHES', 'marketHashes');
    await bad('/markets/find', 'BAD_MARKET_HASHES', 'marketHashes');
    await bad('/markets/find?marketHashes=', 'BAD_MARKET_HASHES', 'marketHashes');
    await bad('/markets/find?marketHashes=0x1234', 'BAD_MARKET_HASHES', 'marketHashes');
  });

  it('/markets/popular: ten active markets by matched volume, then by game time', async () => {
    expect(await data('/markets/popular')).toEqual(all.slice(0, 10));
    const target = all[200]!;
    const volume = vi.spyOn(ex.ctx.trading.readModels, 'matchedVolume');
    volume.mockResolvedValue(new Map([[target.marketHash, 5_000_000n], [all[300]!.marketHash, 9_000_000n]]));
    try {
      expect(await data('/markets/popular')).toEqual([all[300], target, ...all.slice(0, 8)]);
    } finally {
      volume.mockRestore();
    }
  });

  it('/search: case-insensitive partial team names, at most 8 active fixtures by game time', async () => {
    const hits = await data('/search?query=CiTy');
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.length).toBeLessThanOrEqual(8);
    expect(await data('/search?query=city')).toEqual(hits);
    for (let i = 1; i < hits.length; i++) expect(hits[i - 1].gameTime).toBeLessThanOrEqual(hits[i].gameTime);
    for (const h of hits) {
      expect(`${h.teamOneName} ${h.teamTwoName}`.toLowerCase()).toContain('city');
      const markets = all.filter((m) => m.exchangeEventId === h.eventId);
      expect(h).toEqual({
        eventId: h.eventId,
        gameTime: markets[0]!.gameTime,
        teamOneName: markets[0]!.teamOneName,
        teamTwoName: markets[0]!.teamTwoName,
        sportId: markets[0]!.sportId,
        leagueId: markets[0]!.leagueId,
        leagueLabel: markets[0]!.leagueLabel,
        type: [...new Set(markets.map((m) => m.type))].sort((x, y) => x - y),
      });
    }
    // "ers" matches more than 8 fixtures: the answer is the first 8 of them by game time.
    const matching = [...new Map(all.map((m) => [m.exchangeEventId, m])).values()]
      .filter((m) => `${m.teamOneName}|${m.teamTwoName}`.toLowerCase().includes('ers'))
      .sort((x, y) => x.gameTime - y.gameTime);
    expect(matching.length).toBeGreaterThan(8);
    expect((await data('/search?query=ERS')).map((h: { eventId: string }) => h.eventId)).toEqual(matching.slice(0, 8).map((m) => m.exchangeEventId));
    expect(await data('/search?query=zzzz')).toEqual([]);
    await bad('/search?query=ab', 'INVALID_PARAMETER', 'query');
    await bad(`/search?query=${'a'.repeat(101)}`, 'INVALID_PARAMETER', 'query');
    await bad('/search', 'INVALID_PARAMETER', 'query');
    expect(await data(`/search?query=${'a'.repeat(100)}`)).toEqual([]);
  });

  it('/leagues/active, /teams and their paging', async () => {
    expect(await data('/leagues/active?sportId=5')).toEqual([
      { leagueId: 101, label: 'Premier Division', sportId: 5, active: true },
      { leagueId: 102, label: 'Liga Primera', sportId: 5, active: true },
      { leagueId: 103, label: 'Serie Alpina', sportId: 5, active: true },
    ]);
    expect(await data('/leagues/active')).toHaveLength(8);
    const soccer = await data('/teams?sportId=5&pageSize=500');
    expect(soccer).toHaveLength(22);
    expect(soccer[0]).toEqual({ id: 1, name: 'Northbridge United', sport: { sportId: 5, label: 'Soccer', active: true } });
    expect(await data('/teams?sportId=5&page=1&pageSize=5')).toEqual(soccer.slice(5, 10));
    expect(await data('/teams')).toHaveLength(20);
    expect(await data('/teams?page=2')).toHaveLength(16);
    expect(await data('/teams?teamId=3')).toEqual([soccer[2]]);
    await bad('/teams?pageSize=501', 'INVALID_PARAMETER', 'pageSize');
    await bad('/teams?page=-1', 'INVALID_PARAMETER', 'page');
    await bad('/teams?sportId=x', 'INVALID_PARAMETER', 'sportId');
    await bad('/leagues/active?sportId=x', 'INVALID_PARAMETER', 'sportId');
  });

  it('/fixture/active lists a league by start date and only the active statuses', async () => {
    const fixtures = await data('/fixture/active?leagueId=101');
    expect(fixtures).toHaveLength(8);
    expect(fixtures[0]).toEqual({
      participantOneName: 'Northbridge United',
      participantTwoName: 'Harrowgate Forest',
      startDate: new Date(Date.UTC(2026, 5, 1, 8, 50)).toISOString(),
      status: 2,
      leagueId: 101,
      leagueLabel: 'Premier Division',
      sportId: 5,
      eventId: 'L1001',
    });
    const starts = fixtures.map((f: { startDate: string }) => f.startDate);
    expect([...starts].sort()).toEqual(starts);
    const target = fixtures[3].eventId;
    const shown = async () => (await data('/fixture/active?leagueId=101')).map((f: { eventId: string }) => f.eventId);
    for (const [status, visible] of [[3, false], [4, false], [5, false], [6, true], [7, true], [8, true], [9, true], [1, true]] as const) {
      const res = await ex.admin('POST', `/admin/fixtures/${target}/status`, { status });
      expect(res.body.data.status).toBe(status);
      expect((await shown()).includes(target)).toBe(visible);
    }
    await bad('/fixture/active', 'INVALID_PARAMETER', 'leagueId');
    await bad('/fixture/active?leagueId=abc', 'INVALID_PARAMETER', 'leagueId');
    expect(await data('/fixture/active?leagueId=999')).toEqual([]);
  });

  it('/live-scores: the four live games, by id list up to 50', async () => {
    const scores = await data('/live-scores');
    expect(scores.map((s: { exchangeEventId: string }) => s.exchangeEventId)).toEqual(['L1001', 'L1019', 'L1031', 'L1040']);
    for (const s of scores) {
      expect(Object.keys(s)).toEqual(['sportId', 'leagueId', 'exchangeEventId', 'currentPeriod', 'periodTime', 'teamOneScore', 'teamTwoScore', 'periods', 'extra', 'createdAt', 'updatedAt']);
      const extra = JSON.parse(s.extra);
      expect(extra.every((p: Record<string, unknown>) => typeof p.Name === 'string' && typeof p.Value === 'string')).toBe(true);
      const periodSum = (side: 'teamOneScore' | 'teamTwoScore') => s.periods.reduce((t: number, p: Record<string, string>) => t + Number(p[side]), 0);
      if (s.sportId !== 6) expect([periodSum('teamOneScore'), periodSum('teamTwoScore')]).toEqual([s.teamOneScore, s.teamTwoScore]);
    }
    expect(await data('/live-scores?exchangeEventIds=L1019,L1002,L1001')).toEqual([scores[1], scores[0]]);
    const ids = Array.from({ length: 51 }, (_, i) => `L${1000 + i}`);
    await bad(`/live-scores?exchangeEventIds=${ids.join(',')}`, 'INVALID_PARAMETER', 'exchangeEventIds');
    expect(await data(`/live-scores?exchangeEventIds=${ids.slice(0, 50).join(',')}`)).toEqual(scores);
  });

  it('in play is fixture status 2: the trading side reads it per market', async () => {
    const live = (await ex.ctx.catalogue.marketsOfEvent('L1001'))[0]!;
    const later = (await ex.ctx.catalogue.marketsOfEvent('L1002'))[0]!;
    expect([ex.ctx.catalogue.isInPlay(live), ex.ctx.catalogue.isInPlay(later)]).toEqual([true, false]);
    expect(ex.ctx.catalogue.marketsOfLeagues([103, 301]).map((m) => m.marketHash)).toEqual(
      all.filter((m) => m.leagueId === 103 || m.leagueId === 301).map((m) => m.marketHash),
    );
  });

  it('/metadata carries every field with the configured values, addresses checksummed', async () => {
    const token = '0x6629Ce1Cf35Cc1329ebB4F63202F3f197b3F050B';
    expect(await data('/metadata')).toEqual({
      executorAddress: getSetting(ex.ctx.db!, 'deployment.executorAddress'),
      // The default rates (parlays 5%, as the public exchange charges) have no fee account to pay: none is charged.
      oracleFees: { [token]: { '0': '0', '1': '0', '2': '0', '3': '0' } },
      feeAccount: '0x0000000000000000000000000000000000000000',
      exchangeAffiliate: { address: '0x0000000000000000000000000000000000000000', amount: '0' },
      makerOrderMinimums: { [token]: '10000000' },
      takerMinimums: { [token]: '1000000' },
      addresses: { '4162': { USDC: token } },
      EIP712FillHasher: '0x3E96B0a25d51e3Cc89C557f152797c33B839968f',
      TokenTransferProxy: '0x38aeF22dc8b2a9b8d3c1e53D35b6b0D0b2a1da63',
      oddsLadderStepSize: 125,
      bridgeFee: 0,
      depositBridgeFee: 0,
      withdrawalBridgeFee: 0,
      depositBridgeFeeEthereum: 0,
      minimumDepositAmountEthereum: 0,
      depositBridgeFeeArbitrum: 0,
      minimumDepositAmountArbitrum: 0,
      withdrawBridgeFeeArbitrum: 0,
      popularSports: [5, 1, 2, 6, 4],
      leagueOrderingBySport: { '1': [201, 202], '2': [301], '4': [401], '5': [101, 102, 103], '6': [501] },
      cashoutFee: '0',
      crosschainFees: { '4162': 0 },
      chainVersion: 'v1',
      domainVersion: '1.0',
      chainId: 4162,
      domainNames: { fill: 'Oddex', cancelV2: 'CancelOrderV2Oddex', cancelEvent: 'CancelOrderEventsOddex', cancelAll: 'CancelAllOrdersOddex', parlayRequest: 'ParlayRequestOddex' },
      bettingDelays: { preGameMs: 500, inPlayMs: 8000, inPlayBySportMs: { soccer: 10_000, tennis: 5000 }, inPlayByLeagueMs: {} },
      demoFunds: { amount: '100000000', maxBalance: '1000000000' },
    });
  });

  it('/metadata follows the configuration', async () => {
    const other = await startTestExchange({
      chainId: 99,
      baseTokenAddress: '0x' + 'a'.repeat(40),
      makerMinimum: 5_000_000n,
      takerMinimum: 2n,
      fees: { singlesBps: 300, parlaysBps: 1, account: '0x' + 'b'.repeat(40), affiliateShareBps: 10_000, cashoutBps: 7 },
      exchangeAffiliateAmount: 12n,
      bridgeFees: { bridgeFee: 0.5, depositBridgeFee: 1 },
      crosschainFees: { '1': 2.5 },
      domainVersion: '2.0',
    });
    try {
      const m = (await other.get('/metadata')).body.data;
      const token = getAddress('0x' + 'a'.repeat(40));
      expect(token).not.toBe('0x' + 'a'.repeat(40));
      expect(m.addresses).toEqual({ '99': { USDC: token } });
      expect(m.oracleFees).toEqual({ [token]: { '0': '3000000000000000000', '1': '10000000000000000', '2': '70000000000000000', '3': '100000000000000000000' } });
      expect(m.feeAccount).toBe(getAddress('0x' + 'b'.repeat(40)));
      expect([m.makerOrderMinimums, m.takerMinimums]).toEqual([{ [token]: '5000000' }, { [token]: '2' }]);
      expect([m.cashoutFee, m.exchangeAffiliate.amount, m.bridgeFee, m.depositBridgeFee, m.withdrawalBridgeFee]).toEqual(['7', '12', 0.5, 1, 0]);
      expect(m.crosschainFees).toEqual({ '99': 0, '1': 2.5 });
      expect([m.chainId, m.domainVersion, m.popularSports, m.leagueOrderingBySport]).toEqual([99, '2.0', [], {}]);
      expect(m.demoFunds).toBeNull(); // not in demo mode
    } finally {
      await other.destroy();
    }
  });

  it('every catalogue route is in /openapi.json with a tag', async () => {
    const spec = (await ex.get('/openapi.json')).body;
    const routes: [string, string][] = [
      ['/markets/active', 'get'],
      ['/markets/find', 'get'],
      ['/markets/popular', 'get'],
      ['/search', 'get'],
      ['/sports', 'get'],
      ['/leagues/active', 'get'],
      ['/teams', 'get'],
      ['/fixture/active', 'get'],
      ['/live-scores', 'get'],
      ['/metadata', 'get'],
      ['/admin/sports', 'post'],
      ['/admin/leagues', 'post'],
      ['/admin/teams', 'post'],
      ['/admin/fixtures', 'post'],
      ['/admin/fixtures/{exchangeEventId}/status', 'post'],
      ['/admin/fixtures/{exchangeEventId}/result', 'post'],
      ['/admin/markets', 'post'],
      ['/admin/markets/{marketHash}/status', 'post'],
      ['/admin/markets/{marketHash}/main-line', 'post'],
      ['/admin/markets/{marketHash}/report', 'post'],
      ['/admin/live-scores', 'post'],
    ];
    for (const [path, method] of routes) expect(spec.paths[path]?.[method]?.tags?.length, `${method} ${path}`).toBeGreaterThan(0);
  });
});
