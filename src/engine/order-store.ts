// The orders the engine holds (open ones, and closed ones with fills still pending), their books and the open
// orders per maker. Invariants: an order is on its book and in its maker's index exactly while it is open; each
// book side keeps price-time order (book.ts); `seq` numbers orders in posting order.
import { MarketBook, type BookSide } from './book.js';
import { NO_PENDING_FILLS, packOrders, unpackOrders, type PackedOrders } from './order-pack.js';
import { isOpen } from './order-space.js';
import { viewOf } from './order-views.js';
import type { OrderData } from './snapshot.js';
import { LiveOrder } from './records.js';
import type { MarketRef, NewOrder, Order } from './types.js';

export interface OrderStoreState {
  orders: PackedOrders | OrderData[];
  seq: number;
}

export class OrderStore {
  private readonly orders = new Map<string, Order>();
  private readonly books = new Map<string, MarketBook>();
  /** Open orders per maker, in posting order and per event: what cancel-all and cancel-event touch. */
  private readonly openByMaker = new Map<string, MakerOpenOrders>();
  /** The last order's posting number. */
  private seq = 0;

  get(orderHash: string): Order | undefined {
    return this.orders.get(orderHash);
  }

  has(orderHash: string): boolean {
    return this.orders.has(orderHash);
  }

  get size(): number {
    return this.orders.size;
  }

  get bookCount(): number {
    return this.books.size;
  }

  /**
   * Posts a checked order: the next posting number, ACTIVE, held, indexed and on its book. Strings many orders repeat
   * are taken from where the engine already holds them (the market, the maker's entry of the open-order index, the
   * base token), not kept as a fresh copy per parsed order.
   */
  post(n: NewOrder, market: MarketRef, at: number, baseToken: string): Order {
    const known = this.openByMaker.get(n.maker);
    const order = new LiveOrder(
      n.orderHash,
      market.marketHash,
      market.exchangeEventId,
      known?.maker ?? n.maker,
      n.baseToken === baseToken ? baseToken : n.baseToken,
      known?.executor === n.executor ? known.executor : n.executor,
      n.totalBetSize,
      n.percentageOdds,
      0n,
      0n,
      n.expiry,
      n.apiExpiry,
      n.salt,
      n.isMakerBettingOutcomeOne,
      n.signature,
      n.persistence ?? 'LAPSE',
      'ACTIVE',
      ++this.seq,
      at,
      at,
      NO_PENDING_FILLS,
    );
    this.add(order);
    return order;
  }

  private add(o: Order): void {
    this.orders.set(o.orderHash, o);
    this.indexOpen(o);
    this.bookOf(o.marketHash).side(o.isMakerBettingOutcomeOne).insert(o);
  }

  /** An order that just closed leaves its book and its maker's index (it stays held while fills are pending). */
  closed(o: Order): void {
    this.bookOf(o.marketHash).side(o.isMakerBettingOutcomeOne).remove(o);
    this.openByMaker.get(o.maker)?.remove(o);
  }

  /** A closed order with no fill pending leaves memory. */
  evict(o: Order): void {
    this.orders.delete(o.orderHash);
  }

  /** A book side, or undefined when the market has no book (reads must not create one). */
  sideOf(marketHash: string, isMakerBettingOutcomeOne: boolean): BookSide | undefined {
    return this.books.get(marketHash)?.side(isMakerBettingOutcomeOne);
  }

  book(marketHash: string): MarketBook | undefined {
    return this.books.get(marketHash);
  }

  dropBook(marketHash: string): void {
    this.books.delete(marketHash);
  }

  bookedMarkets(): string[] {
    return [...this.books.keys()];
  }

  openOrderCount(): number {
    let open = 0;
    for (const book of this.books.values()) open += book.outcomeOne.size + book.outcomeTwo.size;
    return open;
  }

  /** The maker's index entry: its open orders and the strings new orders share with it. */
  maker(maker: string): MakerOpenOrders | undefined {
    return this.openByMaker.get(maker);
  }

  /** A maker's open orders in posting order (a copy: closing them changes the index). */
  openOf(maker: string): Order[] {
    return [...(this.openByMaker.get(maker)?.all.values() ?? [])];
  }

  private bookOf(marketHash: string): MarketBook {
    let book = this.books.get(marketHash);
    if (!book) this.books.set(marketHash, (book = new MarketBook()));
    return book;
  }

  private indexOpen(o: Order): void {
    let byMaker = this.openByMaker.get(o.maker);
    if (!byMaker) this.openByMaker.set(o.maker, (byMaker = new MakerOpenOrders(o.maker)));
    byMaker.add(o);
  }

  /** Derived indexes (books, open orders per maker) are not written: restore rebuilds them. */
  snapshot(): OrderStoreState {
    return { orders: packOrders(this.orders.values()), seq: this.seq };
  }

  static from(state: OrderStoreState): OrderStore {
    const store = new OrderStore();
    const orders = Array.isArray(state.orders)
      ? state.orders.map((data): Order => {
          const o = viewOf({ ...data, persistence: data.persistence ?? 'LAPSE' }) as Order;
          o.pendingFills = data.pendingFills.length > 0 ? new Map(data.pendingFills) : NO_PENDING_FILLS;
          return o;
        })
      : unpackOrders(state.orders);
    for (const o of orders) store.orders.set(o.orderHash, o);
    // Posting order rebuilds the open-order indexes' order; each book side is sorted once.
    const sides = new Map<string, Order[]>();
    for (const o of [...store.orders.values()].sort((a, b) => a.seq - b.seq)) {
      if (!isOpen(o)) continue;
      const key = `${o.marketHash}:${o.isMakerBettingOutcomeOne}`;
      const side = sides.get(key);
      if (side) side.push(o);
      else sides.set(key, [o]);
      store.indexOpen(o);
    }
    for (const orders of sides.values()) store.bookOf(orders[0]!.marketHash).side(orders[0]!.isMakerBettingOutcomeOne).load(orders);
    store.seq = state.seq;
    return store;
  }
}

/**
 * One maker's open orders, in posting order and per event. The entry stays while its maker has none open (one per
 * maker, as the maker's wallet entry), so a maker quoting one order at a time allocates nothing per order here;
 * an event's map goes once the event has no open order left.
 */
export class MakerOpenOrders {
  readonly all = new Map<string, Order>();
  readonly byEvent = new Map<string, Map<string, Order>>();
  /** The executor of the maker's latest order: the string a new order with the same executor shares. */
  executor: string | undefined;

  /** `maker`: the string every later order of this maker shares. */
  constructor(readonly maker: string) {}

  add(o: Order): void {
    this.executor = o.executor;
    this.all.set(o.orderHash, o);
    let inEvent = this.byEvent.get(o.exchangeEventId);
    if (!inEvent) this.byEvent.set(o.exchangeEventId, (inEvent = new Map()));
    inEvent.set(o.orderHash, o);
  }

  remove(o: Order): void {
    this.all.delete(o.orderHash);
    const inEvent = this.byEvent.get(o.exchangeEventId);
    if (inEvent?.delete(o.orderHash) && inEvent.size === 0) this.byEvent.delete(o.exchangeEventId);
  }
}
