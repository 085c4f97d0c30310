// A NATS connection made in the background: a process starts whether or not NATS is up, and the connection
// reconnects for ever (a NATS restart is ridden through).
import { connect, type NatsConnection } from '@nats-io/transport-node';

/** Connects as `name`; `onConnected` runs once it is up (it may never be, NATS down). Returns what closes it. */
export function connectInBackground(url: string, name: string, onConnected: (nc: NatsConnection) => void, onError: (err: unknown) => void): () => Promise<void> {
  let closed = false;
  let nc: NatsConnection | undefined;
  connect({ servers: url, name, maxReconnectAttempts: -1, reconnectTimeWait: 250, waitOnFirstConnect: true }).then(
    (c) => {
      if (closed) return void c.close();
      nc = c;
      onConnected(c);
    },
    onError,
  );
  return async () => {
    closed = true;
    await nc?.drain().catch(() => nc?.close());
  };
}
