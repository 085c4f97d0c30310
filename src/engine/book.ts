// One market's resting orders per side, best for the taker first: lowest maker odds, then oldest.
import type { Order } from './types.js';

const before = (a: Order, b: Order) =>
  a.percentageOdds < b.percentageOdds || (a.percentageOdds === b.percentageOdds && a.seq < b.seq);

export class BookSide {
  private readonly orders: Order[] = [];

  private indexFor(order: Order): number {
    let lo = 0;
    let hi = this.orders.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (before(this.orders[mid]!, order)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Replaces the side's orders at once (restoring a snapshot): one sort instead of an insert per order. */
  load(orders: readonly Order[]): void {
    this.orders.length = 0;
    this.orders.push(...orders);
    this.orders.sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));
  }

  insert(order: Order): void {
    this.orders.splice(this.indexFor(order), 0, order);
  }

  remove(order: Order): void {
    const i = this.indexFor(order);
    if (this.orders[i] === order) this.orders.splice(i, 1);
  }

  /** Best first. The caller must not mutate the book while iterating. */
  [Symbol.iterator](): Iterator<Order> {
    return this.orders[Symbol.iterator]();
  }

  /** Highest maker odds first, without copying. */
  *worstFirst(): Generator<Order> {
    for (let i = this.orders.length - 1; i >= 0; i--) yield this.orders[i]!;
  }

  get size(): number {
    return this.orders.length;
  }

  snapshot(): readonly Order[] {
    return this.orders.slice();
  }
}

export class MarketBook {
  /** Makers betting outcome one (takers of outcome two match these). */
  readonly outcomeOne = new BookSide();
  readonly outcomeTwo = new BookSide();

  side(isMakerBettingOutcomeOne: boolean): BookSide {
    return isMakerBettingOutcomeOne ? this.outcomeOne : this.outcomeTwo;
  }

  allOrders(): Order[] {
    return [...this.outcomeOne, ...this.outcomeTwo];
  }
}
