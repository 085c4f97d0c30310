// The records an operator's request makes (a fixture, the markets of one request), checked against what the
// catalogue holds; the catalogue writes them and then shows them.
import { ExchangeError, invalidField } from '../protocol/errors.js';
import type { StoredMarket } from '../store/catalogue-records.js';
import { FixtureStatus, MarketType, SELECTIONS, type Fixture, type FixtureStatusCode, type League, type MarketRecord, type Team } from './model.js';
import { hasLine, isQuarterLine, legLines, marketHashOf } from './market-identity.js';
import { checkMarketType, normalizeLine, type NewMarket } from './market-input.js';

export interface NewFixture {
  exchangeEventId?: string;
  leagueId: number;
  teamOneId: number;
  teamTwoId: number;
  gameTime: number;
  status?: FixtureStatusCode;
}

/** The fixture a request makes; without an id, the first free `L<n>`. */
export function newFixture(
  input: NewFixture,
  leagues: ReadonlyMap<number, League>,
  teams: ReadonlyMap<number, Team>,
  fixtures: ReadonlyMap<string, Fixture>,
): Fixture {
  const league = leagues.get(input.leagueId);
  if (!league) throw new ExchangeError('LEAGUE_NOT_FOUND', `no league ${input.leagueId}`);
  for (const field of ['teamOneId', 'teamTwoId'] as const) {
    const team = teams.get(input[field]);
    if (!team) throw new ExchangeError('TEAM_NOT_FOUND', `${field}: no team ${input[field]}`);
    if (team.sportId !== league.sportId) {
      throw new ExchangeError('TEAM_NOT_IN_SPORT', `${field}: team ${team.teamId} plays sport ${team.sportId}, the league sport ${league.sportId}`);
    }
  }
  if (input.teamOneId === input.teamTwoId) throw invalidField('teamTwoId', 'not', 'teamTwoId must differ from teamOneId');
  const exchangeEventId = input.exchangeEventId ?? nextEventId(fixtures);
  if (fixtures.has(exchangeEventId)) throw new ExchangeError('FIXTURE_EXISTS', `fixture ${exchangeEventId} exists`);
  return {
    exchangeEventId,
    leagueId: input.leagueId,
    teamOneId: input.teamOneId,
    teamTwoId: input.teamTwoId,
    gameTime: input.gameTime,
    status: input.status ?? FixtureStatus.NOT_STARTED,
  };
}

function nextEventId(fixtures: ReadonlyMap<string, Fixture>): string {
  let n = fixtures.size + 1;
  while (fixtures.has(`L${n}`)) n++;
  return `L${n}`;
}

interface MarketLookup {
  requireFixture(exchangeEventId: string): Fixture;
  getMarket(marketHash: string): MarketRecord | undefined;
}

/**
 * The markets of one request: all three binary markets for a 1X2 without a selection; for a quarter line also its
 * two leg markets not there yet (`parent` links both legs). `created`: the requested markets, then those legs.
 */
export function newMarkets(input: NewMarket, catalogue: MarketLookup): { created: StoredMarket[]; parent: StoredMarket; legs: StoredMarket[] } {
  const fixture = catalogue.requireFixture(input.exchangeEventId);
  const type = checkMarketType(input);
  const requested: StoredMarket[] = (
    type === MarketType.ONE_X_TWO ? (input.selection ? [input.selection] : SELECTIONS) : [undefined]
  ).map((selection) => ({
    marketHash: marketHashOf({ exchangeEventId: fixture.exchangeEventId, type, line: input.line, selection }),
    exchangeEventId: fixture.exchangeEventId,
    type,
    ...(input.line !== undefined ? { line: normalizeLine(input.line) } : {}),
    ...(selection ? { selection } : {}),
    status: 'ACTIVE',
    liveEnabled: input.liveEnabled ?? false,
    ...(hasLine(type) ? { mainLine: false } : {}),
  }));
  for (const m of requested) {
    if (catalogue.getMarket(m.marketHash)) throw new ExchangeError('MARKET_EXISTS', `market ${m.marketHash} exists`);
  }
  const legs: StoredMarket[] = [];
  const parent = requested[0]!;
  if (parent.line !== undefined && isQuarterLine(parent.line)) {
    const legHashes = legLines(parent.line).map((line) => {
      const marketHash = marketHashOf({ exchangeEventId: fixture.exchangeEventId, type, line });
      const existing = catalogue.getMarket(marketHash);
      if (existing?.status === 'SETTLED') throw new ExchangeError('MARKET_ALREADY_REPORTED', `leg market ${marketHash} is settled`);
      if (!existing) legs.push({ ...parent, marketHash, line, mainLine: false });
      return marketHash;
    }) as [string, string];
    parent.legMarketHashes = legHashes;
  }
  return { created: [...requested, ...legs], parent, legs };
}
