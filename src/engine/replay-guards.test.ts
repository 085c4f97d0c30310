// Replay guards alone: the fill window, closed orders until their expiry, cancel salts and the stale floor.
import { describe, expect, it } from 'vitest';
import { ReplayGuards } from './replay-guards.js';

const params = { recentFillWindow: 2, recentClosedOrderWindow: 2, cancelMaxSkewSeconds: 60 };
const closed = (orderHash: string, expiry: number) => ({ orderHash, expiry, apiExpiry: expiry });

describe('ReplayGuards', () => {
  it('remembers the most recent fills by salt and by hash, dropping the oldest past the window', () => {
    const g = new ReplayGuards(params);
    g.rememberFill('h1', 's1');
    g.rememberFill('h2', 's2');
    expect(g.isFillKnown('s1', 'x')).toBe(true);
    expect(g.isFillKnown('x', 'h2')).toBe(true);
    g.rememberFill('h3', 's3');
    expect(g.isFillKnown('s1', 'h1')).toBe(false);
    expect(g.fillCount).toBe(3);
    expect(g.recentFillCount).toBe(2);
  });

  it('refuses a closed order until its signed expiry, and at most the window of them', () => {
    const g = new ReplayGuards(params);
    g.orderClosed(closed('o1', 10));
    g.orderClosed(closed('o2', 20));
    g.forgetExpiredClosedOrders(10_000);
    expect(g.isClosedOrder('o1')).toBe(false);
    expect(g.isClosedOrder('o2')).toBe(true);
    g.orderClosed(closed('o3', 30));
    g.orderClosed(closed('o4', 30));
    expect(g.isClosedOrder('o2')).toBe(false);
    expect(g.closedOrderCount).toBe(2);
  });

  it('refuses a replayed or stale cancel, and keeps refusing what was forgotten', () => {
    const g = new ReplayGuards(params);
    g.checkCancel('0xa', 'salt', 100, 100_000);
    g.rememberCancel('0xa', 'salt', 100, 100_000);
    expect(() => g.checkCancel('0xa', 'salt', 100, 100_000)).toThrow(expect.objectContaining({ errorCode: 'CANCEL_REQUEST_ALREADY_PROCESSED' }));
    expect(() => g.checkCancel('0xa', 'other', 200, 100_000)).toThrow(expect.objectContaining({ errorCode: 'STALE_TIMESTAMP' }));
    // A check changes nothing; the next applied cancel past the skew forgets the salt, and its timestamp is refused
    // even with the clock set back.
    g.checkCancel('0xb', 'later', 200, 200_000);
    expect(g.snapshot().cancelSalts).toHaveLength(1);
    g.rememberCancel('0xb', 'later', 200, 200_000);
    expect(g.snapshot().cancelSalts).toHaveLength(1);
    expect(() => g.checkCancel('0xb', 'later', 200, 200_000)).toThrow(expect.objectContaining({ errorCode: 'CANCEL_REQUEST_ALREADY_PROCESSED' }));
    expect(() => g.checkCancel('0xa', 'salt', 100, 100_000)).toThrow(expect.objectContaining({ errorCode: 'STALE_TIMESTAMP' }));
  });

  it('snapshot and from give back the same state', () => {
    const g = new ReplayGuards(params);
    g.rememberFill('h1', 's1');
    g.orderClosed(closed('o1', 10));
    g.checkCancel('0xa', 'salt', 100, 100_000);
    g.rememberCancel('0xa', 'salt', 100, 100_000);
    const state = g.snapshot();
    const copy = ReplayGuards.from(params, state);
    expect(copy.snapshot()).toEqual(state);
    expect(copy.isFillKnown('s1', 'h1')).toBe(true);
    expect(copy.isClosedOrder('o1')).toBe(true);
  });
});
