// The realtime connection: the official `centrifuge` client on the exchange's WebSocket, authenticated with a
// token from the API key (fetched again whenever the client needs a new one).
import { Centrifuge, type PublicationContext, type SubscribedContext, type Subscription } from 'centrifuge';

/** A WebSocket class: the browser's, or `ws` on Node 20. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type WebSocketConstructor = any;

export interface RealtimeOptions {
  /** ws(s)://host:port/connection/websocket */
  url: string;
  getToken: () => Promise<string>;
  WebSocket?: WebSocketConstructor;
  minReconnectDelayMs?: number;
  maxReconnectDelayMs?: number;
}

export interface ChannelHandlers {
  onPublication?: (data: unknown, ctx: PublicationContext) => void;
  /** After every (re)subscribe: `wasRecovering` and `recovered` say whether missed publications were replayed. */
  onSubscribed?: (ctx: SubscribedContext) => void;
  onError?: (err: unknown) => void;
}

export class OddexRealtime {
  readonly centrifuge: Centrifuge;
  private connected = false;

  constructor(opts: RealtimeOptions) {
    this.centrifuge = new Centrifuge(opts.url, {
      getToken: opts.getToken,
      ...(opts.WebSocket ? { websocket: opts.WebSocket } : {}),
      minReconnectDelay: opts.minReconnectDelayMs ?? 100,
      maxReconnectDelay: opts.maxReconnectDelayMs ?? 5000,
    });
  }

  /** Subscribes to a channel with recovery (positioned and recoverable) and connects if not yet connected. */
  subscribe(channel: string, handlers: ChannelHandlers): Subscription {
    if (this.centrifuge.getSubscription(channel)) throw new Error(`already subscribed to ${channel}`);
    const sub = this.centrifuge.newSubscription(channel, { positioned: true, recoverable: true });
    if (handlers.onPublication) sub.on('publication', (ctx) => handlers.onPublication!(ctx.data, ctx));
    if (handlers.onSubscribed) sub.on('subscribed', handlers.onSubscribed);
    if (handlers.onError) sub.on('error', (ctx) => handlers.onError!(ctx.error));
    sub.subscribe();
    this.connect();
    return sub;
  }

  unsubscribe(channel: string): void {
    const sub = this.centrifuge.getSubscription(channel);
    if (!sub) return;
    sub.unsubscribe();
    this.centrifuge.removeSubscription(sub);
  }

  connect(): void {
    if (this.connected) return;
    this.connected = true;
    this.centrifuge.connect();
  }

  /** Drops the connection (subscriptions are kept and recover on `connect`). */
  disconnect(): void {
    this.connected = false;
    this.centrifuge.disconnect();
  }

  close(): void {
    this.disconnect();
    for (const sub of Object.values(this.centrifuge.subscriptions())) this.centrifuge.removeSubscription(sub);
  }
}
