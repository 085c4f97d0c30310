// GET /fixture/active, /live-scores.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Catalogue } from '../catalogue/catalogue.js';
import { ok } from './envelope.js';
import { parseCommaList } from './params.js';
import type { LiveScore } from '../catalogue/model.js';
import { responses } from './schemas/envelope.js';
import { Fixture, LiveScore as LiveScoreSchema } from './schemas/catalogue.js';

const FixturesQuery = Type.Object({ leagueId: Type.Integer({ minimum: 0 }) });

const LiveScoresQuery = Type.Object({
  exchangeEventIds: Type.Optional(
    Type.String({ description: 'comma-separated event ids, up to 50; without it, every active fixture with a score' }),
  ),
});

const MAX_EVENT_IDS = 50;

export interface FixtureRouteDeps {
  catalogue: Pick<Catalogue, 'fixtures' | 'isActiveFixture' | 'toRestFixture' | 'liveScore'>;
}

export const fixtureRoutes: FastifyPluginAsyncTypebox<FixtureRouteDeps> = async (app, { catalogue }) => {
  app.get('/fixture/active', { schema: { tags: ['catalogue'], querystring: FixturesQuery, response: responses(Type.Array(Fixture)) } }, async (request) => {
    const { leagueId } = request.query;
    const fixtures = catalogue
      .fixtures()
      .filter((f) => f.leagueId === leagueId && catalogue.isActiveFixture(f))
      .sort((a, b) => a.gameTime - b.gameTime || a.exchangeEventId.localeCompare(b.exchangeEventId));
    return ok(fixtures.map((f) => catalogue.toRestFixture(f)));
  });

  app.get('/live-scores', { schema: { tags: ['catalogue'], querystring: LiveScoresQuery, response: responses(Type.Array(LiveScoreSchema)) } }, async (request) => {
    const { exchangeEventIds } = request.query;
    const ids =
      exchangeEventIds === undefined
        ? catalogue
            .fixtures()
            .filter((f) => catalogue.isActiveFixture(f))
            .map((f) => f.exchangeEventId)
        : [...new Set(parseCommaList(exchangeEventIds, 'exchangeEventIds', { max: MAX_EVENT_IDS }))];
    return ok(ids.map((id) => catalogue.liveScore(id)).filter((s): s is LiveScore => s !== undefined));
  });
};
