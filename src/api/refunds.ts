// GET /trades/portfolio/refunds: a bettor's capital-efficiency refunds, grouped per market and token.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { ReadModels } from '../store/ports.js';
import { ok } from './envelope.js';
import { Address, Hash } from './params.js';
import { refundGroups } from '../render/refund-groups.js';
import { recordResponses } from './schemas/envelope.js';
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

export interface RefundRouteDeps {
  readModels: Pick<ReadModels, 'refunds'>;
  /** Base-token decimals: totals are shown in token units. */
  decimals: number;
}

export const refundRoutes: FastifyPluginAsyncTypebox<RefundRouteDeps> = async (app, { readModels, decimals }) => {
  const description =
    'Capital-efficiency refunds of a bettor, grouped per market and base token. Without maker=true only taker ' +
    'refunds are listed (as the spec says: "True: only refunds where the bettor was a maker. Otherwise taker refunds"). ' +
    'ce_refunds:{bettor} publishes the changed groups of that bettor, maker and taker alike, with the group total ' +
    'as totalRefunded (number), to a connection authenticated as that bettor only.';
  app.get('/trades/portfolio/refunds', { schema: { tags: ['trades'], description, querystring: RefundsQuery, response: recordResponses(RefundsPage) } }, async (request) => {
    const q = request.query;
    const filter = {
      bettor: q.bettor,
      ...(q.marketHash !== undefined ? { marketHash: q.marketHash } : {}),
      ...(q.baseToken !== undefined ? { baseToken: q.baseToken } : {}),
      ...(q.fillHash !== undefined ? { fillHash: q.fillHash } : {}),
      maker: q.maker ?? false,
    };
    const { refunds, groups } = await readModels.refunds.refundGroupsPage(filter, q.sortAsc, q);
    return ok({ results: refundGroups(refunds, filter, decimals, q.sortAsc), count: groups });
  });
};
