// Publication data of the realtime channels (spec section 6) that is not a REST item as is: built from the same
// schemas as the REST replies, for the AsyncAPI document (src/api/asyncapi.ts).
import { Type } from '@sinclair/typebox';
import { OddsString } from './envelope.js';
import { Order } from './trading.js';
import { RefundEvent } from './trades.js';

/** An order on order_book:* and active_orders:*: the REST order, its place on the book and its last change. */
export const ChannelOrder = Type.Composite([
  Order,
  Type.Object({
    status: Type.Union([Type.Literal('ACTIVE'), Type.Literal('INACTIVE')], {
      description: 'ACTIVE while the order is on the book, INACTIVE once it left (filled, cancelled or expired)',
    }),
    updateTime: Type.Integer({ description: 'milliseconds since epoch of the change: orders two updates of one order' }),
  }),
]);

/** A book side whose best maker odds moved to a price (best_odds:global). */
export const BestOddsMove = Type.Object({
  marketHash: Type.String(),
  baseToken: Type.String(),
  isMakerBettingOutcomeOne: Type.Boolean(),
  percentageOdds: OddsString,
  updatedAt: Type.Integer({ description: 'milliseconds since epoch' }),
  sportId: Type.Integer(),
  leagueId: Type.Integer(),
});

/** A refund group of ce_refunds:{bettor}: this commit's events of one market and token, and the running total. */
export const ChannelRefundGroup = Type.Object({
  marketHash: Type.String(),
  baseToken: Type.String(),
  totalRefunded: Type.Number({ description: 'all refunds of the bettor in this market and token so far, in base-token units' }),
  events: Type.Array(RefundEvent),
});

/** A bettor's parlay request, broadcast to makers on parlay_markets:global when its market is created. */
export const ParlayRequestBroadcast = Type.Object({
  marketHash: Type.String({ description: 'the new parlay market: makers quote it with POST /orders/new' }),
  baseToken: Type.String(),
  requestSize: Type.String({ description: 'the stake the bettor asks quotes for, in wei' }),
  legs: Type.Array(Type.Object({ marketHash: Type.String(), bettingOutcomeOne: Type.Boolean() })),
});
