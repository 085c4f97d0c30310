// The read side's orders (rm_orders, projected by read-models.ts): one by hash, the open ones of a maker or a market,
// and which of some hashes were ever posted. Open orders are read through partial indexes of the open rows only, so
// their cost follows the open orders, not every order ever posted.
import type { Statement } from 'better-sqlite3';
import type { Db } from './db.js';
import type { OrderQueries } from '../ports.js';
import type { OrderView } from '../../engine/types.js';
import { orderOf, type OrderRow } from '../order-row.js';

export class OrderReads implements OrderQueries {
  private readonly s: Record<string, Statement>;

  constructor(db: Db) {
    const p = (sql: string) => db.prepare(sql);
    this.s = {
      order: p('SELECT * FROM rm_orders WHERE order_hash = ?'),
      openOrdersOf: p("SELECT * FROM rm_orders WHERE maker = ? AND status IN ('ACTIVE', 'INACTIVE') ORDER BY seq"),
      openOrdersIn: p("SELECT * FROM rm_orders WHERE market_hash = ? AND status IN ('ACTIVE', 'INACTIVE') ORDER BY seq"),
    };
  }

  /** A maker's open orders (on the books: ACTIVE or INACTIVE), oldest first. */
  openOrdersOf(maker: string): OrderView[] {
    return (this.s.openOrdersOf!.all(maker) as OrderRow[]).map(orderOf);
  }
  /** A market's open orders, oldest first. */
  openOrdersIn(marketHash: string): OrderView[] {
    return (this.s.openOrdersIn!.all(marketHash) as OrderRow[]).map(orderOf);
  }
  order(orderHash: string): OrderView | undefined {
    const row = this.s.order!.get(orderHash) as OrderRow | undefined;
    return row && orderOf(row);
  }
  /** Those of these order hashes that were ever posted. */
  postedOrders(orderHashes: readonly string[]): Set<string> {
    const found = new Set<string>();
    for (const h of orderHashes) if (this.s.order!.get(h) !== undefined) found.add(h);
    return found;
  }
}
