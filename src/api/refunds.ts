// GET /trades/portfolio/refunds: a bettor's capital-efficiency refunds, grouped per market and token.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { AppContext } from '../context.js';
import { ok } from './envelope.js';
import { Address, Hash } from './params.js';
import { refundGroups } from '../trading/refund-groups.js';
import { responses } from './schemas/envelope.js';
import { RefundsPage } from './schemas/trades.js';

export const REFUNDS_MAX_PER_PAGE = 500;
export const REFUNDS_MAX_PAGE = 100_000;

const RefundsQuery = Type.Object({
  bettor: Address,
  marketHash: Type.Optional(Hash),
  baseToken: Type.Optional(Address),
  fillHash: Type.Optional(Hash),
  maker: Type.Optional(Type.Boolean({ description: 'true: only refunds where the bettor was a maker; false or absent: taker refunds' })),
  sortAsc: Type.Boolean({ description: 'groups by their latest refund, events by time' }),
  page: Type.Integer({ minimum: 0, maximum: REFUNDS_MAX_PAGE }),
  perPage: Type.Integer({ minimum: 1, maximum: REFUNDS_MAX_PER_PAGE }),
});

export function registerRefundRoutes(app: FastifyInstance, ctx: AppContext): void {
  const description =
    'Capital-efficiency refunds of a bettor, grouped per market and base token. Without maker=true only taker ' +
    'refunds are listed (as the spec says: "True: only refunds where the bettor was a maker. Otherwise taker refunds"). ' +
    'ce_refunds:{bettor} publishes the changed groups of that bettor, maker and taker alike, with the group total ' +
    'as totalRefunded (number), to a connection authenticated as that bettor only.';
  app.get('/trades/portfolio/refunds', { schema: { tags: ['trades'], description, querystring: RefundsQuery, response: responses(RefundsPage) } }, async (request) => {
    const q = request.query as Static<typeof RefundsQuery>;
    const filter = {
      bettor: q.bettor,
      ...(q.marketHash !== undefined ? { marketHash: q.marketHash } : {}),
      ...(q.baseToken !== undefined ? { baseToken: q.baseToken } : {}),
      ...(q.fillHash !== undefined ? { fillHash: q.fillHash } : {}),
      maker: q.maker ?? false,
    };
    const { refunds, groups } = ctx.trading.readModels.refundGroupsPage(filter, q.sortAsc, q);
    return ok({ results: refundGroups(refunds, filter, ctx.config.baseTokenDecimals, q.sortAsc), count: groups });
  });
}
