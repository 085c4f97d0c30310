// The operator catalogue API end to end: building a catalogue, exact market shapes, quarter lines with legs,
// reporting by each type's rule, errors, bus events, and persistence across a restart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keccak256, toBytes } from 'viem';
import { startTestExchange, type TestExchange } from './helpers/server.js';
import { defaultConfig } from '../src/config.js';

const NOW = Date.UTC(2026, 5, 1, 12, 0, 0);
const KICK_OFF = NOW / 1000 + 3 * 86_400;
/** The hash rule, computed independently with viem. */
const hashOf = (eventId: string, type: number, line = '', selection = '') =>
  keccak256(toBytes(['oddex-market-v1', eventId, type, line, selection].join('|')));

describe('operator catalogue API', () => {
  let ex: TestExchange;
  type BusName = 'markets' | 'mainLine' | 'fixtures' | 'liveScores';
  const events: Record<BusName, Record<string, unknown>[][]> = { markets: [], mainLine: [], fixtures: [], liveScores: [] };
  const reportedCalls: { reports: { marketHash: string; outcome: number }[]; statusesAtCall: string[] }[] = [];
  let eventId: string;

  const ok = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
    const res = method === 'GET' ? await ex.get(path) : await ex.admin('POST', path, body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data;
  };
  const fail = async (path: string, body: unknown, status: number, errorCode: string, mentions?: string) => {
    const res = await ex.admin('POST', path, body);
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body.status).toBe('failure');
    expect(res.body.errorCode).toBe(errorCode);
    if (mentions) expect(res.body.message).toContain(mentions);
  };
  const find = async (hashes: string[]) => ok('GET', `/markets/find?marketHashes=${hashes.join(',')}`);

  function watch(target: TestExchange) {
    for (const name of Object.keys(events) as BusName[]) {
      target.ctx.bus.on(name, (items: unknown) => events[name].push(items as never));
    }
    // Wrap the engine hook: record what it was told and the catalogue state at that moment.
    const original = target.ctx.trading.marketsReported.bind(target.ctx.trading);
    target.ctx.trading.marketsReported = async (reports, ...along) => {
      reportedCalls.push({
        reports: reports.map((r) => ({ ...r })),
        statusesAtCall: reports.map((r) => target.ctx.catalogue.getMarket(r.marketHash)!.status),
      });
      return original(reports, ...along);
    };
  }

  beforeAll(async () => {
    // The guard test below fails authentication 16 times from one address, more than the default allows per window.
    const rateLimits = { ...defaultConfig().rateLimits, adminAuthFailuresPerWindow: 100 };
    ex = await startTestExchange({ rateLimits }, { now: () => NOW });
    watch(ex);
    expect(await ok('POST', '/admin/sports', { label: 'Soccer' })).toEqual({ sportId: 1, label: 'Soccer' });
    expect(await ok('POST', '/admin/sports', { sportId: 7, label: 'Tennis' })).toEqual({ sportId: 7, label: 'Tennis' });
    expect(await ok('POST', '/admin/leagues', { sportId: 1, label: 'Test League' })).toEqual({
      leagueId: 1,
      label: 'Test League',
      sportId: 1,
      active: true,
    });
    expect(await ok('POST', '/admin/teams', { sportId: 1, name: 'Alpha FC' })).toEqual({
      id: 1,
      name: 'Alpha FC',
      sport: { sportId: 1, label: 'Soccer', active: true },
    });
    await ok('POST', '/admin/teams', { sportId: 1, name: 'Beta FC' });
    await ok('POST', '/admin/teams', { sportId: 7, name: 'Jo Player' });
    const fixture = await ok('POST', '/admin/fixtures', { leagueId: 1, teamOneId: 1, teamTwoId: 2, gameTime: KICK_OFF });
    eventId = fixture.eventId;
    expect(fixture).toEqual({
      participantOneName: 'Alpha FC',
      participantTwoName: 'Beta FC',
      startDate: new Date(KICK_OFF * 1000).toISOString(),
      status: 1,
      leagueId: 1,
      leagueLabel: 'Test League',
      sportId: 1,
      eventId: 'L1',
    });
    expect(events.fixtures).toEqual([[fixture]]);
  });
  afterAll(async () => ex.destroy());

  it('creates the three binary markets of a 1X2 with their labels', async () => {
    const markets = await ok('POST', '/admin/markets', { exchangeEventId: eventId, type: 1, liveEnabled: true });
    expect(markets.map((m: Record<string, unknown>) => [m.marketHash, m.outcomeOneName, m.outcomeTwoName, m.outcomeVoidName])).toEqual([
      [hashOf('L1', 1, '', 'teamOne'), 'Alpha FC', 'Not Alpha FC', 'NO_CONTEST'],
      [hashOf('L1', 1, '', 'draw'), 'Draw', 'No Draw', 'NO_CONTEST'],
      [hashOf('L1', 1, '', 'teamTwo'), 'Beta FC', 'Not Beta FC', 'NO_CONTEST'],
    ]);
    for (const m of markets) expect(m).not.toHaveProperty('line');
    for (const m of markets) expect(m).not.toHaveProperty('mainLine');
    expect(events.markets.at(-1)).toEqual(markets);
  });

  it('creates a quarter-line spread with exactly this shape, creating one leg and linking the other', async () => {
    const [main] = await ok('POST', '/admin/markets', { exchangeEventId: eventId, type: 3, line: -0.5, mainLine: true });
    expect(main.mainLine).toBe(true);
    const created = await ok('POST', '/admin/markets', { exchangeEventId: eventId, type: 3, line: -0.75 });
    expect(created.map((m: Record<string, unknown>) => m.line)).toEqual([-0.75, -1, -0.5]);
    expect(created[0]).toEqual({
      status: 'ACTIVE',
      marketHash: hashOf('L1', 3, '-0.75'),
      outcomeOneName: 'Alpha FC -0.75',
      outcomeTwoName: 'Beta FC +0.75',
      outcomeVoidName: 'NO_GAME_OR_EVEN',
      teamOneName: 'Alpha FC',
      teamTwoName: 'Beta FC',
      type: 3,
      gameTime: KICK_OFF,
      line: -0.75,
      exchangeEventId: 'L1',
      liveEnabled: false,
      sportLabel: 'Soccer',
      sportId: 1,
      leagueId: 1,
      leagueLabel: 'Test League',
      group1: 'Test League',
      chainVersion: 'v1',
      participantOneId: 1,
      participantTwoId: 2,
      mainLine: false,
      exchangeTeamOneId: 1,
      exchangeTeamTwoId: 2,
      isQuarterLineMarket: true,
      __type: 'Market',
    });
    expect(created[1]).toMatchObject({ marketHash: hashOf('L1', 3, '-1'), isQuarterLineMarket: false, outcomeOneName: 'Alpha FC -1' });
    expect(created[2]).toEqual(main);
    // The trading side sees the legs, [lower line, higher line].
    expect(ex.ctx.catalogue.getMarket(hashOf('L1', 3, '-0.75'))!.legMarketHashes).toEqual([hashOf('L1', 3, '-1'), hashOf('L1', 3, '-0.5')]);
  });

  it('creates totals and a quarter total, a moneyline, and refuses duplicates and bad lines', async () => {
    await ok('POST', '/admin/markets', { exchangeEventId: eventId, type: 2, line: 2.5, mainLine: true });
    const quarter = await ok('POST', '/admin/markets', { exchangeEventId: eventId, type: 2, line: 2.25 });
    expect(quarter.map((m: Record<string, unknown>) => [m.line, m.outcomeOneName, m.outcomeTwoName])).toEqual([
      [2.25, 'Over 2.25', 'Under 2.25'],
      [2, 'Over 2', 'Under 2'],
      [2.5, 'Over 2.5', 'Under 2.5'],
    ]);
    const [ml] = await ok('POST', '/admin/markets', { exchangeEventId: eventId, type: 52 });
    expect([ml.outcomeOneName, ml.outcomeTwoName, ml.outcomeVoidName]).toEqual(['Alpha FC', 'Beta FC', 'NO_CONTEST']);
    await fail('/admin/markets', { exchangeEventId: eventId, type: 52 }, 409, 'MARKET_EXISTS');
    await fail('/admin/markets', { exchangeEventId: eventId, type: 3 }, 400, 'INVALID_LINE', 'line');
    await fail('/admin/markets', { exchangeEventId: eventId, type: 3, line: 0.1 }, 400, 'INVALID_LINE', 'line');
    await fail('/admin/markets', { exchangeEventId: eventId, type: 2, line: 0.25 }, 400, 'INVALID_LINE', 'line');
    await fail('/admin/markets', { exchangeEventId: eventId, type: 52, line: 1.5 }, 400, 'INVALID_LINE', 'line');
    await fail('/admin/markets', { exchangeEventId: eventId, type: 7 }, 400, 'INVALID_MARKET_TYPE', 'type');
    await fail('/admin/markets', { exchangeEventId: eventId, type: 52, selection: 'draw' }, 400, 'INVALID_PARAMETER', 'selection');
    await fail('/admin/markets', { exchangeEventId: 'L999', type: 52 }, 404, 'FIXTURE_NOT_FOUND', 'L999');
    await fail('/admin/markets', { exchangeEventId: eventId, type: '52' }, 400, 'INVALID_PARAMETER', 'type');
    await fail('/admin/markets', { exchangeEventId: eventId, type: 52, colour: 'red' }, 400, 'INVALID_PARAMETER');
  });

  it('refuses bad catalogue writes with the right status and code', async () => {
    await fail('/admin/sports', { label: 'soccer' }, 409, 'SPORT_EXISTS');
    await fail('/admin/sports', { sportId: 1, label: 'Curling' }, 409, 'SPORT_EXISTS');
    await fail('/admin/sports', { label: '' }, 400, 'INVALID_PARAMETER', 'label');
    await fail('/admin/leagues', { sportId: 99, label: 'X' }, 404, 'SPORT_NOT_FOUND', '99');
    await fail('/admin/teams', { sportId: 1, name: 'Alpha FC' }, 409, 'TEAM_EXISTS');
    await fail('/admin/fixtures', { leagueId: 9, teamOneId: 1, teamTwoId: 2, gameTime: KICK_OFF }, 404, 'LEAGUE_NOT_FOUND');
    await fail('/admin/fixtures', { leagueId: 1, teamOneId: 1, teamTwoId: 99, gameTime: KICK_OFF }, 404, 'TEAM_NOT_FOUND', 'teamTwoId');
    await fail('/admin/fixtures', { leagueId: 1, teamOneId: 1, teamTwoId: 3, gameTime: KICK_OFF }, 400, 'TEAM_NOT_IN_SPORT', 'teamTwoId');
    await fail('/admin/fixtures', { leagueId: 1, teamOneId: 1, teamTwoId: 1, gameTime: KICK_OFF }, 400, 'INVALID_PARAMETER', 'teamTwoId');
    await fail('/admin/fixtures', { leagueId: 1, teamOneId: 1, teamTwoId: 2, gameTime: -5 }, 400, 'INVALID_PARAMETER', 'gameTime');
    await fail('/admin/fixtures/L1/status', { status: 10 }, 400, 'INVALID_PARAMETER', 'status');
    await fail('/admin/fixtures/L404/status', { status: 2 }, 404, 'FIXTURE_NOT_FOUND');
    await fail('/admin/markets/0x' + 'ab'.repeat(32) + '/main-line', undefined, 404, 'MARKET_NOT_FOUND');
    await fail('/admin/markets/0x1234/main-line', undefined, 400, 'INVALID_PARAMETER', 'marketHash');
    await fail(`/admin/markets/${hashOf('L1', 52)}/main-line`, undefined, 400, 'NOT_A_LINE_MARKET');
    await fail('/admin/sports', '{"label": ', 400, 'MALFORMED_JSON');
    await fail('/admin/markets', '{not json', 400, 'MALFORMED_JSON');
  });

  it('needs the admin token on every operator route', async () => {
    const paths = ['/admin/sports', '/admin/leagues', '/admin/teams', '/admin/fixtures', '/admin/markets', '/admin/live-scores', '/admin/fixtures/L1/result', `/admin/markets/${hashOf('L1', 52)}/report`];
    for (const path of paths) {
      const none = await ex.post(path, { label: 'x' });
      const wrong = await ex.post(path, { label: 'x' }, { authorization: 'Bearer wrong-token' });
      for (const res of [none, wrong]) {
        expect(res.status).toBe(401);
        expect(res.body.errorCode).toBe('UNAUTHORIZED');
      }
    }
  });

  it('moves the main line within its group and announces it', async () => {
    events.mainLine.length = 0;
    const moved = await ok('POST', `/admin/markets/${hashOf('L1', 3, '-1')}/main-line`);
    expect(moved.mainLine).toBe(true);
    const group = await find([hashOf('L1', 3, '-0.5'), hashOf('L1', 3, '-1'), hashOf('L1', 3, '-0.75')]);
    expect(group.map((m: Record<string, unknown>) => [m.line, m.mainLine])).toEqual([
      [-0.5, false],
      [-1, true],
      [-0.75, false],
    ]);
    // The market that lost the flag is announced with it, after the new main line.
    const [demoted] = await find([hashOf('L1', 3, '-0.5')]);
    expect(events.mainLine).toEqual([[moved, demoted]]);
    const main = await ok('GET', `/markets/active?eventId=L1&onlyMainLine=true&type=3`);
    expect(main.markets.map((m: Record<string, unknown>) => m.line)).toEqual([-1]);
  });

  it('records live scores per spec 2.6 and validates extra', async () => {
    events.liveScores.length = 0;
    const body = {
      exchangeEventId: 'L1',
      currentPeriod: '1st Half',
      periodTime: '23:10',
      teamOneScore: 1,
      teamTwoScore: 0,
      periods: [{ label: '1st Half', isFinished: false, teamOneScore: '1', teamTwoScore: '0' }],
      extra: JSON.stringify([{ Name: 'Corners', Value: '2-1' }]),
    };
    const score = await ok('POST', '/admin/live-scores', body);
    const expected = { sportId: 1, leagueId: 1, ...body, createdAt: new Date(NOW).toISOString(), updatedAt: new Date(NOW).toISOString() };
    expect(score).toEqual(expected);
    expect(events.liveScores).toEqual([[expected]]);
    expect(await ok('GET', '/live-scores?exchangeEventIds=L1,L77')).toEqual([expected]);
    await fail('/admin/live-scores', { ...body, extra: 'not json' }, 400, 'INVALID_PARAMETER', 'extra');
    await fail('/admin/live-scores', { ...body, extra: '[{"Name":"x","Value":3}]' }, 400, 'INVALID_PARAMETER', 'extra');
    await fail('/admin/live-scores', { ...body, exchangeEventId: 'L77' }, 404, 'FIXTURE_NOT_FOUND');
    await fail('/admin/live-scores', { ...body, teamOneScore: -1 }, 400, 'INVALID_PARAMETER', 'teamOneScore');
  });

  it('suspends and reactivates a market: suspended markets leave the active list but stay findable', async () => {
    const hash = hashOf('L1', 52);
    events.markets.length = 0;
    expect((await ok('POST', `/admin/markets/${hash}/status`, { status: 'SUSPENDED' })).status).toBe('SUSPENDED');
    expect(events.markets).toHaveLength(1);
    expect(events.markets[0]?.[0]).toMatchObject({ marketHash: hash, status: 'SUSPENDED' });
    const active = await ok('GET', '/markets/active?eventId=L1');
    expect(active.markets.map((m: Record<string, unknown>) => m.marketHash)).not.toContain(hash);
    expect((await find([hash]))[0].status).toBe('SUSPENDED');
    await fail(`/admin/markets/${hash}/status`, { status: 'SETTLED' }, 400, 'INVALID_PARAMETER', 'status');
    expect((await ok('POST', `/admin/markets/${hash}/status`, { status: 'ACTIVE' })).status).toBe('ACTIVE');
  });

  it('reports one market by hand: engine first, then settled; the same report again is answered as reported, another is a 409; a quarter parent goes through its legs', async () => {
    const hash = hashOf('L1', 1, '', 'draw');
    reportedCalls.length = 0;
    const [settled] = await ok('POST', `/admin/markets/${hash}/report`, { outcome: 2, teamOneScore: 1, teamTwoScore: 0 });
    expect(reportedCalls).toEqual([{ reports: [{ marketHash: hash, outcome: 2, teamOneScore: 1, teamTwoScore: 0 }], statusesAtCall: ['ACTIVE'] }]);
    expect(settled).toMatchObject({ status: 'SETTLED', outcome: 2, reportedDate: new Date(NOW).toISOString(), teamOneScore: 1, teamTwoScore: 0 });
    reportedCalls.length = 0;
    expect(await ok('POST', `/admin/markets/${hash}/report`, { outcome: 2, teamOneScore: 1, teamTwoScore: 0 })).toEqual([settled]);
    expect(await ok('POST', `/admin/markets/${hash}/report`, { outcome: 2 })).toEqual([settled]);
    expect(reportedCalls).toEqual([]);
    await fail(`/admin/markets/${hash}/report`, { outcome: 1 }, 409, 'MARKET_ALREADY_REPORTED');
    await fail(`/admin/markets/${hash}/report`, { outcome: 2, teamOneScore: 2, teamTwoScore: 0 }, 409, 'MARKET_ALREADY_REPORTED');
    await fail(`/admin/markets/${hash}/status`, { status: 'SUSPENDED' }, 409, 'MARKET_ALREADY_REPORTED');
    await fail(`/admin/markets/${hashOf('L1', 3, '-0.75')}/report`, { outcome: 1 }, 400, 'QUARTER_LINE_PARENT');
    await fail(`/admin/markets/${hashOf('L1', 52)}/report`, { outcome: 3 }, 400, 'INVALID_PARAMETER', 'outcome');
    await fail(`/admin/markets/${hashOf('L1', 52)}/report`, { outcome: 1, teamOneScore: 1 }, 400, 'INVALID_PARAMETER', 'teamTwoScore');
    await fail(`/admin/markets/0x${'cd'.repeat(32)}/report`, { outcome: 1 }, 404, 'MARKET_NOT_FOUND');
  });

  it('settles the fixture by each type rule: a spread push, a quarter line through its legs, totals, 1X2', async () => {
    reportedCalls.length = 0;
    events.markets.length = 0;
    const settled = await ok('POST', '/admin/fixtures/L1/result', { teamOneScore: 1, teamTwoScore: 0 });
    const outcomes = Object.fromEntries(settled.map((m: Record<string, unknown>) => [m.marketHash, m.outcome]));
    expect(outcomes).toEqual({
      [hashOf('L1', 1, '', 'teamOne')]: 1,
      [hashOf('L1', 1, '', 'teamTwo')]: 2,
      [hashOf('L1', 52)]: 1,
      [hashOf('L1', 3, '-0.5')]: 1,
      [hashOf('L1', 3, '-1')]: 0, // 1-0 with -1: a push
      [hashOf('L1', 3, '-0.75')]: 1, // half push (-1), half win (-0.5)
      [hashOf('L1', 2, '2.5')]: 2,
      [hashOf('L1', 2, '2')]: 2,
      [hashOf('L1', 2, '2.25')]: 2,
    });
    // The draw market was reported before and is not reported again.
    expect(reportedCalls).toHaveLength(1);
    expect(reportedCalls[0]!.reports).toHaveLength(9);
    expect(reportedCalls[0]!.statusesAtCall.every((s) => s === 'ACTIVE')).toBe(true);
    expect(events.markets.flat().map((m) => m.marketHash).sort()).toEqual(Object.keys(outcomes).sort());
    for (const m of settled) {
      expect(m).toMatchObject({ status: 'SETTLED', reportedDate: new Date(NOW).toISOString(), teamOneScore: 1, teamTwoScore: 0 });
    }
    const active = await ok('GET', '/markets/active?eventId=L1');
    expect(active).toEqual({ markets: [], nextKey: '' });
    // The fixture is finished: it leaves /fixture/active.
    expect(await ok('GET', '/fixture/active?leagueId=1')).toEqual([]);
    // The same result again is answered with the fixture's markets as reported, and reports nothing.
    reportedCalls.length = 0;
    const again = await ok('POST', '/admin/fixtures/L1/result', { teamOneScore: 1, teamTwoScore: 0 });
    expect(Object.fromEntries(again.map((m: Record<string, unknown>) => [m.marketHash, m.outcome]))).toEqual({ ...outcomes, [hashOf('L1', 1, '', 'draw')]: 2 });
    expect(reportedCalls).toEqual([]);
    await fail('/admin/fixtures/L1/result', { teamOneScore: 2, teamTwoScore: 0 }, 409, 'MARKET_ALREADY_REPORTED');
    await fail('/admin/fixtures/L404/result', { teamOneScore: 1, teamTwoScore: 0 }, 404, 'FIXTURE_NOT_FOUND');
  });

  it('keeps a reported fixture to its score: a later market settles on it, another score or status is a 409; a reported market takes no main line', async () => {
    await ok('POST', '/admin/markets', { exchangeEventId: 'L1', type: 2, line: 3.5 });
    await fail('/admin/fixtures/L1/result', { teamOneScore: 5, teamTwoScore: 0 }, 409, 'MARKET_ALREADY_REPORTED', 'reported 1-0');
    expect((await find([hashOf('L1', 2, '3.5')]))[0].status).toBe('ACTIVE');
    const [late] = await ok('POST', '/admin/fixtures/L1/result', { teamOneScore: 1, teamTwoScore: 0 });
    expect(late).toMatchObject({ marketHash: hashOf('L1', 2, '3.5'), status: 'SETTLED', outcome: 2, teamOneScore: 1, teamTwoScore: 0 });
    await fail(`/admin/markets/${hashOf('L1', 2, '2.5')}/main-line`, undefined, 409, 'MARKET_ALREADY_REPORTED');
    for (const status of [1, 2, 6]) await fail('/admin/fixtures/L1/status', { status }, 409, 'MARKET_ALREADY_REPORTED', 'finished 1-0');
    expect(await ok('POST', '/admin/fixtures/L1/status', { status: 3 })).toMatchObject({ eventId: 'L1', status: 3 });
  });

  it('a settled quarter parent shows in /markets/find with exactly its result fields', async () => {
    const [parent] = await find([hashOf('L1', 3, '-0.75')]);
    expect(Object.keys(parent).slice(-5)).toEqual(['__type', 'reportedDate', 'outcome', 'teamOneScore', 'teamTwoScore']);
    expect(parent).toMatchObject({ status: 'SETTLED', outcome: 1, isQuarterLineMarket: true, line: -0.75 });
  });

  it('settling the last leg by hand settles its quarter parent; one leg alone suspends it', async () => {
    const fixture = await ok('POST', '/admin/fixtures', { leagueId: 1, teamOneId: 2, teamTwoId: 1, gameTime: KICK_OFF + 3600 });
    const e = fixture.eventId as string;
    expect(e).toBe('L2');
    await ok('POST', '/admin/markets', { exchangeEventId: e, type: 2, line: 1.75 });
    await ok('POST', '/admin/markets', { exchangeEventId: e, type: 2, line: 1.25 }); // shares the 1.5 leg
    await ok('POST', `/admin/markets/${hashOf(e, 2, '2')}/report`, { outcome: 0, teamOneScore: 1, teamTwoScore: 1 });
    const [q175, q125] = await find([hashOf(e, 2, '1.75'), hashOf(e, 2, '1.25')]);
    expect([q175.status, q125.status]).toEqual(['SUSPENDED', 'ACTIVE']);
    const settled = await ok('POST', `/admin/markets/${hashOf(e, 2, '1.5')}/report`, { outcome: 1, teamOneScore: 1, teamTwoScore: 1 });
    expect(settled.map((m: Record<string, unknown>) => [m.line, m.status, m.outcome])).toEqual([
      [1.5, 'SETTLED', 1],
      [1.75, 'SETTLED', 1],
    ]);
    expect((await find([hashOf(e, 2, '1.25')]))[0].status).toBe('SUSPENDED');
  });

  it('keeps the catalogue, settled results and live scores across a restart', async () => {
    const hashes = [hashOf('L1', 3, '-0.75'), hashOf('L1', 3, '-1'), hashOf('L1', 1, '', 'draw'), hashOf('L2', 2, '1.75'), hashOf('L2', 2, '1.25')];
    const before = {
      find: await find(hashes),
      active: await ok('GET', '/markets/active'),
      scores: await ok('GET', '/live-scores?exchangeEventIds=L1'),
      teams: await ok('GET', '/teams'),
      sports: await ok('GET', '/sports'),
    };
    ex = await ex.restart();
    // Settled markets stay on disk until asked for: memory holds the two open ones of L2 (1.25 and its 1 leg).
    expect(ex.ctx.catalogue.marketsInMemory).toEqual({ open: 2, settled: 0 });
    expect(await find(hashes)).toEqual(before.find);
    expect(ex.ctx.catalogue.marketsInMemory).toEqual({ open: 2, settled: 4 });
    expect(await ok('GET', '/markets/active')).toEqual(before.active);
    expect(await ok('GET', '/live-scores?exchangeEventIds=L1')).toEqual(before.scores);
    expect(await ok('GET', '/teams')).toEqual(before.teams);
    expect(await ok('GET', '/sports')).toEqual(before.sports);
    expect(ex.ctx.catalogue.getMarket(hashOf('L1', 3, '-0.75'))!.legMarketHashes).toEqual([hashOf('L1', 3, '-1'), hashOf('L1', 3, '-0.5')]);
  });

  it('after a restart, still refuses to create or report again a market that is settled on disk only', async () => {
    // On PostgreSQL the catalogue answers a settled market synchronously once loaded (SQLite reads it when asked).
    await ex.ctx.catalogue.loadMarkets([hashOf('L1', 3, '-0.5')]);
    expect(ex.ctx.catalogue.getMarket(hashOf('L1', 3, '-0.5'))).toMatchObject({ status: 'SETTLED', outcome: 1 });
    await fail('/admin/markets', { exchangeEventId: 'L1', type: 2, line: 2.5 }, 409, 'MARKET_EXISTS');
    await fail('/admin/markets', { exchangeEventId: 'L1', type: 3, line: -0.25 }, 409, 'MARKET_ALREADY_REPORTED', 'is settled');
    await fail(`/admin/markets/${hashOf('L1', 2, '2')}/report`, { outcome: 1 }, 409, 'MARKET_ALREADY_REPORTED');
    await fail('/admin/fixtures/L1/result', { teamOneScore: 2, teamTwoScore: 0 }, 409, 'MARKET_ALREADY_REPORTED');
    // Reporting the open leg settles it and its quarter parent (legs 2 and 1: half lost, half won), which leave
    // memory for the settled cache.
    const settled = await ok('POST', `/admin/markets/${hashOf('L2', 2, '1')}/report`, { outcome: 2, teamOneScore: 0, teamTwoScore: 1 });
    expect(settled.map((m: Record<string, unknown>) => [m.line, m.status, m.outcome])).toEqual([
      [1, 'SETTLED', 2],
      [1.25, 'SETTLED', 0],
    ]);
    expect(ex.ctx.catalogue.marketsInMemory.open).toBe(0);
    expect((await find([hashOf('L2', 2, '1.25')]))[0]).toMatchObject({ status: 'SETTLED', outcome: 0 });
  });
});
