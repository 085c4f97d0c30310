// The local order book when the connection is lost again while a snapshot loads: the later snapshot wins whatever
// order the two loads end in, and no publication that came meanwhile is lost.
import type { SubscribedContext } from 'centrifuge';
import { describe, expect, it, vi } from 'vitest';
import { LocalOrderBook } from './order-book.js';
import { parseOrder } from './parse.js';
import type { ChannelHandlers, OddexRealtime } from './realtime.js';
import type { Order } from './types.js';

const MARKET = '0x' + '1'.repeat(64);

/** An order as GET /orders and the order_book channel carry it. */
function wireOrder(n: number, fillAmount: number, updatedAt: number) {
  return {
    orderHash: '0x' + n.toString(16).padStart(64, '0'),
    marketHash: MARKET,
    maker: '0x' + 'a'.repeat(40),
    totalBetSize: '100',
    percentageOdds: '50000000000000000000',
    fillAmount: String(fillAmount),
    pendingFillAmount: '0',
    isMakerBettingOutcomeOne: true,
    orderStatus: 'ACTIVE',
    createdAt: new Date(1_000 + n).toISOString(),
    updatedAt: new Date(updatedAt).toISOString(),
  };
}

function deferred<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('LocalOrderBook', () => {
  it('keeps the newest snapshot and every publication when a second (re)subscribe comes while a snapshot loads', async () => {
    let handlers!: ChannelHandlers;
    const realtime = { subscribe: (_: string, h: ChannelHandlers) => (handlers = h), unsubscribe: () => {} } as unknown as OddexRealtime;
    const loads: { resolve: (orders: Order[]) => void }[] = [];
    const book = new LocalOrderBook(MARKET, realtime, () => {
      const load = deferred<Order[]>();
      loads.push(load);
      return load.promise;
    });
    const errors: unknown[] = [];
    book.on('error', (err) => errors.push(err));
    const started = book.start();
    const subscribed = (ctx: Partial<SubscribedContext>) => handlers.onSubscribed!(ctx as SubscribedContext);
    const publish = (data: unknown) => handlers.onPublication!(data, {} as never);

    subscribed({ wasRecovering: false, recovered: false });
    publish([wireOrder(1, 10, 2_000)]);
    // The connection drops and comes back before the first snapshot is in: a second load starts.
    subscribed({ wasRecovering: true, recovered: false });
    publish([wireOrder(2, 0, 3_000)]);
    expect(loads).toHaveLength(2);

    // The later load ends first, then the earlier one, whose snapshot is older.
    loads[1]!.resolve([parseOrder(wireOrder(1, 10, 2_000))]);
    await new Promise((r) => setTimeout(r, 0));
    loads[0]!.resolve([]);
    await started;
    await new Promise((r) => setTimeout(r, 0));
    publish([wireOrder(1, 30, 4_000)]);

    expect(errors).toEqual([]);
    expect(book.orders().map((o) => [o.orderHash, o.fillAmount])).toEqual([
      [wireOrder(1, 0, 0).orderHash, 30n],
      [wireOrder(2, 0, 0).orderHash, 0n],
    ]);
  });

  it('reads a failed snapshot again, keeping the publications meanwhile out of the book until it is in', async () => {
    vi.useFakeTimers();
    try {
      let handlers!: ChannelHandlers;
      const realtime = { subscribe: (_: string, h: ChannelHandlers) => (handlers = h), unsubscribe: () => {} } as unknown as OddexRealtime;
      let attempts = 0;
      const book = new LocalOrderBook(MARKET, realtime, async () => {
        attempts += 1;
        if (attempts === 1) throw new Error('snapshot refused');
        return [parseOrder(wireOrder(1, 0, 2_000))];
      });
      const errors: unknown[] = [];
      const rebuilt: string[] = [];
      book.on('error', (err) => errors.push(err));
      book.on('rebuilt', ({ reason }) => rebuilt.push(reason));
      const started = book.start().catch((err: unknown) => err);
      handlers.onSubscribed!({ wasRecovering: false, recovered: false } as SubscribedContext);
      expect(await started).toEqual(new Error('snapshot refused'));
      // An order posted while the book is unknown: an empty book with it alone would pass for the whole book.
      handlers.onPublication!([wireOrder(2, 0, 3_000)], {} as never);
      expect(book.orders()).toEqual([]);

      await vi.advanceTimersByTimeAsync(1_000);
      expect(attempts).toBe(2);
      expect(errors).toHaveLength(1);
      expect(rebuilt).toEqual(['the snapshot could not be read']);
      expect(book.orders().map((o) => o.orderHash)).toEqual([wireOrder(1, 0, 0).orderHash, wireOrder(2, 0, 0).orderHash]);

      // Stopped, a book reads nothing more.
      book.stop();
      await vi.advanceTimersByTimeAsync(20_000);
      expect(attempts).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });
});
