// One market's resting orders per side, best for the taker first: lowest maker odds, then oldest.
// Orders rest in price levels (one per maker odds, ascending); a level keeps its orders in posting (seq) order.
// Finding a level is a binary search over the levels, which the odds ladder keeps few; a new order joins the end
// of its level, and removing one is a binary search by seq within its level.
import type { Order } from './types.js';

interface PriceLevel {
  readonly odds: bigint;
  /** Ascending seq: time priority. */
  readonly orders: Order[];
}

const before = (a: Order, b: Order) =>
  a.percentageOdds < b.percentageOdds || (a.percentageOdds === b.percentageOdds && a.seq < b.seq);

export class BookSide {
  /** Ascending odds; never holds an empty level. */
  private readonly levels: PriceLevel[] = [];
  private count = 0;

  /** Index of the first level whose odds are not below `odds`. */
  private levelIndex(odds: bigint): number {
    const levels = this.levels;
    let lo = 0;
    let hi = levels.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (levels[mid]!.odds < odds) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Replaces the side's orders at once (restoring a snapshot): one sort instead of an insert per order. */
  load(orders: readonly Order[]): void {
    this.levels.length = 0;
    this.count = orders.length;
    const sorted = [...orders].sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));
    for (const o of sorted) {
      const last = this.levels[this.levels.length - 1];
      if (last && last.odds === o.percentageOdds) last.orders.push(o);
      else this.levels.push({ odds: o.percentageOdds, orders: [o] });
    }
  }

  insert(order: Order): void {
    const i = this.levelIndex(order.percentageOdds);
    const level = this.levels[i];
    this.count++;
    if (!level || level.odds !== order.percentageOdds) {
      this.levels.splice(i, 0, { odds: order.percentageOdds, orders: [order] });
      return;
    }
    const orders = level.orders;
    // Orders arrive in seq order, so this is a push; the search keeps the level sorted whatever the caller does.
    if (orders.length === 0 || orders[orders.length - 1]!.seq < order.seq) orders.push(order);
    else orders.splice(seqIndex(orders, order.seq), 0, order);
  }

  remove(order: Order): void {
    const i = this.levelIndex(order.percentageOdds);
    const level = this.levels[i];
    if (!level || level.odds !== order.percentageOdds) return;
    const orders = level.orders;
    const j = orders[0] === order ? 0 : seqIndex(orders, order.seq);
    if (orders[j] !== order) return;
    if (j === 0) orders.shift();
    else orders.splice(j, 1);
    this.count--;
    if (orders.length === 0) this.levels.splice(i, 1);
  }

  /** Number of price levels (none is empty): with ordersAt, a walk of the book without an iterator object. */
  get levelCount(): number {
    return this.levels.length;
  }

  /** The orders of level `i` (0: the lowest odds), oldest first. Read only; invalid once the book changes. */
  ordersAt(i: number): readonly Order[] {
    return this.levels[i]!.orders;
  }

  /** Best first. The caller must not mutate the book while iterating. */
  *[Symbol.iterator](): Generator<Order> {
    for (const level of this.levels) yield* level.orders;
  }

  /** Highest maker odds first (the newest first within a level), without copying. */
  *worstFirst(): Generator<Order> {
    for (let i = this.levels.length - 1; i >= 0; i--) {
      const orders = this.levels[i]!.orders;
      for (let j = orders.length - 1; j >= 0; j--) yield orders[j]!;
    }
  }

  get size(): number {
    return this.count;
  }

  /** The price levels, lowest odds first, with their order counts (for tests). */
  levelSizes(): { odds: bigint; orders: number }[] {
    return this.levels.map((l) => ({ odds: l.odds, orders: l.orders.length }));
  }

  snapshot(): Order[] {
    const all: Order[] = [];
    for (const level of this.levels) for (const o of level.orders) all.push(o);
    return all;
  }
}

/** Index of the first order whose seq is not below `seq`. */
function seqIndex(orders: readonly Order[], seq: number): number {
  let lo = 0;
  let hi = orders.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (orders[mid]!.seq < seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class MarketBook {
  /** Makers betting outcome one (takers of outcome two match these). */
  readonly outcomeOne = new BookSide();
  readonly outcomeTwo = new BookSide();

  side(isMakerBettingOutcomeOne: boolean): BookSide {
    return isMakerBettingOutcomeOne ? this.outcomeOne : this.outcomeTwo;
  }

  allOrders(): Order[] {
    return [...this.outcomeOne.snapshot(), ...this.outcomeTwo.snapshot()];
  }
}
