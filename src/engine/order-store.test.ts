// The order store alone: posting indexes and books an order, closing unbooks it, and a state round trip rebuilds
// the books and indexes in posting order.
import { describe, expect, it } from 'vitest';
import { E18, MARKET, newOrder, TOKEN } from '../../test/helpers/engine-parts.js';
import { OrderStore } from './order-store.js';

describe('OrderStore', () => {
  it('posts orders in sequence, shares the maker’s strings, and unbooks a closed order', () => {
    const store = new OrderStore();
    const a = store.post(newOrder({ maker: '0xa1' }), MARKET, 1000, TOKEN);
    const b = store.post(newOrder({ maker: ['0x', 'a1'].join(''), isMakerBettingOutcomeOne: false }), MARKET, 1001, TOKEN);
    expect([a.seq, b.seq]).toEqual([1, 2]);
    expect(b.maker).toBe(a.maker);
    expect(store.openOf('0xa1')).toEqual([a, b]);
    expect(store.maker('0xa1')!.byEvent.get(MARKET.exchangeEventId)!.size).toBe(2);
    expect(store.openOrderCount()).toBe(2);
    a.status = 'CANCELLED';
    store.closed(a);
    expect(store.openOf('0xa1')).toEqual([b]);
    expect(store.sideOf(MARKET.marketHash, true)!.size).toBe(0);
    expect(store.get(a.orderHash)).toBe(a);
    store.evict(a);
    expect(store.has(a.orderHash)).toBe(false);
  });

  it('from rebuilds books and indexes in posting order, from packed and from plain orders', () => {
    const store = new OrderStore();
    const posted = [45n, 40n, 40n].map((odds, i) => store.post(newOrder({ percentageOdds: odds * E18 }), MARKET, 1000 + i, TOKEN));
    const state = store.snapshot();
    const copy = OrderStore.from(state);
    expect(copy.snapshot()).toEqual(state);
    const side = copy.sideOf(MARKET.marketHash, true)!;
    expect([0, 1].map((i) => side.ordersAt(i).map((o) => o.orderHash))).toEqual([[posted[1]!.orderHash, posted[2]!.orderHash], [posted[0]!.orderHash]]);
    const plain = OrderStore.from({ orders: posted.map((o) => ({ ...o, pendingFills: [] })), seq: 3 });
    expect(plain.openOf('0xa1').map((o) => o.orderHash)).toEqual(posted.map((o) => o.orderHash));
    expect(plain.snapshot()).toEqual(state);
  });
});
