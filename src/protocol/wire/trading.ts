// Response data of orders, odds, fills, cancels, heartbeats and balances (spec 4.14-4.19, DECISIONS.md).
import { Type } from '@sinclair/typebox';
import { IsoDate, OddsString, WeiString } from './envelope.js';

export const Order = Type.Object({
  orderHash: Type.String(),
  marketHash: Type.String(),
  maker: Type.String(),
  totalBetSize: WeiString,
  percentageOdds: OddsString,
  fillAmount: WeiString,
  pendingFillAmount: Type.String({ pattern: '^[0-9]+$', description: 'accepted fills not yet in fillAmount (maker wei)' }),
  baseToken: Type.String(),
  executor: Type.String(),
  expiry: Type.Integer(),
  apiExpiry: Type.Integer(),
  salt: Type.String(),
  isMakerBettingOutcomeOne: Type.Boolean(),
  signature: Type.String(),
  persistence: Type.Union([Type.Literal('LAPSE'), Type.Literal('PERSIST')], {
    description: 'LAPSE: cancelled when the fixture goes live; PERSIST: stays on the book into play',
  }),
  exchangeEventId: Type.String(),
  orderStatus: Type.String({ description: 'ACTIVE, INACTIVE (exhausting fill pending), FILLED, CANCELLED, EXPIRED' }),
  cancelReason: Type.Optional(
    Type.Union(
      [
        Type.Literal('maker_cancel'),
        Type.Literal('heartbeat_expired'),
        Type.Literal('kick_off'),
        Type.Literal('operator'),
        Type.Literal('market_reported'),
        Type.Literal('insufficient_balance'),
      ],
      {
        description:
          'Set on CANCELLED orders only: maker_cancel (a signed cancel or replace), heartbeat_expired, kick_off (a LAPSE order, or any order of a market closed in play, at its fixture going live), operator, market_reported, insufficient_balance',
      },
    ),
  ),
  createdAt: IsoDate,
  updatedAt: IsoDate,
});

export const OrderList = Type.Array(Order);

/** A side without orders is left out of its market's record; a market without orders is left out of the list. */
const BestOddsSide = Type.Object({
  percentageOdds: OddsString,
  updatedAt: Type.Integer({ description: 'milliseconds since epoch' }),
});

export const BestOdds = Type.Object({
  bestOdds: Type.Array(
    Type.Object({
      marketHash: Type.String(),
      baseToken: Type.String(),
      outcomeOne: Type.Optional(BestOddsSide),
      outcomeTwo: Type.Optional(BestOddsSide),
    }),
  ),
});

export const PostOrdersResult = Type.Object({
  orders: Type.Array(Type.String(), { description: 'order hashes, in request order' }),
  statuses: Type.Record(Type.String(), Type.String(), {
    description: 'per order hash: OK, INSUFFICIENT_BALANCE, INVALID_MARKET, ORDERS_ALREADY_EXIST, ORDER_WOULD_CROSS',
  }),
  inserted: Type.Integer(),
});

export const FillResult = Type.Object({
  fillHash: Type.String(),
  isPartialFill: Type.Boolean(),
  totalFilled: WeiString,
  averageOdds: OddsString,
});

export const CancelResult = Type.Object({
  cancelledCount: Type.Integer(),
  orders: Type.Array(
    Type.Object({
      orderHash: Type.String(),
      pendingFills: Type.Array(Type.Object({ fillHash: Type.String(), pendingFillAmount: WeiString })),
    }),
  ),
  notCancelled: Type.Array(
    Type.Object({
      orderHash: Type.String(),
      reason: Type.String({ description: 'not_found_or_inactive, already_pending_cancel, order_locked, update_failed' }),
    }),
  ),
});

export const ReplaceResult = Type.Object({
  cancel: Type.Composite([CancelResult], { description: 'the cancel\'s outcome, as POST /orders/cancel/v2 answers it' }),
  orders: Type.Composite([PostOrdersResult], { description: 'the new orders\' outcome, as POST /orders/new answers it (every status OK)' }),
});

export const Heartbeat = Type.Object({
  requestor: Type.String(),
  timeoutSeconds: Type.Integer(),
  expiresAt: Type.String({ description: 'ISO 8601 UTC: when the heartbeat lapses; once deactivated, when it was deactivated' }),
});

export const Balance = Type.Object({
  address: Type.String(),
  baseToken: Type.String(),
  balance: WeiString,
  escrowed: WeiString,
  openExposure: WeiString,
  pendingTakerStake: WeiString,
});

export const RealtimeToken = Type.Object({ token: Type.String({ description: 'HS256 JWT; sub is the address (of the API key or the signed-in wallet)' }) });

/** GET /cashout/quote. */
export const CashOutQuote = Type.Object({
  marketHash: Type.String(),
  isTakerBettingOutcomeOne: Type.Boolean({ description: 'the hedge fill\'s side' }),
  stakeWei: Type.String({ description: 'the hedge fill\'s taker stake (wei)' }),
  desiredOdds: Type.String({ description: 'the worst taker odds the hedge takes (10^20-scaled)' }),
  amount: Type.String({ description: 'what the hedged position is worth now, after fee (wei)' }),
  fee: Type.String({ description: 'the cash-out fee (wei)' }),
  paidNow: Type.String({
    description:
      'additive: what a cash out taking this hedge pays at once when it confirms, after fee (wei): what the hedged position ' +
      'is owed in every result, a void included; the rest, when a result pays more, comes at settlement',
  }),
  partial: Type.Optional(
    Type.Literal(true, { description: 'additive, asked with partial=true: present (true) when the quote hedges only the part of the position the book covers' }),
  ),
  uncoveredWei: Type.Optional(
    Type.String({
      description:
        'additive, with partial: the return the hedge still lacks (wei): what the position pays more on one outcome than on the ' +
        'other once this part is cashed out; a later quote prices it',
    }),
  ),
});
