// GET /trades/portfolio/refunds: a bettor's capital-efficiency refunds, grouped per market and token.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { TradingReadModels } from '../store/read-models.js';
import { ok } from './envelope.js';
import { Address, Hash } from './params.js';
import { refundGroups } from '../trading/refund-groups.js';
import { checksumAddress } from '../protocol/address.js';

export const REFUNDS_MAX_PER_PAGE = 500;
export const REFUNDS_MAX_PAGE = 100_000;

const RefundsQuery = Type.Object({
  bettor: Address,
  marketHash: Type.Optional(Hash),
  baseToken: Type.Optional(Address),
  fillHash: Type.Optional(Hash),
  maker: Type.Optional(Type.Boolean({ description: 'true: refunds as a maker; false: as a taker; absent: both' })),
  sortAsc: Type.Boolean({ description: 'groups by their latest refund, events by time' }),
  page: Type.Integer({ minimum: 0, maximum: REFUNDS_MAX_PAGE }),
  perPage: Type.Integer({ minimum: 1, maximum: REFUNDS_MAX_PER_PAGE }),
});

export interface RefundRoutesDeps {
  readModels: TradingReadModels;
  decimals: number;
}

export const refundRoutes: FastifyPluginAsyncTypebox<RefundRoutesDeps> = async (app, { readModels, decimals }) => {
  app.get('/trades/portfolio/refunds', { schema: { tags: ['trades'], querystring: RefundsQuery } }, async (request) => {
    const q = request.query;
    const groups = refundGroups(
      readModels.refundsOf(checksumAddress(q.bettor)),
      {
        bettor: q.bettor,
        ...(q.marketHash !== undefined ? { marketHash: q.marketHash } : {}),
        ...(q.baseToken !== undefined ? { baseToken: q.baseToken } : {}),
        ...(q.fillHash !== undefined ? { fillHash: q.fillHash } : {}),
        ...(q.maker !== undefined ? { maker: q.maker } : {}),
      },
      decimals,
      q.sortAsc,
    );
    const start = q.page * q.perPage;
    return ok({ results: groups.slice(start, start + q.perPage), count: groups.length });
  });
};
