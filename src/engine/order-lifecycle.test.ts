// Order lifecycle alone: a fill's reservation and its release keep status, book and exposure in step; cancels say
// why not; a shortfall cancels the newest orders first.
import { describe, expect, it } from 'vitest';
import { Commitments } from './commitments.js';
import { Liveness } from './liveness.js';
import { OrderLifecycle } from './order-lifecycle.js';
import { E18, MARKET, newOrder, openLog, TOKEN } from '../../test/helpers/engine-parts.js';
import { OrderStore } from './order-store.js';
import { ReplayGuards } from './replay-guards.js';
import { defaultEngineParams } from '../../test/helpers/engine-params.js';
import { LocalLedger } from './wallets/local-ledger.js';

function setup() {
  const wallets = new LocalLedger();
  wallets.mint('0xa1', 1000n);
  const store = new OrderStore();
  const commitments = new Commitments(wallets, defaultEngineParams(TOKEN));
  const guards = new ReplayGuards({ cancelMaxSkewSeconds: 60 });
  const lifecycle = new OrderLifecycle(store, commitments, guards, new Liveness(store), openLog());
  const post = (size = 100n) => {
    const o = store.post(newOrder({ totalBetSize: size, percentageOdds: 40n * E18 }), MARKET, 1000, TOKEN);
    commitments.addExposure(o.maker, o.totalBetSize);
    return o;
  };
  return { wallets, store, commitments, guards, lifecycle, post };
}

describe('OrderLifecycle', () => {
  it('a reservation of all the space makes the order INACTIVE; its execution FILLED, evicted and guarded', () => {
    const { store, commitments, guards, lifecycle, post } = setup();
    const o = post();
    lifecycle.reserve(o, '0xf1', 100n, 2000);
    expect(o.status).toBe('INACTIVE');
    expect(commitments.exposureOf('0xa1')).toBe(100n);
    lifecycle.release(o, '0xf1', 100n, true, 3000);
    expect(o.status).toBe('FILLED');
    expect(commitments.exposureOf('0xa1')).toBe(0n);
    expect(store.has(o.orderHash)).toBe(false);
    expect(guards.isClosedOrder(o.orderHash)).toBe(true);
  });

  it('a failed fill frees its space: the order is ACTIVE again with its exposure unchanged', () => {
    const { commitments, lifecycle, post } = setup();
    const o = post();
    lifecycle.reserve(o, '0xf1', 60n, 2000);
    lifecycle.release(o, '0xf1', 60n, false, 3000);
    expect(o).toMatchObject({ status: 'ACTIVE', fillAmount: 0n, pendingFillAmount: 0n });
    expect(commitments.exposureOf('0xa1')).toBe(100n);
  });

  it('a cancel closes what it may and says why not for the rest; a cancelled order keeps its pending fill', () => {
    const { store, commitments, lifecycle, post } = setup();
    const [a, b, c] = [post(), post(), post()];
    lifecycle.reserve(b, '0xf1', 100n, 2000);
    lifecycle.reserve(c, '0xf2', 50n, 2000);
    const result = lifecycle.cancel('0xa1', [a.orderHash, a.orderHash, b.orderHash, c.orderHash, '0xnone'], 3000);
    expect(result.cancelledCount).toBe(2);
    expect(result.notCancelled).toEqual([
      { orderHash: b.orderHash, reason: 'order_locked' },
      { orderHash: '0xnone', reason: 'not_found_or_inactive' },
    ]);
    expect(result.orders[1]).toEqual({ orderHash: c.orderHash, pendingFills: [{ fillHash: '0xf2', pendingFillAmount: '50' }] });
    expect(store.has(c.orderHash)).toBe(true);
    expect(commitments.exposureOf('0xa1')).toBe(150n);
    expect(lifecycle.cancel('0xa1', [c.orderHash], 3000).notCancelled[0]!.reason).toBe('already_pending_cancel');
  });

  it('a shortfall cancels the newest open orders until the balance covers the rest', () => {
    const { wallets, commitments, lifecycle, post, store } = setup();
    const orders = [post(400n), post(400n), post(200n)];
    wallets.transfer('0xa1', '0xb1', 300n);
    lifecycle.enforceExposure('0xa1', 4000);
    expect(orders.map((o) => o.status)).toEqual(['ACTIVE', 'CANCELLED', 'CANCELLED']);
    expect(commitments.freeBalance('0xa1')).toBe(300n);
    expect(commitments.restrictionOf('0xa1')!.shortfalls).toEqual([4000]);
    expect(store.openOf('0xa1')).toEqual([orders[0]]);
  });
});
