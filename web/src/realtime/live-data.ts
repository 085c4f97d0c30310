// Account data kept live: read over REST, read again when a realtime channel says it changed.
import { useEffect, useRef } from 'react';
import type { OddexRealtime } from '@oddex/sdk';
import { exchange } from '../api/exchange';
import type { Order, Trade } from '../api/types';
import { useLoad, type Loaded } from '../components/status';
import { follow } from './connection';

/** Calls `onChange` (at most every 150 ms) while the channel publishes something `relevant`. */
export function useChannelRefresh<T>(client: OddexRealtime | undefined, channel: string | undefined, relevant: (data: T) => boolean, onChange: () => void): void {
  // The callbacks are read at publication time: changing them must not resubscribe (and lose the position).
  const latest = useRef({ relevant, onChange });
  useEffect(() => {
    latest.current = { relevant, onChange };
  });
  useEffect(() => {
    if (!client || !channel) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const leave = follow<T>(client, channel, {
      onPublication(data) {
        if (!latest.current.relevant(data) || timer) return;
        timer = setTimeout(() => {
          timer = undefined;
          latest.current.onChange();
        }, 150);
      },
      onSubscribed(ctx) {
        if (!ctx.recovered) latest.current.onChange();
      },
    });
    return () => {
      clearTimeout(timer);
      leave();
    };
  }, [client, channel]);
}

const sameAddress = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** The wallet's trades (GET /trades?bettor), refreshed by recent_trades:global publications about it. */
export function useMyTrades(client: OddexRealtime | undefined, address: string): Loaded<Trade[]> {
  const trades = useLoad(() => exchange.tradesOfBettor(address), address);
  useChannelRefresh<Trade | Trade[]>(client, 'recent_trades:global', (d) => [d].flat().some((t) => sameAddress(t.bettor, address)), trades.reload);
  return trades;
}

/** The wallet's open orders (GET /orders?maker), refreshed by its active_orders channel. */
export function useMyOrders(client: OddexRealtime | undefined, address: string): Loaded<Order[]> {
  const orders = useLoad(() => exchange.ordersOfMaker(address), address);
  useChannelRefresh<Order[]>(client, `active_orders:${address}`, () => true, orders.reload);
  return orders;
}
