// Operator API for the catalogue: sports, leagues, teams, fixtures, markets, live scores, main lines, results.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ok } from '../api/envelope.js';
import { invalidField } from '../protocol/errors.js';
import { Hash } from '../api/params.js';
import type { MarketRecord } from '../catalogue/catalogue.js';
import type { FixtureStatusCode } from '../catalogue/model.js';
import type { Outcome } from '../engine/types.js';
import { reportFixtureResult, reportMarket, type ReportingDeps } from '../catalogue/reporting.js';
import { setFixtureStatus, setMarketStatus } from '../catalogue/market-status.js';
import { responses } from '../api/schemas/envelope.js';
import { Fixture, League, LiveScore as LiveScoreSchema, Market, MarketList, Sport, Team } from '../api/schemas/catalogue.js';

const Id = Type.Integer({ minimum: 1, maximum: 2 ** 31 - 1 });
const Name = Type.String({ minLength: 1, maxLength: 100 });
const EventId = Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' });
const Score = Type.Integer({ minimum: 0, maximum: 100_000 });
const closed = { additionalProperties: false } as const;
/** 9999-12-31T23:59:59Z: every later second is outside what a date can show (and what a client can parse). */
const LAST_SECOND = 253_402_300_799;

const SportBody = Type.Object({ sportId: Type.Optional(Id), label: Name }, closed);
const LeagueBody = Type.Object({ leagueId: Type.Optional(Id), sportId: Id, label: Name, active: Type.Optional(Type.Boolean()) }, closed);
const TeamBody = Type.Object({ teamId: Type.Optional(Id), sportId: Id, name: Name }, closed);
// Unsafe keeps the JSON schema an integer range (its validation messages and OpenAPI) while typing the value.
const FixtureStatusSchema = Type.Unsafe<FixtureStatusCode>(Type.Integer({ minimum: 1, maximum: 9, description: '1 not started, 2 in progress, 3 finished, 4 cancelled, 5 postponed, 6 interrupted, 7 abandoned, 8 coverage lost, 9 about to start' }));
const FixtureBody = Type.Object(
  {
    exchangeEventId: Type.Optional(EventId),
    leagueId: Id,
    teamOneId: Id,
    teamTwoId: Id,
    gameTime: Type.Integer({ minimum: 0, maximum: LAST_SECOND, description: 'UNIX seconds' }),
    status: Type.Optional(FixtureStatusSchema),
  },
  closed,
);
const MarketBody = Type.Object(
  {
    exchangeEventId: EventId,
    type: Type.Integer({ minimum: 1, maximum: 100_000, description: '1 (1X2), 2 (totals), 3 and 342 (spread), 52, 226 (moneyline)' }),
    line: Type.Optional(
      Type.Number({ minimum: -1000, maximum: 1000, description: 'spread/total line in 0.25 steps; x.25/x.75 create quarter lines with legs' }),
    ),
    selection: Type.Optional(Type.Union([Type.Literal('teamOne'), Type.Literal('draw'), Type.Literal('teamTwo')])),
    liveEnabled: Type.Optional(Type.Boolean()),
    mainLine: Type.Optional(Type.Boolean()),
  },
  closed,
);
const Period = Type.Object(
  { label: Type.String({ maxLength: 100 }), isFinished: Type.Boolean(), teamOneScore: Type.String({ maxLength: 20 }), teamTwoScore: Type.String({ maxLength: 20 }) },
  closed,
);
const LiveScoreBody = Type.Object(
  {
    exchangeEventId: EventId,
    currentPeriod: Type.String({ maxLength: 100 }),
    periodTime: Type.String({ maxLength: 50 }),
    teamOneScore: Score,
    teamTwoScore: Score,
    periods: Type.Array(Period, { maxItems: 50 }),
    extra: Type.Optional(Type.String({ maxLength: 10_000, description: 'JSON-encoded array of {Name, Value} string pairs' })),
  },
  closed,
);
const ResultBody = Type.Object({ teamOneScore: Score, teamTwoScore: Score }, closed);
const ReportBody = Type.Object(
  { outcome: Type.Unsafe<Outcome>(Type.Integer({ minimum: 0, maximum: 2, description: '0 void, 1 outcome one, 2 outcome two' })), teamOneScore: Type.Optional(Score), teamTwoScore: Type.Optional(Score) },
  closed,
);
const MarketStatusBody = Type.Object({ status: Type.Union([Type.Literal('ACTIVE'), Type.Literal('SUSPENDED')]) }, closed);
const FixtureParams = Type.Object({ exchangeEventId: EventId });
const MarketParams = Type.Object({ marketHash: Hash });

/** `extra` must be what clients parse: a JSON array of {Name, Value} strings. */
function checkExtra(extra: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(extra);
  } catch {
    parsed = undefined;
  }
  const pairs =
    Array.isArray(parsed) &&
    parsed.every((p: unknown) => {
      const o = p as Record<string, unknown> | null;
      return typeof o === 'object' && o !== null && typeof o.Name === 'string' && typeof o.Value === 'string';
    });
  if (!pairs) throw invalidField('extra', 'format', 'extra must be a JSON-encoded array of {Name, Value} string pairs');
  return extra;
}

/** The catalogue admin routes reach what reporting and status changes reach. */
export type CatalogueAdminDeps = ReportingDeps;

export const catalogueAdminRoutes: FastifyPluginAsyncTypebox<CatalogueAdminDeps> = async (app, deps) => {
  const { catalogue, now } = deps;
  const rest = (markets: MarketRecord[]) => markets.map((m) => catalogue.toRestMarket(m));
  const schema = <T extends object>(s: T) => ({ tags: ['admin'], security: [{ admin: [] }], ...s });
  const nowIso = () => new Date(now()).toISOString();

  app.post('/admin/sports', { schema: schema({ body: SportBody, response: responses(Sport) }) }, async (request) =>
    ok(catalogue.toRestSport(await catalogue.createSport(request.body))),
  );

  app.post('/admin/leagues', { schema: schema({ body: LeagueBody, response: responses(League) }) }, async (request) =>
    ok(catalogue.toRestLeague(await catalogue.createLeague(request.body))),
  );

  app.post('/admin/teams', { schema: schema({ body: TeamBody, response: responses(Team) }) }, async (request) =>
    ok(catalogue.toRestTeam(await catalogue.createTeam(request.body))),
  );

  app.post('/admin/fixtures', { schema: schema({ body: FixtureBody, response: responses(Fixture) }) }, async (request) => {
    const fixture = await catalogue.createFixture(request.body);
    return ok(catalogue.toRestFixture(fixture));
  });

  app.post(
    '/admin/fixtures/:exchangeEventId/status',
    {
      schema: schema({
        description:
          'Sets a fixture status. Status 2 (in progress): its markets with liveEnabled false take no orders or fills ' +
          'while it lasts, and their resting orders are cancelled before this answers; on its other markets, the ' +
          'resting orders with persistence LAPSE (the default) are cancelled by the same command, PERSIST ones stay.',
        params: FixtureParams,
        body: Type.Object({ status: FixtureStatusSchema }, closed),
        response: responses(Fixture),
      }),
    },
    async (request) => {
      const { exchangeEventId } = request.params;
      // Kick-off (status 2) also cancels the resting quotes of its markets without liveEnabled, and the LAPSE orders of
      // the others, in the same command.
      return ok(catalogue.toRestFixture(await setFixtureStatus(deps, exchangeEventId, request.body.status)));
    },
  );

  app.post(
    '/admin/fixtures/:exchangeEventId/result',
    {
      schema: schema({
        description:
          'Settles every unsettled market of the fixture on its final score. The same score again answers its markets as reported; another score is 409 MARKET_ALREADY_REPORTED.',
        params: FixtureParams,
        body: ResultBody,
        response: responses(MarketList),
      }),
    },
    async (request) => {
      const { exchangeEventId } = request.params;
      const { teamOneScore, teamTwoScore } = request.body;
      return ok(rest(await reportFixtureResult(deps, exchangeEventId, teamOneScore, teamTwoScore)));
    },
  );

  app.post('/admin/markets', { schema: schema({ body: MarketBody, response: responses(MarketList) }) }, async (request) =>
    ok(rest(await catalogue.createMarkets(request.body))),
  );

  app.post(
    '/admin/markets/:marketHash/status',
    { schema: schema({ params: MarketParams, body: MarketStatusBody, response: responses(Market) }) },
    async (request) => {
      const { marketHash } = request.params;
      return ok(catalogue.toRestMarket(await setMarketStatus(deps, marketHash, request.body.status)));
    },
  );

  app.post('/admin/markets/:marketHash/main-line', { schema: schema({ params: MarketParams, response: responses(Market) }) }, async (request) => {
    const { marketHash } = request.params;
    await catalogue.loadMarkets([marketHash]);
    return ok(catalogue.toRestMarket(await catalogue.setMainLine(catalogue.requireMarket(marketHash).marketHash)));
  });

  app.post(
    '/admin/markets/:marketHash/report',
    {
      schema: schema({
        description:
          'Reports a market\'s outcome. The same outcome again (with no scores or the same ones) answers the market as reported and changes nothing; another is 409 MARKET_ALREADY_REPORTED.',
        params: MarketParams,
        body: ReportBody,
        response: responses(MarketList),
      }),
    },
    async (request) => {
      const { marketHash } = request.params;
      const { outcome, teamOneScore, teamTwoScore } = request.body;
      if ((teamOneScore === undefined) !== (teamTwoScore === undefined)) {
        throw invalidField('teamTwoScore', 'dependentRequired', 'teamOneScore and teamTwoScore go together: send both or neither');
      }
      return ok(rest(await reportMarket(deps, marketHash, outcome, { teamOneScore, teamTwoScore })));
    },
  );

  app.post('/admin/live-scores', { schema: schema({ body: LiveScoreBody, response: responses(LiveScoreSchema) }) }, async (request) => {
    const body = request.body;
    return ok(await catalogue.putLiveScore({ ...body, extra: checkExtra(body.extra ?? '[]') }, nowIso()));
  });
};
