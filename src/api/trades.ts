// GET /trades (per-order trades, scoped, cursor-paged) and GET /trades/orders.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import type { ReadModels } from '../store/ports.js';
import { ok, type Success } from './envelope.js';
import { invalidField } from '../protocol/errors.js';
import { Address, MAX_HASHES, hashListLength, isHash, parseCommaList } from './params.js';
import { betTypeOf, tradeToOrderTradeRest, tradeToRest, type TradeRenderContext } from '../render/orders-and-trades.js';
import type { RenderContexts } from '../render/contexts.js';
import { marketsOfTrades } from '../render/consolidated.js';
import { responses } from './schemas/envelope.js';
import { OrderTrades, TradesPage, type Trade } from './schemas/trades.js';
import { RenderedTrades } from './rendered-trades.js';
import type { ListedTrades } from '../store/ports.js';

const TradesQuery = Type.Object({
  startDate: Type.Optional(Type.Integer({ minimum: 0 })),
  endDate: Type.Optional(Type.Integer({ minimum: 0 })),
  bettor: Type.Optional(Address),
  settled: Type.Optional(Type.Boolean()),
  marketHashes: Type.Optional(Type.String({ maxLength: hashListLength(MAX_HASHES) })),
  baseToken: Type.Optional(Address),
  maker: Type.Optional(Type.Boolean()),
  affiliate: Type.Optional(Address),
  pageSize: Type.Integer({ minimum: 1, maximum: 300, default: 100 }),
  paginationKey: Type.Optional(Type.String({ maxLength: 200 })),
  tradeStatus: Type.Optional(Type.Union([Type.Literal('PENDING'), Type.Literal('SUCCESS'), Type.Literal('FAILED')])),
  exchangeEventId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
});

/** Cursor: the position (1-based trade id) to continue below; trades are listed newest first. */
const encodeKey = (id: number) => Buffer.from(`t:${id}`).toString('base64url');
function decodeKey(key: string): number {
  const m = /^t:(\d{1,15})$/.exec(Buffer.from(key, 'base64url').toString());
  if (!m) throw invalidField('paginationKey', 'format', 'paginationKey is not a nextKey this server returned', 'INVALID_PAGINATION_KEY');
  return Number(m[1]);
}

/**
 * GET /trades items kept rendered across requests (about 2 KB each with their JSON text): a hundred pages of 100
 * trades. A listing renders only the trades it does not find here at their current version.
 */
const KEPT_TRADE_ITEMS = 10_000;

type TradeItem = Static<typeof Trade>;

export interface TradeRouteDeps {
  readModels: Pick<ReadModels, 'tradeVersionsPage' | 'listedTrades' | 'tradesOfOrders'>;
  render: RenderContexts['trades'];
}

export const tradeRoutes: FastifyPluginAsyncTypebox<TradeRouteDeps> = async (app, { readModels, render }) => {
  /** The render context for one reply: its trades' refund flags and chain records, read with the trades. */
  const renderPage = async (listed: ListedTrades): Promise<TradeRenderContext> => ({
    ...(await render.withMarkets(marketsOfTrades(listed.trades))),
    hasRefunds: listed.hasRefunds,
    fillOnChain: listed.fillOnChain,
  });
  const kept = new RenderedTrades<TradeItem>(KEPT_TRADE_ITEMS);
  /**
   * Items of these trades (ids with their versions and refund flags, read together): kept ones as they are, the rest
   * read and rendered.
   */
  const renderedItems = async (ids: readonly number[], versions: readonly number[], refunded: readonly boolean[]): Promise<TradeItem[]> => {
    // What an item shows that its trade's version does not cover is compared on each use: its market's betType (the
    // catalogue's) and its bettor's refund flag in the market (read with the page).
    const kepts = ids.map((id, i) => kept.get(id, versions[i]!));
    const held = kepts.filter((item) => item !== undefined);
    const heldMarkets = await render.withMarkets(marketsOfTrades(held.map((item) => ({ marketHash: item.marketHash, quarterLineParentMarketHash: item.quarterLineParentMarketHash ?? undefined }))));
    const isCurrent = (item: TradeItem, i: number) =>
      item.marketHasRefunds === refunded[i] && item.betType === betTypeOf(heldMarkets, item.marketHash, item.quarterLineParentMarketHash);
    const hits = kepts.map((item, i) => (item !== undefined && isCurrent(item, i) ? item : undefined));
    const missing = ids.filter((_, i) => hits[i] === undefined);
    const rendered = new Map<number, TradeItem>();
    if (missing.length > 0) {
      const listed = await readModels.listedTrades(missing);
      const pageRender = await renderPage(listed);
      listed.trades.forEach((t, i) => {
        const item = tradeToRest(t, pageRender);
        kept.set(Number(t.id), listed.versions[i]!, item);
        rendered.set(Number(t.id), item);
      });
    }
    return ids.flatMap((id, i) => hits[i] ?? rendered.get(id) ?? []);
  };
  const description =
    'Trades per order and side. recent_trades:global publishes each new or changed trade in this shape, one trade ' +
    'object per publication (not an array).';
  /** A listing's reply as JSON.stringify writes it, with the kept items' JSON text (the envelope's keys first). */
  const listingJson = ({ status, data: { trades, ...rest } }: Success<Static<typeof TradesPage>>) =>
    `{"status":${JSON.stringify(status)},"data":{"trades":${kept.json(trades)},${JSON.stringify(rest).slice(1)}}`;
  app.get('/trades', { schema: { tags: ['trades'], description, querystring: TradesQuery, response: responses(TradesPage) } }, async (request, reply) => {
    const q = request.query;
    if (!q.bettor && !q.marketHashes && !q.exchangeEventId && q.startDate === undefined) {
      throw invalidField('bettor', 'anyOf', 'one of bettor, marketHashes, exchangeEventId or startDate is required', 'MISSING_SCOPE_FILTER');
    }
    const marketHashes = q.marketHashes
      ? [...new Set(parseCommaList(q.marketHashes, 'marketHashes', { max: MAX_HASHES, valid: isHash }).map((h) => h.toLowerCase()))]
      : undefined;
    const below = q.paginationKey ? decodeKey(q.paginationKey) : Infinity;
    const { ids, versions, count, more, refunded } = await readModels.tradeVersionsPage(
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
    const last = ids[ids.length - 1];
    reply.serializer(listingJson);
    return ok({
      trades: await renderedItems(ids, versions, refunded),
      nextKey: more && last !== undefined ? encodeKey(last) : '',
      pageSize: q.pageSize,
      count,
    });
  });

  const OrderTradesQuery = Type.Object({ orderHashes: Type.String({ minLength: 1, maxLength: hashListLength(MAX_HASHES) }) });
  app.get('/trades/orders', { schema: { tags: ['trades'], querystring: OrderTradesQuery, response: responses(OrderTrades) } }, async (request) => {
    const q = request.query;
    const hashes = new Set(
      parseCommaList(q.orderHashes, 'orderHashes', { max: MAX_HASHES, valid: isHash }).map((h) => h.toLowerCase()),
    );
    const listed = await readModels.tradesOfOrders([...hashes]);
    const pageRender = await renderPage(listed);
    return ok({ trades: listed.trades.map((t) => tradeToOrderTradeRest(t, pageRender)) });
  });
};
