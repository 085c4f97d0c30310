// An order as either store's rm_orders gives it, and the OrderView read from it: SQLite's flag is 0/1 and its
// integers numbers, PostgreSQL's flag a boolean and its bigints decimal strings. Wei are text in both.
import type { OrderCancelReason, OrderPersistence, OrderStatus, OrderView } from '../engine/types.js';

export interface OrderRow {
  order_hash: string;
  market_hash: string;
  exchange_event_id: string;
  maker: string;
  base_token: string;
  executor: string;
  total_bet_size: string;
  percentage_odds: string;
  fill_amount: string;
  pending_fill_amount: string;
  expiry: number | string;
  api_expiry: number | string;
  salt: string;
  maker_outcome_one: boolean | number;
  signature: string;
  status: string;
  seq: number | string;
  created_at: number | string;
  updated_at: number | string;
  persistence: string;
  cancel_reason: string | null;
}

export const orderOf = (r: OrderRow): OrderView => ({
  orderHash: r.order_hash,
  marketHash: r.market_hash,
  exchangeEventId: r.exchange_event_id,
  maker: r.maker,
  baseToken: r.base_token,
  executor: r.executor,
  totalBetSize: BigInt(r.total_bet_size),
  percentageOdds: BigInt(r.percentage_odds),
  fillAmount: BigInt(r.fill_amount),
  pendingFillAmount: BigInt(r.pending_fill_amount),
  expiry: Number(r.expiry),
  apiExpiry: Number(r.api_expiry),
  salt: r.salt,
  isMakerBettingOutcomeOne: Boolean(r.maker_outcome_one),
  signature: r.signature,
  persistence: r.persistence as OrderPersistence,
  status: r.status as OrderStatus,
  ...(r.cancel_reason !== null ? { cancelReason: r.cancel_reason as OrderCancelReason } : {}),
  seq: Number(r.seq),
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});
