// A market's order book kept in the page by the typed client's LocalOrderBook (REST snapshot plus the
// order_book channel, recovered after a drop or rebuilt when history no longer covers the gap), as React state.
import { useEffect, useState } from 'react';
import { LocalOrderBook, type OddexRealtime } from '@oddex/sdk';
import { exchange } from '../api/exchange';
import type { Order } from '../api/types';
import { errorText } from '../components/status';

export type FeedState = 'loading' | 'live' | 'reconnecting';

export interface BookView {
  /** Orders a bettor can take now (ACTIVE), by hash. */
  orders: Map<string, Order>;
  state: FeedState;
  /** How many times continuity was lost and the book was read again. */
  rebuilds: number;
  error?: string;
}

export function useLocalBook(realtime: OddexRealtime, marketHash: string): BookView {
  const [view, setView] = useState<BookView>({ orders: new Map(), state: 'loading', rebuilds: 0 });

  useEffect(() => {
    const book = new LocalOrderBook(marketHash, realtime, exchange.ordersOfMarket);
    let state: FeedState = 'loading';
    let rebuilds = 0;
    let stopped = false;
    const publish = (error?: string) => {
      if (stopped) return;
      const open = book.orders().filter((o) => o.orderStatus === 'ACTIVE');
      setView({ orders: new Map(open.map((o) => [o.orderHash, o])), state, rebuilds, error });
    };
    book.on('update', () => publish());
    book.on('rebuilt', () => {
      rebuilds += 1;
      // A book whose first snapshot failed is known once one is read again (the client retries it).
      if (state === 'loading') state = 'live';
      publish();
    });
    book.on('error', (err) => publish(errorText(err).message));
    book.start().then(
      () => {
        state = 'live';
        publish();
      },
      (err: unknown) => publish(errorText(err).message),
    );
    // The subscription's own state says when the feed is interrupted and when it is back.
    const sub = realtime.centrifuge.getSubscription(book.channel);
    sub?.on('subscribing', () => {
      state = 'reconnecting';
      publish();
    });
    sub?.on('subscribed', () => {
      if (state !== 'reconnecting') return;
      state = 'live';
      publish();
    });
    return () => {
      stopped = true;
      book.stop();
    };
  }, [realtime, marketHash]);

  return view;
}
