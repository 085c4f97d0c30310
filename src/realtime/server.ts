// The realtime endpoint: WebSocket upgrades on /connection/websocket of the HTTP server, the set of
// live connections, the bus feeds (in the process that runs the exchange), and a graceful shutdown (close code 3001
// to every client).
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { BestOddsItem, EventBus } from '../events.js';
import { MemoryBroker, StreamRestarts, type Broker, type HistoryPolicy } from './broker.js';
import { historySizeOf } from './channels.js';
import { ClientConnection } from './connection.js';
import { audienceOf, connectFeeds, NOBODY, type FeedAudience } from './feeds.js';
import { trackMainLines, type MainLineCatalogue } from './main-line.js';
import type { PublicationProgress, QuoteWindows } from './quote-window-hold.js';
import type { RealtimeTokens } from './tokens.js';
import { CloseCode } from './protocol.js';

export const REALTIME_PATH = '/connection/websocket';
const SERVER_VERSION = 'oddex-1';
/** Largest client frame: a connect plus 512 subscribes fits comfortably. */
const MAX_CLIENT_FRAME = 1_048_576;
/**
 * A channel's history may hold this many subscriber queues' worth of bytes (4 MiB by default): 2000 recent trades of
 * about 1.1 kB each fit. A cap of half a queue held about 460 of them, 15 s of a busy exchange's trades.
 */
const HISTORY_BYTES_PER_QUEUE = 4;

/** What a broker reports back to the realtime server that built it. */
export interface BrokerHooks {
  policy: HistoryPolicy;
  onSubscriberError: (err: unknown) => void;
  onOversize: (channel: string, bytes: number) => void;
  /** This node missed publications of the channel: its subscribers must reconnect and recover from history. */
  onGap: (channel: string) => void;
}

export interface RealtimeDeps {
  config: Pick<Config, 'realtime'>;
  /** The broker to publish and subscribe through; default: this process's memory broker. */
  makeBroker?: (hooks: BrokerHooks) => Broker;
  /**
   * In the process that runs the exchange: its changes arrive on `bus` and are published to channels; main lines
   * follow the books of the catalogue's line markets, and parlay books stay dark during their quote window (released
   * once `progress` has published what was journaled by its close). A realtime node alone has none: it serves what
   * others publish.
   */
  feeds?: { bus: EventBus; catalogue: MainLineCatalogue & QuoteWindows; progress: PublicationProgress; bestOdds: (marketHash: string) => BestOddsItem[] };
  tokens: RealtimeTokens;
  /** False until start-up finished and while shutting down: upgrades are refused with 503. */
  isReady: () => boolean;
  now: () => number;
  log: FastifyBaseLogger;
}

/** Expired publications are released within a fifth of their retention: swept once a second at most, once a minute at least. */
const sweepPeriodMs = (historyTtlMs: number) => Math.min(60_000, Math.max(1000, Math.floor(historyTtlMs / 5)));

/** The Centrifuge subprotocol of the JSON format, the one this server speaks. */
const JSON_SUBPROTOCOL = 'centrifuge-json';

export class RealtimeServer {
  readonly broker: Broker;
  // No compression: connections write prebuilt, uncompressed frames straight to the socket (ws-frame.ts).
  // Only the JSON protocol is spoken: a client offering subprotocols is agreed centrifuge-json or none, so a protobuf
  // client fails at the handshake (ws's default agrees to the first protocol offered, whatever it is).
  private readonly wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_CLIENT_FRAME,
    perMessageDeflate: false,
    handleProtocols: (offered: Set<string>) => (offered.has(JSON_SUBPROTOCOL) ? JSON_SUBPROTOCOL : false),
  });
  private readonly connections = new Set<ClientConnection>();
  /** Open connections (and upgrades under way) per remote address. */
  private readonly perAddress = new Map<string, number>();
  private readonly detachFeeds: () => void;
  private readonly brokerAudience: FeedAudience;
  private readonly restarts: StreamRestarts;
  private closed = false;
  private readonly stopMainLines: () => void;
  private readonly onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => this.upgrade(req, socket, head);
  private server: Server | undefined;
  private closingConnections: Promise<void> | undefined;
  private closing: Promise<void> | undefined;

  constructor(private readonly deps: RealtimeDeps) {
    const { historyTtlMs, idleStreamTtlMs, maxBufferedBytes } = deps.config.realtime;
    const log = deps.log;
    const hooks: BrokerHooks = {
      // A single publication must fit in a subscriber's queue with room to spare. A channel's history may hold more
      // than a queue (a reply carrying it passes the queue limit once, connection.ts): the namespaces' message
      // counts (DECISIONS: recent_trades 2000 in 5 minutes) bind before the bytes do.
      policy: {
        size: historySizeOf,
        ttlMs: historyTtlMs,
        maxBytes: HISTORY_BYTES_PER_QUEUE * maxBufferedBytes,
        maxPublicationBytes: Math.floor(maxBufferedBytes / 4),
        idleStreamTtlMs,
      },
      onSubscriberError: (err) => log.error({ err }, 'realtime subscriber failed'),
      onOversize: (channel, bytes) => log.error({ channel, bytes }, 'realtime publication element larger than a subscriber queue; not published'),
      onGap: (channel) => {
        const n = this.disconnect(CloseCode.insufficientState, 'insufficient state', (conn) => conn.isSubscribed(channel));
        log.warn({ channel, connections: n }, 'realtime publications missed on this node; its subscribers reconnect and recover');
      },
    };
    this.broker = deps.makeBroker
      ? deps.makeBroker(hooks)
      : new MemoryBroker(hooks.policy, deps.now, hooks.onSubscriberError, hooks.onOversize, undefined, hooks.onGap).sweepEvery(sweepPeriodMs(historyTtlMs));
    this.brokerAudience = audienceOf(this.broker);
    this.restarts = new StreamRestarts(this.broker, log);
    const feeds = deps.feeds;
    this.detachFeeds = feeds ? connectFeeds(feeds.bus, this.broker, log, this.restarts, { windows: feeds.catalogue, progress: feeds.progress, now: deps.now, bestOdds: feeds.bestOdds }) : () => {};
    this.stopMainLines = feeds ? trackMainLines(feeds.bus, feeds.catalogue, log) : () => {};
  }

  /** Who can receive the exchange's per-commit publications here: nobody once closed. */
  get audience(): FeedAudience {
    return this.closed ? NOBODY : this.brokerAudience;
  }

  /** Serves WebSocket upgrades of the exchange's HTTP server. */
  attach(server: Server): this {
    this.server = server;
    server.on('upgrade', this.onUpgrade);
    return this;
  }

  /**
   * Publications were lost before they were numbered (they could not be prepared): every stream starts again under
   * another epoch and every subscriber resubscribes, since which channels they were for is unknown.
   */
  restartAllStreams(): void {
    this.restarts.restart('all');
  }

  /** Streams outlive this process (Redis): positions in them may have been handed out by another writer. */
  get streamsOutliveProcess(): boolean {
    return this.broker.streamsOutliveProcess;
  }

  /** Whether publications can reach this node's clients: its broker's server (Redis) answers. */
  get brokerReachable(): boolean {
    return this.broker.reachable?.() ?? true;
  }

  /** Channel streams held in memory and the bytes of history they retain. */
  get history(): { streams: number; bytes: number } {
    return this.broker.retained();
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  /** Closes the matching connections (all by default) with a close code, e.g. 3001 to make clients reconnect. */
  disconnect(code: number, reason: string, match: (conn: ClientConnection) => boolean = () => true): number {
    let n = 0;
    for (const conn of [...this.connections]) {
      if (!match(conn)) continue;
      conn.disconnect(code, reason);
      n++;
    }
    return n;
  }

  /** Ends the sessions opened with an API key that was just revoked (terminal: the client must not reconnect). */
  disconnectKey(keyId: string): number {
    let n = 0;
    for (const conn of [...this.connections]) {
      if (conn.keyId !== keyId) continue;
      conn.disconnect(CloseCode.invalidToken, 'api key revoked');
      n++;
    }
    return n;
  }

  /**
   * Refuses upgrades and ends every client session (3001: reconnect elsewhere or later). The feeds go on publishing
   * through the broker, so a process that stops can still publish what it acknowledged before `close()`.
   */
  closeConnections(): Promise<void> {
    return (this.closingConnections ??= (async () => {
      this.server?.off('upgrade', this.onUpgrade);
      const sockets = [...this.wss.clients];
      this.disconnect(CloseCode.shutdown, 'shutdown');
      // Give close frames a moment to leave, then cut whatever is still open.
      await Promise.race([
        Promise.all(sockets.map((ws) => new Promise<void>((resolve) => (ws.readyState === ws.CLOSED ? resolve() : ws.once('close', () => resolve()))))),
        new Promise((resolve) => setTimeout(resolve, 1000).unref()),
      ]);
      for (const ws of this.wss.clients) ws.terminate();
      await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    })());
  }

  /** Ends the sessions, then the feeds and the broker (after the last publication; a Redis broker sends what it holds). */
  close(): Promise<void> {
    return (this.closing ??= (async () => {
      await this.closeConnections();
      this.closed = true;
      this.detachFeeds();
      this.restarts.stop();
      this.stopMainLines();
      await this.broker.close();
    })());
  }

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const path = (req.url ?? '').split('?')[0];
    if (path !== REALTIME_PATH || this.closingConnections || !this.deps.isReady()) {
      const status = path !== REALTIME_PATH ? '404 Not Found' : '503 Service Unavailable';
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    // One address cannot hold the node's memory with connections; counted from the upgrade to the socket's close.
    const address = req.socket.remoteAddress ?? '';
    const open = this.perAddress.get(address) ?? 0;
    if (open >= this.deps.config.realtime.maxConnectionsPerIp) {
      socket.end('HTTP/1.1 429 Too Many Requests\r\nRetry-After: 10\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    this.perAddress.set(address, open + 1);
    socket.once('close', () => {
      const left = (this.perAddress.get(address) ?? 1) - 1;
      if (left > 0) this.perAddress.set(address, left);
      else this.perAddress.delete(address);
    });
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      const conn = new ClientConnection(ws, socket, {
        broker: this.broker,
        tokens: this.deps.tokens,
        config: this.deps.config.realtime,
        now: this.deps.now,
        log: this.deps.log,
        version: SERVER_VERSION,
        onClosed: (c) => this.connections.delete(c),
      });
      this.connections.add(conn);
    });
  }
}
