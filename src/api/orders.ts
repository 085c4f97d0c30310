// POST /orders/new, GET /orders, GET /orders/odds/best.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import type { Config } from '../config.js';
import type { Catalogue } from '../catalogue/catalogue.js';
import type { SequencerPort } from '../sequencer/port.js';
import type { ReadModels } from '../store/ports.js';
import { marketRefOf } from '../catalogue/market-ref.js';
import type { Publisher } from '../realtime/publisher.js';
import type { SignatureVerifier } from '../verify/verifier.js';
import type { MarketRef, NewOrder, OrderView } from '../engine/types.js';
import { ok } from './envelope.js';
import { ExchangeError, invalidField } from '../protocol/errors.js';
import { Address, Hash, MAX_HASHES, UintString, hashListLength, isHash, parseCommaList } from './params.js';
import { parseOdds, parseSalt, parseWei, requireBaseToken, requireNotClosedInPlay, requireSigner, SIGNATURE_PATTERN } from './trading-input.js';
import { checksumAddress, sameAddress } from '../protocol/address.js';
import { isValidMakerOdds } from '../protocol/odds.js';
import { canonicalSignature } from '../protocol/signatures.js';
import type { Verified, VerifyJob } from '../verify/jobs.js';
import type { ApiKeys } from '../admin/api-keys.js';
import { orderToRest } from '../render/orders-and-trades.js';
import { recordResponses, responses } from './schemas/envelope.js';
import { BestOdds, OrderList, PostOrdersResult } from './schemas/trading.js';

export const SignedOrder = Type.Object(
  {
    marketHash: Hash,
    maker: Address,
    totalBetSize: UintString,
    percentageOdds: UintString,
    baseToken: Address,
    apiExpiry: Type.Integer({ minimum: 0, maximum: 253402300799 }),
    expiry: Type.Integer({ minimum: 0, maximum: 253402300799 }),
    executor: Address,
    isMakerBettingOutcomeOne: Type.Boolean(),
    salt: Type.String({ maxLength: 80 }),
    signature: Type.String({ pattern: SIGNATURE_PATTERN }),
    persistence: Type.Optional(
      Type.Union([Type.Literal('LAPSE'), Type.Literal('PERSIST')], {
        description:
          'Not signed. What the order does when its fixture goes live (status 2): LAPSE (default) is cancelled at ' +
          'kick-off, PERSIST stays on the book into play. Markets not enabled for in-play betting cancel every order. ' +
          'It acts at kick-off only: an order posted while the fixture is live rests whatever it says.',
      }),
    ),
  },
  { additionalProperties: false },
);
type SignedOrder = Static<typeof SignedOrder>;

const SORT_FIELDS = {
  fill_amount: (o: OrderView) => o.fillAmount,
  total_bet_size: (o: OrderView) => o.totalBetSize,
  percentage_odds: (o: OrderView) => o.percentageOdds,
  api_expiry: (o: OrderView) => BigInt(o.apiExpiry),
  created_at: (o: OrderView) => BigInt(o.seq),
  updated_at: (o: OrderView) => BigInt(o.updatedAt),
} as const;
const SORT_FIELD_NAMES = Object.keys(SORT_FIELDS) as (keyof typeof SORT_FIELDS)[];

/** Order hashes one GET /orders takes (a maker's whole book, read back by hash). */
const MAX_ORDER_HASHES = 1000;

const OrdersQuery = Type.Object({
  marketHashes: Type.Optional(Type.String({ maxLength: hashListLength(MAX_HASHES) })),
  maker: Type.Optional(Address),
  baseToken: Type.Optional(Address),
  exchangeEventId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  orderHashes: Type.Optional(Type.String({ maxLength: hashListLength(MAX_ORDER_HASHES) })),
  page: Type.Integer({ minimum: 0, default: 0 }),
  perPage: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
  sortBy: Type.Optional(Type.Union(SORT_FIELD_NAMES.map((k) => Type.Literal(k)))),
  sortAsc: Type.Boolean({ default: true }),
});

const BestOddsQuery = Type.Object({
  marketHashes: Type.Optional(Type.String({ maxLength: hashListLength(MAX_HASHES) })),
  leagueIds: Type.Optional(Type.String({ maxLength: 1000 })),
  baseToken: Address,
});

export interface OrderRouteDeps {
  config: Pick<
    Config,
    'oddsLadderStepSize' | 'makerMinimum' | 'baseTokenAddress' | 'executorAddress' | 'maxOrdersPerRequest' | 'maxMarketsPerRequest'
  >;
  catalogue: Pick<Catalogue, 'getMarket' | 'unloaded' | 'loadMarkets' | 'isClosedInPlay' | 'marketsOfLeagues' | 'inQuoteWindow'>;
  trading: Pick<SequencerPort, 'submit'>;
  readModels: Pick<ReadModels, 'orders'>;
  /** The best odds as published (GET /orders/odds/best answers what best_odds:global last carried). */
  publisher: Pick<Publisher, 'bestOddsEntry'>;
  verifier: Pick<SignatureVerifier, 'inClientOrder'>;
  /** Who asks: a parlay quote in its quote window is shown on `maker=` only to a request with its maker's API key. */
  apiKeys: Pick<ApiKeys, 'keyOf'>;
  now: () => number;
}

/** One order after its static checks: the hashing and recovery job for the pool, and the engine's order once verified. */
interface CheckedOrder {
  job: VerifyJob;
  toNewOrder(verified: Verified): NewOrder;
}

/** Static checks of one signed order; the engine decides the balance, market and duplicate statuses. */
function checkOrder(config: OrderRouteDeps['config'], o: SignedOrder, i: number, nowSeconds: number): CheckedOrder {
  const field = (name: string) => `orders[${i}].${name}`;
  const totalBetSize = parseWei(o.totalBetSize, field('totalBetSize'), 'INVALID_AMOUNT', { positive: true });
  const percentageOdds = parseOdds(o.percentageOdds, field('percentageOdds'));
  if (!isValidMakerOdds(percentageOdds, config.oddsLadderStepSize)) {
    throw invalidField(field('percentageOdds'), 'multipleOf', `${field('percentageOdds')} is not on the odds ladder (step ${config.oddsLadderStepSize})`, 'INVALID_ODDS');
  }
  if (totalBetSize < config.makerMinimum) {
    throw invalidField(field('totalBetSize'), 'minimum', `${field('totalBetSize')} is below the maker minimum ${config.makerMinimum}`, 'MAKER_AMOUNT_TOO_LOW');
  }
  requireBaseToken(config, o.baseToken, field('baseToken'));
  if (!sameAddress(o.executor, config.executorAddress)) {
    throw invalidField(field('executor'), 'const', `${field('executor')} must be ${config.executorAddress}`, 'INVALID_EXECUTOR');
  }
  if (o.apiExpiry <= nowSeconds || o.expiry <= nowSeconds) {
    throw new ExchangeError('ORDER_EXPIRED', `${field(o.apiExpiry <= nowSeconds ? 'apiExpiry' : 'expiry')} is in the past`);
  }
  const salt = parseSalt(o.salt, field('salt'));
  const order = {
    marketHash: o.marketHash,
    baseToken: o.baseToken,
    totalBetSize,
    percentageOdds,
    expiry: BigInt(o.expiry),
    salt,
    maker: o.maker,
    executor: o.executor,
    isMakerBettingOutcomeOne: o.isMakerBettingOutcomeOne,
  };
  return {
    job: { kind: 'order', order, signature: o.signature },
    toNewOrder: ({ hash, signer }) => {
      requireSigner(signer, o.maker, 'MAKER_SIGNATURE_MISMATCH', `${field('signature')}: order`);
      return {
        orderHash: hash,
        marketHash: o.marketHash.toLowerCase(),
        maker: checksumAddress(o.maker),
        baseToken: checksumAddress(o.baseToken),
        executor: checksumAddress(o.executor),
        totalBetSize,
        percentageOdds,
        expiry: o.expiry,
        apiExpiry: o.apiExpiry,
        salt: salt.toString(),
        isMakerBettingOutcomeOne: o.isMakerBettingOutcomeOne,
        signature: canonicalSignature(o.signature),
        // Only PERSIST is carried: a LAPSE order journals as orders did before the field existed.
        ...(o.persistence === 'PERSIST' ? { persistence: 'PERSIST' as const } : {}),
      };
    },
  };
}

/**
 * Statically checks every order, then verifies the signatures of those before the first static failure: the
 * error reported is that of the first bad order, whether its fault is static or its signature.
 */
export function checkOrders(config: OrderRouteDeps['config'], orders: SignedOrder[], nowSeconds: number) {
  const checked: CheckedOrder[] = [];
  let staticError: unknown;
  for (let i = 0; i < orders.length && staticError === undefined; i++) {
    try {
      checked.push(checkOrder(config, orders[i]!, i, nowSeconds));
    } catch (err) {
      staticError = err;
    }
  }
  return {
    jobs: checked.map((c) => c.job),
    toNewOrders(verified: Verified[]): NewOrder[] {
      const out = checked.map((c, i) => c.toNewOrder(verified[i]!));
      if (staticError !== undefined) throw staticError;
      return out;
    },
  };
}

/**
 * The markets new orders post to, as the engine takes them; refuses too many markets. A market closed in play (not
 * live-enabled, its fixture live) refuses the whole request when `closedInPlay` is 'refuse' (an all-or-nothing
 * replace); with 'omit' it is left out, so its orders alone get INVALID_MARKET, as a closed market's do, and the
 * rest of a maker's batch is posted.
 */
export function marketsOfOrders(
  { config, catalogue }: Pick<OrderRouteDeps, 'config' | 'catalogue'>,
  orders: readonly NewOrder[],
  closedInPlay: 'refuse' | 'omit',
): MarketRef[] {
  const marketHashes = new Set(orders.map((o) => o.marketHash));
  if (marketHashes.size > config.maxMarketsPerRequest) {
    throw new ExchangeError('TOO_MANY_MARKETS', `one request may post to at most ${config.maxMarketsPerRequest} markets`);
  }
  let records = [...marketHashes].flatMap((hash) => catalogue.getMarket(hash) ?? []);
  if (closedInPlay === 'refuse') for (const m of records) requireNotClosedInPlay(catalogue, m);
  else records = records.filter((m) => !catalogue.isClosedInPlay(m));
  return records.map((m) => marketRefOf(catalogue, m));
}

/** POST /orders/new's reply from the engine's per-order statuses. */
export function postOrdersReply(statuses: readonly { orderHash: string; status: string }[]): Static<typeof PostOrdersResult> {
  const byHash: Record<string, string> = {};
  // An order sent twice in one request keeps the status of its first copy: OK if this request created it.
  for (const s of statuses) byHash[s.orderHash] ??= s.status;
  return { orders: statuses.map((s) => s.orderHash), statuses: byHash, inserted: statuses.filter((s) => s.status === 'OK').length };
}

export const orderRoutes: FastifyPluginAsyncTypebox<OrderRouteDeps> = async (app, { config, catalogue, trading, readModels, publisher, verifier, apiKeys, now }) => {
  app.post(
    '/orders/new',
    {
      schema: {
        tags: ['orders'],
        description:
          'Posts signed maker orders; per-order statuses as the spec lists them, plus ORDER_WOULD_CROSS. A market with ' +
          'liveEnabled false takes no orders while its fixture is live (status 2): its orders get INVALID_MARKET, as a ' +
          'closed market\'s do (the rest of the batch is posted; POST /orders/replace refuses with 400 ' +
          'MARKET_NOT_LIVE_ENABLED), and its resting orders were cancelled when the fixture went live. Order channels ' +
          '(order_book:*, active_orders:*) carry each changed order as GET /orders shows it plus status (ACTIVE while on ' +
          'the book, INACTIVE once filled, cancelled or expired) and updateTime (ms).',
        body: Type.Object(
          { orders: Type.Array(SignedOrder, { minItems: 1, maxItems: config.maxOrdersPerRequest }) },
          { additionalProperties: false },
        ),
        response: responses(PostOrdersResult),
      },
    },
    async (request) => {
      const { orders } = request.body;
      const nowSeconds = Math.floor(now() / 1000);
      const { jobs, toNewOrders } = checkOrders(config, orders, nowSeconds);
      const makers = orders.map((o) => o.maker);
      // Settled markets of a database server are loaded before the synchronous step (an open one waits for nothing,
      // so a client's orders keep their order of arrival).
      const unloaded = catalogue.unloaded(orders.map((o) => o.marketHash));
      if (unloaded.length > 0) await catalogue.loadMarkets(unloaded);
      const result = await verifier.inClientOrder(makers, jobs, (verified) => {
        const checked = toNewOrders(verified);
        const markets = marketsOfOrders({ config, catalogue }, checked, 'omit');
        return trading.submit({ kind: 'postOrders', at: now(), orders: checked, markets });
      });
      return ok(postOrdersReply(result.statuses));
    },
  );

  const ordersDescription =
    'Orders by market, maker or hash. order_book:* and active_orders:* publish arrays of changed orders in this shape ' +
    'plus status (ACTIVE while the order is on the book, INACTIVE once it left: filled, cancelled or expired; ' +
    'orderStatus has the detail) and updateTime (milliseconds of the last change). Orders on a parlay in its quote ' +
    'window are left out, except on maker= with that maker\'s X-Api-Key (or by their hashes).';
  app.get('/orders', { schema: { tags: ['orders'], description: ordersDescription, querystring: OrdersQuery, response: responses(OrderList) } }, async (request) => {
    const q = request.query;
    if (!q.marketHashes && !q.maker && !q.orderHashes) {
      throw invalidField('marketHashes', 'anyOf', 'one of marketHashes, maker or orderHashes is required', 'MISSING_FILTER');
    }
    if (q.marketHashes && q.exchangeEventId) {
      throw invalidField('exchangeEventId', 'not', 'marketHashes and exchangeEventId cannot be combined', 'CONFLICTING_FILTERS');
    }
    const marketHashes = q.marketHashes
      ? new Set(parseCommaList(q.marketHashes, 'marketHashes', { max: MAX_HASHES, valid: isHash }).map((h) => h.toLowerCase()))
      : undefined;
    const orderHashes = q.orderHashes
      ? parseCommaList(q.orderHashes, 'orderHashes', { max: MAX_ORDER_HASHES, valid: isHash }).map((h) => h.toLowerCase())
      : undefined;
    // Everything comes from the order read model, which covers every write acknowledged before this read
    // (read-your-writes): explicit hashes in any status, makers' and markets' open orders.
    let candidates: OrderView[];
    if (orderHashes) candidates = (await Promise.all(orderHashes.map((h) => readModels.orders.order(h)))).filter((o) => o !== undefined);
    else if (q.maker) candidates = await readModels.orders.openOrdersOf(q.maker);
    else candidates = (await Promise.all([...marketHashes!].map((h) => readModels.orders.openOrdersIn(h)))).flat();

    // Explicit order hashes return those orders in any state; other queries list open orders. A parlay's book shows
    // nobody but their makers the orders posted while its quote window is open: `maker=` lists them only when the
    // request carries an API key of that maker (anyone can name a maker), and an order hash names one order that
    // nobody else has been told yet.
    const at = now();
    const apiKey = request.headers['x-api-key'];
    const keyAddress = typeof apiKey === 'string' && apiKey !== '' ? apiKeys.keyOf(apiKey)?.address : undefined;
    const makerAsks = q.maker !== undefined && keyAddress !== undefined && sameAddress(keyAddress, q.maker);
    const selected = candidates.filter(
      (o) =>
        (orderHashes !== undefined || o.status === 'ACTIVE' || o.status === 'INACTIVE') &&
        (makerAsks || orderHashes !== undefined || !catalogue.inQuoteWindow(o.marketHash, at)) &&
        (!marketHashes || marketHashes.has(o.marketHash)) &&
        (!q.maker || sameAddress(o.maker, q.maker)) &&
        (!q.baseToken || sameAddress(o.baseToken, q.baseToken)) &&
        (!q.exchangeEventId || o.exchangeEventId === q.exchangeEventId),
    );
    const key = SORT_FIELDS[q.sortBy ?? 'created_at'];
    const dir = q.sortAsc ? 1 : -1;
    selected.sort((a, b) => {
      const x = key(a);
      const y = key(b);
      return (x < y ? -1 : x > y ? 1 : a.seq - b.seq) * dir;
    });
    const start = q.page * q.perPage;
    return ok(selected.slice(start, start + q.perPage).map(orderToRest));
  });

  const bestOddsDescription =
    'Best maker odds per market side. A side without orders is left out of its market\'s record and a market without ' +
    'orders is left out of bestOdds: no percentageOdds is ever null. best_odds:global publishes arrays of ' +
    '{marketHash, baseToken, isMakerBettingOutcomeOne, percentageOdds, updatedAt, sportId, leagueId} for sides ' +
    'that moved to a price; a side that lost its last order is not published (follow order_book:* or re-read this).';
  app.get('/orders/odds/best', { schema: { tags: ['orders'], description: bestOddsDescription, querystring: BestOddsQuery, response: recordResponses(BestOdds) } }, async (request) => {
    const q = request.query;
    if (Boolean(q.marketHashes) === Boolean(q.leagueIds)) {
      throw invalidField('marketHashes', 'oneOf', 'send exactly one of marketHashes and leagueIds', 'EXACTLY_ONE_OF');
    }
    requireBaseToken(config, q.baseToken);
    let hashes: string[];
    if (q.marketHashes) {
      hashes = parseCommaList(q.marketHashes, 'marketHashes', { max: MAX_HASHES, valid: isHash }).map((h) => h.toLowerCase());
    } else {
      const leagueIds = parseCommaList(q.leagueIds!, 'leagueIds', { max: 50, valid: (s) => /^\d{1,9}$/.test(s) }).map(Number);
      hashes = catalogue.marketsOfLeagues(leagueIds).map((m) => m.marketHash);
    }
    const at = now();
    return ok({ bestOdds: hashes.flatMap((h) => (catalogue.inQuoteWindow(h, at) ? [] : (publisher.bestOddsEntry(h) ?? []))) });
  });
};
