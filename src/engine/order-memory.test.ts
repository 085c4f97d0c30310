// The engine's heap per open order must not creep back up. An order as clients send it carries about 340 bytes of
// strings of its own (a 66-character hash, a 77-digit salt, a 132-character signature); what it shares with other
// orders (market, maker, token, executor, amounts, an empty pending-fill map, its hash in the expiry queue) must stay
// shared. Before those were shared, an order cost about 1,100 bytes either way; now about 800.
import { describe, expect, it } from 'vitest';
import { heapPerOrder } from '../../test/helpers/memory-probe.js';

const ORDERS = 20_000;
const BOUND = 950;

describe('heap per open order', () => {
  it(`stays under ${BOUND} bytes for orders posted as parsed JSON`, () => {
    expect(heapPerOrder(ORDERS, 'posted')).toBeLessThan(BOUND);
  });

  it(`stays under ${BOUND} bytes for orders restored from a snapshot`, () => {
    expect(heapPerOrder(ORDERS, 'restored')).toBeLessThan(BOUND);
  });
});
