// One Centrifuge connection per page and wallet. The token comes from the wallet's signed sign-in
// (POST /user/realtime-token/wallet), so the page can also follow the wallet's own channels.
import type { Centrifuge, PublicationContext, SubscribedContext, Subscription } from 'centrifuge';
import { OddexRealtime } from '@oddex/sdk';
import { exchange } from '../api/exchange';
import type { Wallet } from '../wallet/wallet';

export const REALTIME_PATH = '/connection/websocket';

export function realtimeUrl(): string {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${location.host}${REALTIME_PATH}`;
}

/** The typed client's realtime connection for the wallet; it connects when asked (session.tsx does). */
export function realtimeClient(wallet: Wallet): OddexRealtime {
  return new OddexRealtime({ url: realtimeUrl(), getToken: () => exchange.realtimeToken(wallet), minReconnectDelayMs: 200, maxReconnectDelayMs: 5000 });
}

export interface ChannelHandlers<T> {
  onPublication(data: T): void;
  /** Called on every (re)subscription; `recovered` false means publications may have been missed. */
  onSubscribed?(ctx: SubscribedContext): void;
  onInterrupted?(): void;
}

const users = new WeakMap<Centrifuge, Map<string, number>>();

/**
 * Subscribes to a channel (recoverable, positioned) and returns the function that leaves it. Several parts of the
 * page may follow the same channel: the subscription is shared and ends with its last user. (The order book
 * channels are the typed client's LocalOrderBook's own.)
 */
export function follow<T>(realtime: OddexRealtime, channel: string, handlers: ChannelHandlers<T>): () => void {
  const client: Centrifuge = realtime.centrifuge;
  const counts = users.get(client) ?? new Map<string, number>();
  users.set(client, counts);
  const sub: Subscription = client.getSubscription(channel) ?? client.newSubscription(channel, { recoverable: true, positioned: true });
  counts.set(channel, (counts.get(channel) ?? 0) + 1);
  const onPub = (ctx: PublicationContext) => handlers.onPublication(ctx.data as T);
  const onSubscribed = (ctx: SubscribedContext) => handlers.onSubscribed?.(ctx);
  const onSubscribing = () => handlers.onInterrupted?.();
  sub.on('publication', onPub);
  sub.on('subscribed', onSubscribed);
  sub.on('subscribing', onSubscribing);
  if (sub.state === 'unsubscribed') sub.subscribe();
  else if (sub.state === 'subscribed') queueMicrotask(() => handlers.onSubscribed?.({ channel, recovered: false } as SubscribedContext));
  return () => {
    sub.off('publication', onPub);
    sub.off('subscribed', onSubscribed);
    sub.off('subscribing', onSubscribing);
    const left = (counts.get(channel) ?? 1) - 1;
    if (left > 0) {
      counts.set(channel, left);
      return;
    }
    counts.delete(channel);
    sub.unsubscribe();
    client.removeSubscription(sub);
  };
}
