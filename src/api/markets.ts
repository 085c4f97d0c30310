// GET /markets/active, /markets/find, /markets/popular.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import type { Catalogue } from '../catalogue/catalogue.js';
import type { ReadModels } from '../store/ports.js';
import { ok } from './envelope.js';
import { invalidField } from '../protocol/errors.js';
import { isHash, isIntString, parseCommaList } from './params.js';
import { BET_GROUPS, type MarketRecord } from '../catalogue/model.js';
import { decodeCursor, encodeCursor, pageOfMarkets } from '../catalogue/market-query.js';
import { responses } from './schemas/envelope.js';
import { MarketList, MarketPage } from './schemas/catalogue.js';

const ActiveQuery = Type.Object({
  onlyMainLine: Type.Optional(Type.Boolean()),
  eventId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  leagueId: Type.Optional(Type.Integer({ minimum: 0 })),
  sportIds: Type.Optional(Type.String({ description: 'comma-separated sport ids' })),
  liveOnly: Type.Optional(Type.Boolean({ description: 'only markets open for in-play betting now (live-enabled, game in progress)' })),
  betGroup: Type.Optional(Type.String({ description: `one of ${Object.keys(BET_GROUPS).join(', ')}; not with type` })),
  type: Type.Optional(Type.String({ description: 'comma-separated market types; not with betGroup' })),
  paginationKey: Type.Optional(Type.String({ maxLength: 200 })),
  pageSize: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
  gameTime: Type.Optional(Type.Integer({ minimum: 0, description: 'games starting at or after this UNIX time' })),
});

const FindQuery = Type.Object({
  marketHashes: Type.Optional(Type.String({ description: 'comma-separated market hashes, 1 to 30' })),
});

const MAX_FIND_HASHES = 30;
const POPULAR_COUNT = 10;
const MAX_LIST_ITEMS = 50;

const intList = (raw: string, field: string) =>
  new Set(parseCommaList(raw, field, { max: MAX_LIST_ITEMS, valid: isIntString }).map(Number));

/** The market types a query asks for: betGroup xor type, or undefined for all. */
function typesOf(q: Static<typeof ActiveQuery>): Set<number> | undefined {
  if (q.betGroup !== undefined && q.type !== undefined) {
    throw invalidField('betGroup', 'not', 'betGroup and type are mutually exclusive: send one of them');
  }
  if (q.betGroup !== undefined) {
    const types = BET_GROUPS[q.betGroup];
    if (!types) throw invalidField('betGroup', 'enum', `betGroup must be one of ${Object.keys(BET_GROUPS).join(', ')}`);
    return new Set(types);
  }
  return q.type === undefined ? undefined : intList(q.type, 'type');
}

export interface MarketRouteDeps {
  catalogue: Pick<Catalogue, 'activeMarkets' | 'marketsFor' | 'isInPlay' | 'toRestMarket'>;
  readModels: Pick<ReadModels, 'matchedVolume'>;
}

export const marketRoutes: FastifyPluginAsyncTypebox<MarketRouteDeps> = async (app, { catalogue, readModels }) => {
  const rest = (markets: readonly MarketRecord[]) => markets.map((m) => catalogue.toRestMarket(m));

  app.get('/markets/active', { schema: { tags: ['markets'], querystring: ActiveQuery, response: responses(MarketPage) } }, async (request) => {
    const q = request.query;
    const after = q.paginationKey ? decodeCursor(q.paginationKey) : undefined;
    if (q.paginationKey && !after) throw invalidField('paginationKey', 'format', 'paginationKey is not a nextKey this server returned', 'INVALID_PAGINATION_KEY');
    const page = pageOfMarkets(
      catalogue.activeMarkets(),
      {
        onlyMainLine: q.onlyMainLine,
        eventId: q.eventId,
        leagueId: q.leagueId,
        sportIds: q.sportIds === undefined ? undefined : intList(q.sportIds, 'sportIds'),
        liveOnly: q.liveOnly,
        types: typesOf(q),
        gameTime: q.gameTime,
      },
      { after, pageSize: q.pageSize, isInPlay: (m) => catalogue.isInPlay(m) },
    );
    return ok({ markets: rest(page.markets), nextKey: page.next ? encodeCursor(page.next) : '' });
  });

  app.get('/markets/find', { schema: { tags: ['markets'], querystring: FindQuery, response: responses(MarketList) } }, async (request) => {
    const { marketHashes } = request.query;
    if (!marketHashes) throw invalidField('marketHashes', 'required', 'marketHashes is required: a comma-separated list of market hashes', 'BAD_MARKET_HASHES');
    const hashes = parseCommaList(marketHashes, 'marketHashes', {
      max: MAX_FIND_HASHES,
      errorCode: 'BAD_MARKET_HASHES',
      valid: isHash,
    }).map((h) => h.toLowerCase());
    const known = await catalogue.marketsFor(hashes);
    const found = [...new Set(hashes)].flatMap((h) => known.get(h) ?? []);
    return ok(rest(found));
  });

  app.get('/markets/popular', { schema: { tags: ['markets'], response: responses(MarketList) } }, async () => {
    const volume = await readModels.matchedVolume();
    const top = [...catalogue.activeMarkets()]
      .map((m) => ({ m, v: volume.get(m.marketHash) ?? 0n }))
      // activeMarkets is already in (gameTime, marketHash) order and sort is stable: ties keep it.
      .sort((a, b) => (a.v === b.v ? 0 : a.v > b.v ? -1 : 1))
      .slice(0, POPULAR_COUNT);
    return ok(rest(top.map((x) => x.m)));
  });
};
