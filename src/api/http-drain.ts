// The HTTP server's part of a graceful stop. Node's http.Server.close() destroys every keep-alive connection that is
// idle at that instant, which races with clients: a request already sent on such a connection (on the wire, or
// received but not yet parsed) is lost, and its client gets ECONNRESET without knowing whether it was applied.
// Instead the stop drains: no new connection is accepted; a request arriving on an open one is answered (the caller
// refuses it with `Connection: close`, which ends the connection); requests already running are answered; and a
// connection is closed here only once it has carried no request for a short grace. The server's close() then finds
// none left to cut.
import { Server as NetServer, type Socket } from 'node:net';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/** How long a keep-alive connection must stay idle during a stop before it is closed. */
export const IDLE_CONNECTION_GRACE_MS = 300;

export interface HttpDrain {
  /**
   * Stops accepting connections and resolves once every connection has ended: by its client, after a reply that
   * closes it, or here once idle for `graceMs` (a request already running is always answered first).
   */
  drain(graceMs?: number): Promise<void>;
}

interface Connection {
  /** Requests received and not yet answered. */
  requests: number;
  /** While draining and idle: ends the connection when the grace is out. */
  idleTimer?: NodeJS.Timeout;
}

/** Follows the server's connections and the requests each carries, from now on (before it listens). */
export function trackConnections(server: Server): HttpDrain {
  /** Open connections, from accept to close. */
  const open = new Map<Socket, Connection>();
  let grace: number | undefined;
  let drained: (() => void) | undefined;
  const ended = (socket: Socket) => {
    const conn = open.get(socket);
    if (!conn) return;
    clearTimeout(conn.idleTimer);
    open.delete(socket);
    if (open.size === 0) drained?.();
  };
  const closeWhenIdle = (socket: Socket, conn: Connection) => {
    if (grace === undefined || conn.requests > 0) return;
    clearTimeout(conn.idleTimer);
    conn.idleTimer = setTimeout(() => socket.destroy(), grace);
  };
  server.on('connection', (socket: Socket) => {
    const conn: Connection = { requests: 0 };
    open.set(socket, conn);
    socket.once('close', () => ended(socket));
    closeWhenIdle(socket, conn);
  });
  // No 'upgrade' listener: with one, Node hands every upgrade request to the listeners, and a process without the
  // realtime role would leave a WebSocket handshake unanswered instead of answering it 404. An upgraded socket (the
  // realtime role's) stays in `open` until it closes; the realtime server closes its connections before the drain.
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    const conn = open.get(socket);
    if (!conn) return;
    conn.requests++;
    clearTimeout(conn.idleTimer);
    res.once('close', () => {
      conn.requests--;
      closeWhenIdle(socket, conn);
    });
  });
  return {
    async drain(graceMs = IDLE_CONNECTION_GRACE_MS) {
      grace = graceMs;
      // Only the listener: http.Server.close() would also destroy the idle connections now (the race above).
      if (server.listening) NetServer.prototype.close.call(server);
      if (open.size === 0) return;
      const allEnded = new Promise<void>((resolve) => (drained = resolve));
      for (const [socket, conn] of open) closeWhenIdle(socket, conn);
      await allEnded;
    },
  };
}
