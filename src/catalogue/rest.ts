// Wire shapes of catalogue records, exactly as the read endpoints and the realtime channels carry them.
import type { Static } from '@sinclair/typebox';
import type { Fixture, League, MarketRecord, ParlayTerms, Sport, Team } from './model.js';
import type { Fixture as FixtureSchema, Market as MarketSchema, Team as TeamSchema } from '../protocol/wire/catalogue.js';

export type RestMarket = Static<typeof MarketSchema>;
export type RestFixture = Static<typeof FixtureSchema>;
export type RestTeam = Static<typeof TeamSchema>;

/** A market as on /markets/active, /markets/find and /markets/popular; settled ones add their result. */
export function restMarket(m: MarketRecord, chainVersion: string): RestMarket {
  return {
    status: m.status,
    marketHash: m.marketHash,
    outcomeOneName: m.outcomeOneName,
    outcomeTwoName: m.outcomeTwoName,
    outcomeVoidName: m.outcomeVoidName,
    teamOneName: m.teamOneName,
    teamTwoName: m.teamTwoName,
    type: m.type,
    gameTime: m.gameTime,
    ...(m.line !== undefined ? { line: m.line } : {}),
    exchangeEventId: m.exchangeEventId,
    liveEnabled: m.liveEnabled,
    sportLabel: m.sportLabel,
    sportId: m.sportId,
    leagueId: m.leagueId,
    leagueLabel: m.leagueLabel,
    group1: m.leagueLabel,
    chainVersion,
    participantOneId: m.teamOneId,
    participantTwoId: m.teamTwoId,
    ...(m.mainLine !== undefined ? { mainLine: m.mainLine } : {}),
    exchangeTeamOneId: m.teamOneId,
    exchangeTeamTwoId: m.teamTwoId,
    isQuarterLineMarket: m.isQuarterLineMarket,
    __type: 'Market',
    ...(m.reportedDate !== undefined ? { reportedDate: m.reportedDate } : {}),
    ...(m.outcome !== undefined ? { outcome: m.outcome } : {}),
    ...(m.teamOneScore !== undefined ? { teamOneScore: m.teamOneScore, teamTwoScore: m.teamTwoScore } : {}),
    ...(m.parlay ? parlayFields(m.parlay) : {}),
  };
}

/** A parlay market's legs (as the public exchange shows them) and what its request fixed (additive). */
function parlayFields(p: ParlayTerms) {
  return {
    legs: p.legs.map((l) => ({ marketHash: l.marketHash, bettingOutcomeOne: l.bettingOutcomeOne })),
    parlay: {
      bettor: p.bettor,
      baseToken: p.baseToken,
      requestSize: p.requestSize,
      requestedAt: p.requestedAt,
      quoteWindowEndsAt: p.quoteWindowEndsAt,
      fillDeadline: p.fillDeadline,
    },
  };
}

export function restFixture(f: Fixture, teamOne: Team, teamTwo: Team, league: League): RestFixture {
  return {
    participantOneName: teamOne.name,
    participantTwoName: teamTwo.name,
    startDate: new Date(f.gameTime * 1000).toISOString(),
    status: f.status,
    leagueId: f.leagueId,
    leagueLabel: league.label,
    sportId: league.sportId,
    eventId: f.exchangeEventId,
  };
}

export function restTeam(t: Team, sport: Sport, sportActive: boolean): RestTeam {
  return { id: t.teamId, name: t.name, sport: { sportId: sport.sportId, label: sport.label, active: sportActive } };
}

export const restLeague = (l: League) => ({ leagueId: l.leagueId, label: l.label, sportId: l.sportId, active: l.active });

export const restSport = (s: Sport) => ({ sportId: s.sportId, label: s.label });
