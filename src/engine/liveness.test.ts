// Deadlines alone: heartbeats set, refreshed and cleared; order expiries; stale entries skipped; a state round trip.
import { describe, expect, it } from 'vitest';
import { ChangeLog } from './change-log.js';
import { heartbeatOf, Liveness } from './liveness.js';
import { OrderStore } from './order-store.js';
import type { NewOrder } from './types.js';

const M = { marketHash: '0xm', exchangeEventId: 'ev', tradeable: true };
const newOrder = (orderHash: string, expiry: number): NewOrder => ({
  orderHash,
  marketHash: M.marketHash,
  maker: '0xa',
  baseToken: '0xc',
  executor: '0xc',
  totalBetSize: 100n,
  percentageOdds: 40n * 10n ** 18n,
  expiry,
  apiExpiry: expiry,
  salt: orderHash,
  isMakerBettingOutcomeOne: true,
  signature: '0x',
});

function setup() {
  const orders = new OrderStore();
  const log = new ChangeLog();
  log.begin();
  return { orders, log, l: new Liveness(orders) };
}

describe('Liveness', () => {
  it('a refreshed heartbeat is due at its new deadline only, and a cleared one never', () => {
    const { l, log } = setup();
    l.heartbeat(log, '0xa', 10, 0);
    l.heartbeat(log, '0xa', 20, 0);
    l.heartbeat(log, '0xb', 5, 0);
    l.heartbeat(log, '0xb', 0, 1);
    expect(l.nextExpiryAt()).toBe(20_000);
    expect(l.nextDue(19_999)).toBeUndefined();
    const key = l.nextDue(20_000)!;
    expect(heartbeatOf(key)).toBe('0xa');
    expect(l.nextDue(1e9)).toBeUndefined();
  });

  it('an order is due at its expiry while open, not once closed', () => {
    const { l, orders } = setup();
    const a = orders.post(newOrder('o1', 10), M, 0, '0xc');
    const b = orders.post(newOrder('o2', 20), M, 0, '0xc');
    l.orderPosted(a);
    l.orderPosted(b);
    a.status = 'CANCELLED';
    orders.closed(a);
    expect(l.nextDue(30_000)).toBe('o2');
    expect(l.nextDue(30_000)).toBeUndefined();
  });

  it('snapshot holds only live entries, sorted, and from gives back the same state', () => {
    const { l, log, orders } = setup();
    const o = orders.post(newOrder('o1', 50), M, 0, '0xc');
    l.orderPosted(o);
    l.heartbeat(log, '0xa', 10, 0);
    l.heartbeat(log, '0xa', 10, 0);
    const state = l.snapshot();
    expect(state.expiries).toEqual([
      { at: 10_000, key: 'hb:0xa' },
      { at: 50_000, key: 'o1' },
    ]);
    const copy = Liveness.from(orders, state);
    expect(copy.snapshot()).toEqual(state);
    expect(copy.heartbeatCount).toBe(1);
  });
});
