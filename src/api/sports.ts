// GET /sports, /leagues/active, /teams.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Catalogue } from '../catalogue/catalogue.js';
import { ok } from './envelope.js';
import { responses } from './schemas/envelope.js';
import { League, Sport, Team } from './schemas/catalogue.js';

const LeaguesQuery = Type.Object({ sportId: Type.Optional(Type.Integer({ minimum: 0 })) });

const TeamsQuery = Type.Object({
  sportId: Type.Optional(Type.Integer({ minimum: 0 })),
  teamId: Type.Optional(Type.Integer({ minimum: 0 })),
  page: Type.Integer({ minimum: 0, default: 0, description: 'page number, from 0' }),
  pageSize: Type.Integer({ minimum: 1, maximum: 500, default: 20 }),
});

export interface SportRouteDeps {
  catalogue: Pick<Catalogue, 'sports' | 'leagues' | 'teams' | 'toRestSport' | 'toRestLeague' | 'toRestTeam'>;
}

export const sportRoutes: FastifyPluginAsyncTypebox<SportRouteDeps> = async (app, { catalogue }) => {
  app.get('/sports', { schema: { tags: ['catalogue'], response: responses(Type.Array(Sport)) } }, async () => ok(catalogue.sports().map(catalogue.toRestSport)));

  app.get('/leagues/active', { schema: { tags: ['catalogue'], querystring: LeaguesQuery, response: responses(Type.Array(League)) } }, async (request) => {
    const { sportId } = request.query;
    const leagues = catalogue.leagues().filter((l) => l.active && (sportId === undefined || l.sportId === sportId));
    return ok(leagues.map(catalogue.toRestLeague));
  });

  app.get('/teams', { schema: { tags: ['catalogue'], querystring: TeamsQuery, response: responses(Type.Array(Team)) } }, async (request) => {
    const q = request.query;
    const teams = catalogue
      .teams()
      .filter((t) => (q.sportId === undefined || t.sportId === q.sportId) && (q.teamId === undefined || t.teamId === q.teamId));
    return ok(teams.slice(q.page * q.pageSize, (q.page + 1) * q.pageSize).map((t) => catalogue.toRestTeam(t)));
  });
};
