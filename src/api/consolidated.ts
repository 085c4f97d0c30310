// GET /trades/consolidated: one entry per fill, bettor and market (quarter-line bets as two legs plus a parent).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { ReadModels } from '../store/ports.js';
import { ok } from './envelope.js';
import { invalidField } from '../protocol/errors.js';
import { Address, HASH_PATTERN } from './params.js';
import { CONSOLIDATED_SORT_FIELDS, listConsolidated, type ConsolidatedContext } from '../render/consolidated.js';
import { recordResponses } from './schemas/envelope.js';
import { ConsolidatedPage } from './schemas/trades.js';

/** Largest page size; page numbers stop at MAX_PAGE so page * perPage stays a small integer. */
export const CONSOLIDATED_MAX_PER_PAGE = 100;
export const CONSOLIDATED_MAX_PAGE = 100_000;

const ConsolidatedQuery = Type.Object({
  bettor: Type.Optional(Address),
  settled: Type.Boolean({ description: 'true: only settled entries; false: only unsettled ones' }),
  page: Type.Integer({ minimum: 0, maximum: CONSOLIDATED_MAX_PAGE }),
  perPage: Type.Integer({ minimum: 1, maximum: CONSOLIDATED_MAX_PER_PAGE }),
  sortBy: Type.Optional(Type.Union(CONSOLIDATED_SORT_FIELDS.map((f) => Type.Literal(f)), { description: 'default betTime; ties keep creation order' })),
  sortAsc: Type.Boolean(),
  maker: Type.Optional(Type.Boolean()),
  exchangeEventId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  tradeStatus: Type.Optional(Type.Union([Type.Literal('SUCCESS'), Type.Literal('FAILED')])),
  marketHash: Type.Optional(Type.String({ pattern: HASH_PATTERN, description: 'a quarter-line market also matches its legs' })),
  hideQuarterLineParents: Type.Optional(Type.Boolean()),
  hideQuarterLineLegs: Type.Optional(Type.Boolean({ description: 'not together with hideQuarterLineParents=true (CONFLICTING_FILTERS)' })),
});

export interface ConsolidatedRouteDeps {
  readModels: ReadModels;
  consolidated: ConsolidatedContext;
}

export const consolidatedRoutes: FastifyPluginAsyncTypebox<ConsolidatedRouteDeps> = async (app, { readModels, consolidated }) => {
  const description =
    'One entry per fill, bettor and market; a quarter-line bet is two legs plus a synthetic parent whose fillHash is ' +
    'keccak256("quarter:" + fillHash + lower-case bettor). Amounts are exact decimal strings in base-token units, never ' +
    'wei: totalStake, totalReturn, netReturn, crosschainNetReturn, settleNetReturnValue and totalBetTimeValue (e.g. "40", ' +
    '"12.5" of the 6-decimal token); netReturnBetTimeValue is the same as a number; weightedAverageOdds stays ' +
    '10^20-scaled. Fills waiting on the chain are not listed. The taker\'s entry of a cash out\'s fill carries ' +
    'cashOutAmount and cashOutFee (additive, base-token units): what the cash out paid at once and its fee. ' +
    'recent_trades_consolidated:global publishes one such entry per publication.';
  app.get('/trades/consolidated', { schema: { tags: ['trades'], description, querystring: ConsolidatedQuery, response: recordResponses(ConsolidatedPage) } }, async (request) => {
    const q = request.query;
    if (q.hideQuarterLineParents && q.hideQuarterLineLegs) {
      throw invalidField('hideQuarterLineLegs', 'not', 'hideQuarterLineParents and hideQuarterLineLegs cannot both be true', 'CONFLICTING_FILTERS');
    }
    return ok(
      await listConsolidated(
        readModels,
        consolidated,
        {
          settled: q.settled,
          ...(q.bettor !== undefined ? { bettor: q.bettor } : {}),
          ...(q.maker !== undefined ? { maker: q.maker } : {}),
          ...(q.exchangeEventId !== undefined ? { exchangeEventId: q.exchangeEventId } : {}),
          ...(q.tradeStatus !== undefined ? { tradeStatus: q.tradeStatus } : {}),
          ...(q.marketHash !== undefined ? { marketHash: q.marketHash.toLowerCase() } : {}),
          hideQuarterLineParents: q.hideQuarterLineParents ?? false,
          hideQuarterLineLegs: q.hideQuarterLineLegs ?? false,
        },
        { sortBy: q.sortBy ?? 'betTime', ascending: q.sortAsc },
        { page: q.page, perPage: q.perPage },
      ),
    );
  });
};
