// Bus events -> channel publications. Publication data is the array of REST objects as emitted, except on the
// trade channels, where each publication is one trade object (what clients of those channels read).
import type { FastifyBaseLogger } from 'fastify';
import type { BestOddsItem, EventBus, ExchangeEvents } from '../events.js';
import { EncodedArray, type Broker, type StreamRestarts } from './broker.js';
import { QuoteWindowHold, type PublicationProgress, type QuoteWindows } from './quote-window-hold.js';
import { activeOrdersChannel, orderBookEventChannel, orderBookMarketChannel, refundsChannel } from './channels.js';

const RECENT_TRADES = 'recent_trades:global';
const RECENT_CONSOLIDATED = 'recent_trades_consolidated:global';

/**
 * Who can receive the per-commit events (orders, trades, consolidated trades, refunds): their publishers render
 * only what someone can read. A question to the broker: which channels it records.
 */
export interface FeedAudience {
  /** The book channel of the market or of its event. */
  book(marketHash: string, exchangeEventId: string): boolean;
  /** The maker's own orders channel. */
  maker(maker: string): boolean;
  trades(): boolean;
  consolidatedTrades(): boolean;
  refunds(bettor: string): boolean;
}

/** Nobody receives anything: before the feeds attach and after they detach. */
export const NOBODY: FeedAudience = {
  book: () => false,
  maker: () => false,
  trades: () => false,
  consolidatedTrades: () => false,
  refunds: () => false,
};

/** Who can receive what `broker` publishes (it drops publications of channels it does not record). */
export function audienceOf(broker: Pick<Broker, 'interested'>): FeedAudience {
  return {
    book: (marketHash, exchangeEventId) =>
      broker.interested(orderBookMarketChannel(marketHash)) || broker.interested(orderBookEventChannel(exchangeEventId)),
    maker: (maker) => broker.interested(activeOrdersChannel(maker)),
    trades: () => broker.interested(RECENT_TRADES),
    consolidatedTrades: () => broker.interested(RECENT_CONSOLIDATED),
    refunds: (bettor) => broker.interested(refundsChannel(bettor)),
  };
}

/** Parlays' quote windows, and how far publication has come along the journal (their releases wait for it). */
export interface ParlayFeeds {
  windows: QuoteWindows;
  progress: PublicationProgress;
  now: () => number;
  /** A market's best odds now, one item per side with orders (published when its quote window closes). */
  bestOdds: (marketHash: string) => BestOddsItem[];
}

const NO_PARLAYS: ParlayFeeds = {
  windows: { quoteWindowEndsAt: () => undefined },
  progress: { publishedJournaled: () => Promise.resolve() },
  now: Date.now,
  bestOdds: () => [],
};

/** Subscribes the broker to the bus; returns the function that detaches it. */
export function connectFeeds(
  bus: EventBus,
  broker: Broker,
  log: FastifyBaseLogger,
  restarts: Pick<StreamRestarts, 'restart'>,
  parlays: ParlayFeeds = NO_PARLAYS,
): () => void {
  const publish = (channel: string, data: object | EncodedArray) => {
    broker.publish(channel, data).catch((err: unknown) => {
      log.error({ err, channel }, 'realtime publish failed; the channel starts a new stream, its subscribers resubscribe');
      restarts.restart([channel]);
    });
  };
  const publishBook = (marketHash: string, exchangeEventId: string, encoded: EncodedArray) => {
    publish(orderBookMarketChannel(marketHash), encoded);
    publish(orderBookEventChannel(exchangeEventId), encoded);
  };
  const global =
    (channel: string) =>
    (items: readonly object[]): void => {
      if (items.length > 0) publish(channel, items);
    };
  const hold = new QuoteWindowHold(
    parlays.windows,
    parlays.progress,
    parlays.now,
    (marketHash, exchangeEventId, orders) => publishBook(marketHash, exchangeEventId, EncodedArray.of(orders)),
    (marketHash) => global('best_odds:global')(parlays.bestOdds(marketHash)),
  );
  const oneByOne =
    (channel: string) =>
    (items: readonly object[]): void => {
      for (const item of items) publish(channel, item);
    };

  const handlers: { [K in keyof ExchangeEvents]: (...args: ExchangeEvents[K]) => void } = {
    markets: global('markets:global'),
    mainLine: global('main_line:global'),
    fixtures: global('fixtures:global'),
    liveScores: global('fixtures:live_scores'),
    bestOdds: (entries) => global('best_odds:global')(entries.filter((e) => !hold.holdBestOdds(e.marketHash))),
    trades: oneByOne(RECENT_TRADES),
    consolidatedTrades: oneByOne(RECENT_CONSOLIDATED),
    // DECISIONS: the publication is the request object itself, one per request.
    parlayMarkets: oneByOne('parlay_markets:global'),
    orders: ({ marketHash, exchangeEventId, orders, journaledAt }) => {
      if (orders.length === 0) return;
      // Each order is encoded once for its three channels.
      const encoded = EncodedArray.of(orders);
      if (!hold.hold(marketHash, exchangeEventId, orders, journaledAt)) publishBook(marketHash, exchangeEventId, encoded);
      const byMaker = groupByMaker(orders.map((order, index) => ({ order, index })), (o) => o.order.maker);
      for (const [maker, own] of byMaker) {
        publish(activeOrdersChannel(maker), own.length === orders.length ? encoded : new EncodedArray(own.map((o) => encoded.items[o.index]!)));
      }
    },
    refunds: ({ bettor, groups }) => {
      if (groups.length > 0) publish(refundsChannel(bettor), groups);
    },
  };

  const names = Object.keys(handlers) as (keyof ExchangeEvents)[];
  for (const name of names) bus.on(name, handlers[name] as never);
  return () => {
    hold.clear();
    for (const name of names) bus.off(name, handlers[name] as never);
  };
}

/** Orders grouped by maker address (case-insensitive), in the order they were emitted. */
export function groupByMaker<T>(orders: readonly T[], makerOf: (order: T) => unknown): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const order of orders) {
    const maker = makerOf(order);
    if (typeof maker !== 'string') continue;
    const key = maker.toLowerCase();
    const list = out.get(key);
    if (list) list.push(order);
    else out.set(key, [order]);
  }
  return out;
}
