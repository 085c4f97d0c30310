// In-process bus from the writers (catalogue, the realtime publisher) to the fan-out (realtime). Each payload is typed
// by the wire schema of what its channel publishes (src/protocol/wire): the REST item, or the channel's own shape.
import { EventEmitter } from 'node:events';
import type { Static } from '@sinclair/typebox';
import type { Fixture, LiveScore, Market } from './protocol/wire/catalogue.js';
import type { BestOddsMove, ChannelOrder, ChannelRefundGroup, ParlayRequestBroadcast } from './protocol/wire/realtime.js';
import type { ConsolidatedTrade, Trade } from './protocol/wire/trades.js';

export type MarketItem = Static<typeof Market>;
export type OrderItem = Static<typeof ChannelOrder>;
export type TradeItem = Static<typeof Trade>;
export type ConsolidatedItem = Static<typeof ConsolidatedTrade>;
export type BestOddsItem = Static<typeof BestOddsMove>;
export type RefundGroupItem = Static<typeof ChannelRefundGroup>;

export interface ExchangeEvents {
  /** Markets created, suspended, settled (items as on /markets/active, settled ones as on /markets/find). */
  markets: [markets: MarketItem[]];
  /** Main line of a spread/total group moved (market objects of the new main lines). */
  mainLine: [markets: MarketItem[]];
  /** Fixtures created or changed. */
  fixtures: [fixtures: Static<typeof Fixture>[]];
  /** Live score updates. */
  liveScores: [scores: Static<typeof LiveScore>[]];
  /**
   * Orders that changed on one market (as on GET /orders plus `status` and `updateTime`), with the market's event id
   * and, by index, the journal time (UNIX ms, its command's `at`) of each order's change: a parlay's quote window
   * goes by it, not by when the publication comes.
   */
  orders: [update: { marketHash: string; exchangeEventId: string; orders: OrderItem[]; journaledAt: number[] }];
  /** Best odds moved to a price. */
  bestOdds: [entries: BestOddsItem[]];
  /** New or changed trades (items as on GET /trades); published one trade per publication. */
  trades: [trades: TradeItem[]];
  /** New or changed consolidated trades (items as on GET /trades/consolidated); published one per publication. */
  consolidatedTrades: [trades: ConsolidatedItem[]];
  /** Capital-efficiency refund groups for one bettor. */
  refunds: [update: { bettor: string; groups: RefundGroupItem[] }];
  /** Parlay requests broadcast to makers. */
  parlayMarkets: [markets: Static<typeof ParlayRequestBroadcast>[]];
}

export class EventBus extends EventEmitter<ExchangeEvents> {}
