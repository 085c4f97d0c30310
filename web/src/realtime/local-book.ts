// A market's order book kept in the page: a REST snapshot (GET /orders) plus the order_book channel's
// publications. Whenever the subscription could not recover the publications it missed, the snapshot is read again.
import { useEffect, useState } from 'react';
import type { Centrifuge } from 'centrifuge';
import { exchange } from '../api/exchange';
import type { Order, OrderUpdate } from '../api/types';
import { follow } from './connection';

export type FeedState = 'loading' | 'live' | 'reconnecting';

export interface LocalBook {
  /** Open orders (ACTIVE) by hash. */
  orders: Map<string, Order>;
  state: FeedState;
  /** How many times the book was rebuilt from a snapshot after the first one. */
  rebuilds: number;
  error?: string;
}

const isOpen = (o: Pick<Order, 'orderStatus'>) => o.orderStatus === 'ACTIVE';
const updatedMs = (o: Order) => Date.parse(o.updatedAt);

/** Applies one change unless the book already holds a newer version of that order. */
function apply(orders: Map<string, Order>, change: OrderUpdate): void {
  const known = orders.get(change.orderHash);
  if (known && updatedMs(known) > change.updateTime) return;
  if (isOpen(change)) orders.set(change.orderHash, change);
  else orders.delete(change.orderHash);
}

export function useLocalBook(client: Centrifuge | undefined, marketHash: string): LocalBook {
  const [book, setBook] = useState<LocalBook>({ orders: new Map(), state: 'loading', rebuilds: 0 });

  useEffect(() => {
    if (!client) return;
    let orders = new Map<string, Order>();
    let buffered: OrderUpdate[] | undefined; // publications that arrive while a snapshot is read
    let snapshots = 0;
    let stopped = false;
    const publish = (state: FeedState, error?: string) => {
      if (!stopped) setBook({ orders: new Map(orders), state, rebuilds: Math.max(0, snapshots - 1), error });
    };

    const readSnapshot = async () => {
      buffered = [];
      try {
        const snapshot = await exchange.ordersOfMarket(marketHash);
        orders = new Map(snapshot.filter(isOpen).map((o) => [o.orderHash, o]));
        for (const change of buffered) apply(orders, change);
        snapshots += 1;
        publish('live');
      } catch (err) {
        publish('live', (err as Error).message);
      } finally {
        buffered = undefined;
      }
    };

    const leave = follow<OrderUpdate[]>(client, `order_book:market_${marketHash.toLowerCase()}`, {
      onPublication(changes) {
        if (buffered) {
          buffered.push(...changes);
          return;
        }
        for (const change of changes) apply(orders, change);
        publish('live');
      },
      onSubscribed(ctx) {
        if (ctx.recovered && snapshots > 0) publish('live');
        else void readSnapshot();
      },
      onInterrupted() {
        publish('reconnecting');
      },
    });
    return () => {
      stopped = true;
      leave();
    };
  }, [client, marketHash]);

  return book;
}
