// GET /search: active fixtures whose team names contain the query.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Catalogue } from '../catalogue/catalogue.js';
import { ok } from './envelope.js';
import { responses } from './schemas/envelope.js';
import { SearchResult } from './schemas/catalogue.js';

const SearchQuery = Type.Object({
  query: Type.String({ minLength: 3, maxLength: 100, description: 'part of a team name, case-insensitive' }),
});

const MAX_RESULTS = 8;

export interface SearchRouteDeps {
  catalogue: Pick<Catalogue, 'fixtures' | 'isActiveFixture' | 'openMarketsOfEvent' | 'teamName'>;
}

export const searchRoutes: FastifyPluginAsyncTypebox<SearchRouteDeps> = async (app, { catalogue }) => {
  app.get('/search', { schema: { tags: ['markets'], querystring: SearchQuery, response: responses(Type.Array(SearchResult)) } }, async (request) => {
    const needle = request.query.query.toLowerCase();
    const hits = catalogue
      .fixtures()
      .filter((f) => catalogue.isActiveFixture(f))
      .map((f) => ({ f, markets: catalogue.openMarketsOfEvent(f.exchangeEventId).filter((m) => m.status === 'ACTIVE') }))
      // A fixture without an open market has nothing to bet on.
      .filter(({ markets }) => markets.length > 0)
      .filter(({ f }) => [f.teamOneId, f.teamTwoId].some((id) => catalogue.teamName(id).toLowerCase().includes(needle)))
      .sort((a, b) => a.f.gameTime - b.f.gameTime || a.f.exchangeEventId.localeCompare(b.f.exchangeEventId))
      .slice(0, MAX_RESULTS);
    return ok(
      hits.map(({ f, markets }) => {
        const first = markets[0]!;
        return {
          eventId: f.exchangeEventId,
          gameTime: f.gameTime,
          teamOneName: first.teamOneName,
          teamTwoName: first.teamTwoName,
          sportId: first.sportId,
          leagueId: first.leagueId,
          leagueLabel: first.leagueLabel,
          type: [...new Set(markets.map((m) => m.type))].sort((a, b) => a - b),
        };
      }),
    );
  });
};
