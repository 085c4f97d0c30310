// GET /trades (per-order trades, scoped, cursor-paged) and GET /trades/orders.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { ListedTrades, TradingReadModels } from '../store/read-models.js';
import { badRequest, ok } from './envelope.js';
import { Address, isHash, parseCommaList } from './params.js';
import { tradeToOrderTradeRest, tradeToRest, type TradeRenderContext } from '../trading/render.js';
import { responses } from './schemas/envelope.js';
import { OrderTrades, TradesPage } from './schemas/trades.js';

const TradesQuery = Type.Object({
  startDate: Type.Optional(Type.Integer({ minimum: 0 })),
  endDate: Type.Optional(Type.Integer({ minimum: 0 })),
  bettor: Type.Optional(Address),
  settled: Type.Optional(Type.Boolean()),
  marketHashes: Type.Optional(Type.String({ maxLength: 4000 })),
  baseToken: Type.Optional(Address),
  maker: Type.Optional(Type.Boolean()),
  affiliate: Type.Optional(Address),
  pageSize: Type.Integer({ minimum: 1, maximum: 300, default: 100 }),
  paginationKey: Type.Optional(Type.String({ maxLength: 40 })),
  tradeStatus: Type.Optional(Type.Union([Type.Literal('PENDING'), Type.Literal('SUCCESS'), Type.Literal('FAILED')])),
  exchangeEventId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
});

/** Cursor: the position (1-based trade id) to continue below; trades are listed newest first. */
const encodeKey = (id: number) => Buffer.from(`t:${id}`).toString('base64url');
function decodeKey(key: string): number {
  const m = /^t:(\d{1,15})$/.exec(Buffer.from(key, 'base64url').toString());
  if (!m) throw badRequest('INVALID_PAGINATION_KEY', 'paginationKey is not a nextKey this server returned');
  return Number(m[1]);
}

export interface TradeRouteDeps {
  readModels: Pick<TradingReadModels, 'tradesPage' | 'tradesOfOrders'>;
  render: TradeRenderContext;
}

export const tradeRoutes: FastifyPluginAsyncTypebox<TradeRouteDeps> = async (app, { readModels, render }) => {
  /** The render context for one reply: its trades' refund flags and chain records, read with the trades. */
  const renderPage = (listed: ListedTrades): TradeRenderContext => ({
    ...render,
    hasRefunds: listed.hasRefunds,
    ...(render.fillOnChain ? { fillOnChain: listed.fillOnChain } : {}),
  });
  const description =
    'Trades per order and side. recent_trades:global publishes each new or changed trade in this shape, one trade ' +
    'object per publication (not an array).';
  app.get('/trades', { schema: { tags: ['trades'], description, querystring: TradesQuery, response: responses(TradesPage) } }, async (request) => {
    const q = request.query;
    if (!q.bettor && !q.marketHashes && !q.exchangeEventId && q.startDate === undefined) {
      throw badRequest('MISSING_SCOPE_FILTER', 'send at least one of bettor, marketHashes, exchangeEventId or startDate');
    }
    const marketHashes = q.marketHashes
      ? [...new Set(parseCommaList(q.marketHashes, 'marketHashes', { max: 100, valid: isHash }).map((h) => h.toLowerCase()))]
      : undefined;
    const below = q.paginationKey ? decodeKey(q.paginationKey) : Infinity;
    const listed = readModels.tradesPage(
      {
        ...(q.startDate !== undefined ? { startMs: q.startDate * 1000 } : {}),
        ...(q.endDate !== undefined ? { endMs: q.endDate * 1000 } : {}),
        ...(q.bettor !== undefined ? { bettor: q.bettor } : {}),
        ...(q.settled !== undefined ? { settled: q.settled } : {}),
        ...(marketHashes !== undefined ? { marketHashes } : {}),
        ...(q.baseToken !== undefined ? { baseToken: q.baseToken } : {}),
        ...(q.maker !== undefined ? { maker: q.maker } : {}),
        ...(q.affiliate !== undefined ? { affiliate: q.affiliate } : {}),
        ...(q.tradeStatus !== undefined ? { tradeStatus: q.tradeStatus } : {}),
        ...(q.exchangeEventId !== undefined ? { exchangeEventId: q.exchangeEventId } : {}),
      },
      below,
      q.pageSize,
    );
    const { trades: page, count, more } = listed;
    const last = page[page.length - 1];
    const pageRender = renderPage(listed);
    return ok({
      trades: page.map((t) => tradeToRest(t, pageRender)),
      nextKey: more && last ? encodeKey(Number(last.id)) : '',
      pageSize: q.pageSize,
      count,
    });
  });

  const OrderTradesQuery = Type.Object({ orderHashes: Type.String({ minLength: 1, maxLength: 7000 }) });
  app.get('/trades/orders', { schema: { tags: ['trades'], querystring: OrderTradesQuery, response: responses(OrderTrades) } }, async (request) => {
    const q = request.query;
    const hashes = new Set(
      parseCommaList(q.orderHashes, 'orderHashes', { max: 100, valid: isHash }).map((h) => h.toLowerCase()),
    );
    const listed = readModels.tradesOfOrders([...hashes]);
    const pageRender = renderPage(listed);
    return ok({ trades: listed.trades.map((t) => tradeToOrderTradeRest(t, pageRender)) });
  });
};
