// The read side's orders (rm_orders): one by hash, the open ones of a maker or a market (through partial indexes of
// the open rows only), and which of some hashes were ever posted.
import type { OrderQueries, AsyncQueries } from '../../ports.js';
import type { OrderCancelReason, OrderPersistence, OrderStatus, OrderView } from '../../../engine/types.js';
import { CoalescedLookup } from '../coalesced-lookup.js';
import { int, type Queryable } from '../trade-state.js';

interface OrderRow {
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
  expiry: string;
  api_expiry: string;
  salt: string;
  maker_outcome_one: boolean;
  signature: string;
  status: string;
  seq: string;
  created_at: string;
  updated_at: string;
  persistence: string;
  cancel_reason: string | null;
}

const orderOf = (r: OrderRow): OrderView => ({
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
  expiry: int(r.expiry),
  apiExpiry: int(r.api_expiry),
  salt: r.salt,
  isMakerBettingOutcomeOne: r.maker_outcome_one,
  signature: r.signature,
  persistence: r.persistence as OrderPersistence,
  status: r.status as OrderStatus,
  ...(r.cancel_reason !== null ? { cancelReason: r.cancel_reason as OrderCancelReason } : {}),
  seq: int(r.seq),
  createdAt: int(r.created_at),
  updatedAt: int(r.updated_at),
});

export class PostgresOrderReads implements AsyncQueries<OrderQueries> {
  constructor(private readonly db: Queryable) {}

  /** A maker's open orders (ACTIVE or INACTIVE), oldest first. */
  async openOrdersOf(maker: string): Promise<OrderView[]> {
    const { rows } = await this.db.query<OrderRow>("SELECT * FROM rm_orders WHERE maker = $1 AND status IN ('ACTIVE', 'INACTIVE') ORDER BY seq", [maker]);
    return rows.map(orderOf);
  }

  /** A market's open orders, oldest first. */
  async openOrdersIn(marketHash: string): Promise<OrderView[]> {
    const { rows } = await this.db.query<OrderRow>("SELECT * FROM rm_orders WHERE market_hash = $1 AND status IN ('ACTIVE', 'INACTIVE') ORDER BY seq", [marketHash]);
    return rows.map(orderOf);
  }

  async order(orderHash: string): Promise<OrderView | undefined> {
    const { rows } = await this.db.query<OrderRow>('SELECT * FROM rm_orders WHERE order_hash = $1', [orderHash]);
    return rows[0] && orderOf(rows[0]);
  }

  /** Those of these order hashes that were ever posted (the writer asks before every post: asks at once share a query). */
  async postedOrders(orderHashes: readonly string[]): Promise<Set<string>> {
    const posted = await this.everPosted.find(orderHashes);
    return new Set(orderHashes.filter(posted));
  }

  private readonly everPosted = new CoalescedLookup<string>(async (orderHashes) => {
    // Not a named (prepared) statement: with one, orders/s on PostgreSQL fell from 0.70x SQLite's to 0.40x
    // (bench/throughput.ts), likely the generic plan the server turns to after five runs, blind to the array's size.
    const { rows } = await this.db.query<{ order_hash: string }>('SELECT order_hash FROM rm_orders WHERE order_hash = ANY($1::text[])', [orderHashes]);
    const posted = new Set(rows.map((r) => r.order_hash));
    return (orderHash) => posted.has(orderHash);
  });
}
