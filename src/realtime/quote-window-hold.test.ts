// A parlay's quote window holds its book's publications by the orders' journal time: an order journaled before the
// close whose publication comes after it is in the one release, which waits for publication to cover the journal;
// an order journaled after the close is published after the release, never in it or before it.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { OrderItem } from '../events.js';
import { QuoteWindowHold, type PublicationProgress } from './quote-window-hold.js';

const PARLAY = '0x' + 'aa'.repeat(32);
const SINGLE = '0x' + 'bb'.repeat(32);
const ENDS_AT = 1_000;
const order = (orderHash: string) => ({ orderHash }) as OrderItem;

/** Publication lags the journal until the test says it caught up: each wait resolves on the next `catchUp()`. */
class LaggingProgress implements PublicationProgress {
  waits = 0;
  private pending: (() => void)[] = [];
  publishedJournaled(): Promise<void> {
    this.waits++;
    return new Promise((resolve) => this.pending.push(resolve));
  }
  catchUp(): void {
    for (const resolve of this.pending.splice(0)) resolve();
  }
}

function holdOf(progress: PublicationProgress) {
  const released: string[][] = [];
  const hold = new QuoteWindowHold(
    { quoteWindowEndsAt: (m) => (m === PARLAY ? ENDS_AT : undefined) },
    progress,
    () => Date.now(),
    (marketHash, exchangeEventId, orders) => {
      expect([marketHash, exchangeEventId]).toEqual([PARLAY, 'ev1']);
      released.push(orders.map((o) => o.orderHash));
    },
  );
  /** What the book channels publish now, as the feeds do when the hold does not take it. */
  const published: string[][] = [];
  const emit = (marketHash: string, orders: OrderItem[], journaledAt: number[]) => {
    if (!hold.hold(marketHash, 'ev1', orders, journaledAt)) published.push(orders.map((o) => o.orderHash));
  };
  return { hold, released, published, emit };
}

describe('QuoteWindowHold', () => {
  beforeEach(() => vi.useFakeTimers({ now: 0 }));
  afterEach(() => vi.useRealTimers());

  it('releases every order journaled before the close at once, even one published after it; later ones follow', async () => {
    const progress = new LaggingProgress();
    const { released, published, emit } = holdOf(progress);
    await vi.advanceTimersByTimeAsync(100);
    emit(PARLAY, [order('0xa')], [100]);
    await vi.advanceTimersByTimeAsync(900);
    // The window closed (t = 1000); the release waits for publication to cover the journal.
    expect(released).toEqual([]);
    expect(progress.waits).toBe(1);
    // Journaled at 990 (posted and acknowledged before the close), its publication comes only now, at 1005.
    await vi.advanceTimersByTimeAsync(5);
    emit(PARLAY, [order('0xb')], [990]);
    // Journaled after the close and published before the release: it waits behind it.
    emit(PARLAY, [order('0xc')], [1_002]);
    await vi.advanceTimersByTimeAsync(10_000);
    expect([released, published]).toEqual([[], []]);

    progress.catchUp();
    await vi.advanceTimersByTimeAsync(0);
    expect(released).toEqual([['0xa', '0xb'], ['0xc']]);
    expect(published).toEqual([]);
    // After the release, orders journaled after the close are published as usual, by the caller.
    emit(PARLAY, [order('0xd')], [1_500]);
    expect(published).toEqual([['0xd']]);
    expect(released).toEqual([['0xa', '0xb'], ['0xc']]);
  });

  it('splits one publication across the close: the earlier orders join the release, the later follow it', async () => {
    const progress = new LaggingProgress();
    const { released, published, emit } = holdOf(progress);
    await vi.advanceTimersByTimeAsync(1_010);
    emit(PARLAY, [order('0xa'), order('0xb'), order('0xc')], [995, 1_003, 999]);
    await vi.advanceTimersByTimeAsync(0);
    expect(released).toEqual([]);
    progress.catchUp();
    await vi.advanceTimersByTimeAsync(0);
    expect(released).toEqual([['0xa', '0xc'], ['0xb']]);
    expect(published).toEqual([]);
  });

  it('publishes other markets, and orders of a window with nothing held, at once', async () => {
    const { released, published, emit } = holdOf(new LaggingProgress());
    emit(SINGLE, [order('0xa')], [10]);
    await vi.advanceTimersByTimeAsync(1_100);
    emit(PARLAY, [order('0xb')], [1_050]);
    expect(published).toEqual([['0xa'], ['0xb']]);
    expect(released).toEqual([]);
  });

  it('publishes nothing held once cleared (shutdown), even when publication catches up afterwards', async () => {
    const progress = new LaggingProgress();
    const { hold, released, published, emit } = holdOf(progress);
    emit(PARLAY, [order('0xa')], [0]);
    await vi.advanceTimersByTimeAsync(1_000);
    hold.clear();
    progress.catchUp();
    await vi.advanceTimersByTimeAsync(1_000);
    expect([released, published]).toEqual([[], []]);
  });
});
