// The read side's orders (rm_orders): one by hash, the open ones of a maker or a market (through partial indexes of
// the open rows only), and which of some hashes were ever posted.
import type { OrderQueries, AsyncQueries } from '../../ports.js';
import type { OrderView } from '../../../engine/types.js';
import { orderOf, type OrderRow } from '../../order-row.js';
import { CoalescedLookup } from '../coalesced-lookup.js';
import type { Queryable } from '../trade-state.js';

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
