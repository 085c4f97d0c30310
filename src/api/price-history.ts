// GET /markets/:marketHash/history: a market's candles of traded odds, from the read side.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Catalogue } from '../catalogue/catalogue.js';
import type { ReadModels } from '../store/ports.js';

import { ExchangeError, invalidField } from '../protocol/errors.js';
import { ok } from './envelope.js';
import { Hash } from './params.js';
import { responses } from './schemas/envelope.js';
import { PriceHistory } from './schemas/history.js';
import { CANDLE_INTERVALS, type CandleInterval } from '../store/ports.js';

const MAX_CANDLES = 1000;
/** Far enough for any real time in seconds, small enough to stay an exact SQLite integer. */
const MAX_TIME = 10 ** 11;

const HistoryQuery = Type.Object({
  interval: Type.Union(
    (Object.keys(CANDLE_INTERVALS) as CandleInterval[]).map((k) => Type.Literal(k)),
    { description: 'candle width: 1m (kept 2 days), 5m (14 days), 1h (180 days), 1d (5 years)' },
  ),
  from: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_TIME, description: 'UNIX seconds: candles starting at or after (default 0)' })),
  to: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_TIME, description: 'UNIX seconds: candles starting at or before (default now)' })),
  limit: Type.Integer({ minimum: 1, maximum: MAX_CANDLES, default: 500, description: 'at most this many candles, the newest of the range' }),
});

export interface PriceHistoryDeps {
  catalogue: Pick<Catalogue, 'getMarket' | 'loadMarkets'>;
  readModels: Pick<ReadModels, 'history'>;
  now: () => number;
}

export const priceHistoryRoutes: FastifyPluginAsyncTypebox<PriceHistoryDeps> = async (app, { catalogue, readModels, now }) => {
  app.get(
    '/markets/:marketHash/history',
    {
      schema: {
        tags: ['markets'],
        description: 'Candles of the odds takers traded outcome one at, oldest first; intervals without trades are left out.',
        params: Type.Object({ marketHash: Hash }),
        querystring: HistoryQuery,
        response: responses(PriceHistory),
      },
    },
    async (request) => {
      const q = request.query;
      const marketHash = request.params.marketHash.toLowerCase();
      await catalogue.loadMarkets([marketHash]);
      if (!catalogue.getMarket(marketHash)) throw new ExchangeError('MARKET_NOT_FOUND', `no market ${marketHash}`);
      const from = q.from ?? 0;
      const to = q.to ?? Math.floor(now() / 1000);
      if (from > to) throw invalidField('from', 'maximum', `from (${from}) is after to (${to})`);
      return ok({ candles: await readModels.history.candles(marketHash, q.interval, from, to, q.limit) });
    },
  );
};
