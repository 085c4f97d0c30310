// Response data of the catalogue reads and the operator's catalogue routes (spec 2.1, 2.6; catalogue/rest.ts).
import { Type } from '@sinclair/typebox';
import { IsoDate } from './envelope.js';

export const ParlayLeg = Type.Object({
  marketHash: Type.String({ pattern: '^0x[0-9a-fA-F]{64}$' }),
  bettingOutcomeOne: Type.Boolean(),
});

export const Market = Type.Object({
  status: Type.String({ description: 'ACTIVE, SUSPENDED or SETTLED' }),
  marketHash: Type.String(),
  outcomeOneName: Type.String(),
  outcomeTwoName: Type.String(),
  outcomeVoidName: Type.String(),
  teamOneName: Type.String(),
  teamTwoName: Type.String(),
  type: Type.Integer({ description: '1, 2 (totals), 3 and 342 (spread), 52, 226 (moneyline), 999 (parlay)' }),
  gameTime: Type.Integer({ description: 'UNIX seconds' }),
  line: Type.Optional(Type.Number()),
  exchangeEventId: Type.String(),
  liveEnabled: Type.Boolean(),
  sportLabel: Type.String(),
  sportId: Type.Integer(),
  leagueId: Type.Integer(),
  leagueLabel: Type.String(),
  group1: Type.String(),
  chainVersion: Type.String(),
  participantOneId: Type.Integer(),
  participantTwoId: Type.Integer(),
  mainLine: Type.Optional(Type.Boolean()),
  exchangeTeamOneId: Type.Integer(),
  exchangeTeamTwoId: Type.Integer(),
  isQuarterLineMarket: Type.Boolean(),
  __type: Type.Literal('Market'),
  reportedDate: Type.Optional(IsoDate),
  outcome: Type.Optional(Type.Integer({ description: '0 void, 1, 2' })),
  teamOneScore: Type.Optional(Type.Integer()),
  teamTwoScore: Type.Optional(Type.Integer()),
  legs: Type.Optional(Type.Array(ParlayLeg, { description: 'Parlay markets only: the legs and the side the bettor picked on each' })),
  parlay: Type.Optional(
    Type.Object(
      {
        bettor: Type.String(),
        baseToken: Type.String(),
        requestSize: Type.String({ description: 'wei' }),
        requestedAt: Type.Integer({ description: 'UNIX ms' }),
        quoteWindowEndsAt: Type.Integer({ description: 'UNIX ms: orders posted before it are shown together once it passes' }),
        fillDeadline: Type.Integer({ description: 'UNIX ms: from then on the parlay book refuses fills (PARLAY_FILL_WINDOW_CLOSED)' }),
      },
      { description: 'Parlay markets only (additive): what the request fixed' },
    ),
  ),
});

export const MarketList = Type.Array(Market);

export const MarketPage = Type.Object({
  markets: MarketList,
  nextKey: Type.String({ description: 'pass as paginationKey; empty on the last page' }),
});

export const SearchResult = Type.Object({
  eventId: Type.String(),
  gameTime: Type.Integer({ description: 'UNIX seconds' }),
  teamOneName: Type.String(),
  teamTwoName: Type.String(),
  sportId: Type.Integer(),
  leagueId: Type.Integer(),
  leagueLabel: Type.String(),
  type: Type.Array(Type.Integer(), { description: 'market types open on the fixture' }),
});

export const Sport = Type.Object({ sportId: Type.Integer(), label: Type.String() });

export const League = Type.Object({ leagueId: Type.Integer(), label: Type.String(), sportId: Type.Integer(), active: Type.Boolean() });

export const Team = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  sport: Type.Object({ sportId: Type.Integer(), label: Type.String(), active: Type.Boolean() }),
});

export const Fixture = Type.Object({
  participantOneName: Type.String(),
  participantTwoName: Type.String(),
  startDate: IsoDate,
  status: Type.Integer({ description: '1 not started, 2 in progress, 3 finished, ... (see POST /admin/fixtures)' }),
  leagueId: Type.Integer(),
  leagueLabel: Type.String(),
  sportId: Type.Integer(),
  eventId: Type.String(),
});

export const LiveScore = Type.Object({
  sportId: Type.Integer(),
  leagueId: Type.Integer(),
  exchangeEventId: Type.String(),
  currentPeriod: Type.String(),
  periodTime: Type.String(),
  teamOneScore: Type.Integer(),
  teamTwoScore: Type.Integer(),
  periods: Type.Array(
    Type.Object({ label: Type.String(), isFinished: Type.Boolean(), teamOneScore: Type.String(), teamTwoScore: Type.String() }),
  ),
  extra: Type.String({ description: 'JSON-encoded array of {Name, Value} string pairs' }),
  createdAt: IsoDate,
  updatedAt: IsoDate,
});
