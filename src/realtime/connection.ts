// One client WebSocket speaking the Centrifuge protocol: commands in order, a reply per command id,
// publication pushes, server pings, token expiry, and the slow-consumer guard.
import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { WebSocket, type RawData } from 'ws';
import type { FastifyBaseLogger } from 'fastify';
import type { RealtimeConfig } from '../config.js';
import type { Broker } from './broker.js';
import type { Delivery, Subscriber } from './hub.js';
import type { RealtimeTokens } from './tokens.js';
import { HISTORY_SIZE, parseChannel, type Channel } from './channels.js';
import {
  CloseCode,
  ErrorCode,
  PING,
  decodeCommands,
  encodeError,
  encodePublicationPush,
  encodeReply,
  methodOf,
  type Command,
  type HistoryRequest,
  type Method,
  type ProtocolError,
  type RefreshRequest,
  type SubscribeRequest,
  type UnsubscribeRequest,
} from './protocol.js';
import { textFrame } from './ws-frame.js';

/** Subscribe flag of the client library: fail with 112 instead of answering recovered:false. */
const REJECT_UNRECOVERED = 2;
const PING_FRAME = textFrame(PING);

export interface ConnectionDeps {
  broker: Broker;
  tokens: RealtimeTokens;
  config: RealtimeConfig;
  now: () => number;
  log: FastifyBaseLogger;
  version: string;
  onClosed(conn: ClientConnection): void;
}

interface Subscription {
  /** The spelling the client used; pushes must carry it for the client to route them. */
  clientName: string;
  /** False while the subscribe reply is being prepared: deliveries wait in `buffer`. */
  live: boolean;
  /** Offset of the last publication the client has (or was told it has). */
  lastOffset: number;
  buffer: Delivery[];
}

const err = (code: number, message: string, temporary = false): ProtocolError =>
  temporary ? { code, message, temporary } : { code, message };

const isOffset = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

export class ClientConnection {
  readonly id = randomUUID();
  /** Checksummed address of the token's `sub` once connected. */
  user: string | undefined;
  /** Id of the API key the connection's token was issued for. */
  keyId: string | undefined;
  private connected = false;
  private connectFailed = false;
  private closed = false;
  private readonly subs = new Map<string, Subscription>();
  private chain: Promise<void> = Promise.resolve();
  /** Bytes waiting in subscription buffers (counted with ws.bufferedAmount against the limit). */
  private pendingBytes = 0;
  /**
   * Bytes of replies that carry a channel's history (a recovery, a history call) let past the queue limit until the
   * socket has drained: a channel keeps more history than one queue holds, and a client asked for all of it.
   */
  private historyAllowance = 0;
  private bucket: number;
  private bucketAt: number;
  private connectTimer: NodeJS.Timeout | undefined;
  private pingTimer: NodeJS.Timeout | undefined;
  private pongTimer: NodeJS.Timeout | undefined;
  private expiryTimer: NodeJS.Timeout | undefined;
  private readonly deliver: Subscriber = (d) => this.onDelivery(d);

  /**
   * @param ws handles the handshake, incoming frames and the closing handshake.
   * @param socket the same connection's socket: outgoing text frames are written to it directly, each one a
   *   complete frame built once (`textFrame`), so a publication costs one buffer write per subscriber.
   */
  constructor(
    private readonly ws: WebSocket,
    private readonly socket: Duplex,
    private readonly deps: ConnectionDeps,
  ) {
    this.bucket = deps.config.commandBurst;
    this.bucketAt = deps.now();
    ws.on('message', (data, isBinary) => this.onFrame(data, isBinary));
    socket.on('drain', () => (this.historyAllowance = 0));
    ws.on('close', () => this.cleanup());
    ws.on('error', (e) => {
      deps.log.debug({ err: e, client: this.id }, 'realtime socket error');
      this.cleanup();
    });
    this.connectTimer = setTimeout(() => this.disconnect(CloseCode.badRequest, 'connect timeout'), deps.config.connectTimeoutMs);
    this.connectTimer.unref();
  }

  get channelCount(): number {
    return this.subs.size;
  }

  /** Closes the connection with a close code; what the client does next depends on the code's range. */
  disconnect(code: number, reason: string): void {
    if (this.closed) return;
    this.cleanup();
    this.ws.close(code, reason);
  }

  private onFrame(data: RawData, isBinary: boolean): void {
    if (this.closed) return;
    if (isBinary) return this.disconnect(CloseCode.badRequest, 'bad request');
    let commands: Command[];
    try {
      commands = decodeCommands(data.toString());
    } catch {
      return this.disconnect(CloseCode.badRequest, 'bad request');
    }
    for (const cmd of commands) {
      const method = methodOf(cmd);
      if (method === 'pong') {
        clearTimeout(this.pongTimer);
        continue;
      }
      if (method === undefined) return this.disconnect(CloseCode.badRequest, 'bad request');
      if (method === 'send') continue; // asynchronous messages carry nothing this server uses
      const id = cmd.id;
      if (!id) return this.disconnect(CloseCode.badRequest, 'bad request');
      this.chain = this.chain
        .then(() => this.handle(id, method, cmd))
        .catch((e: unknown) => {
          this.deps.log.error({ err: e, client: this.id }, 'realtime command failed');
          this.disconnect(CloseCode.badRequest, 'bad request');
        });
    }
  }

  private async handle(id: number, method: Method, cmd: Command): Promise<void> {
    if (this.closed) return;
    if (method === 'connect') return this.connect(id, cmd.connect?.token);
    if (!this.connected) {
      // Commands sent with a connect that failed: the client closes this transport itself.
      if (!this.connectFailed) this.disconnect(CloseCode.badRequest, 'connect first');
      return;
    }
    const admitted = this.takeToken();
    if (admitted === 'abusive') return this.disconnect(CloseCode.tooManyRequests, 'too many requests');
    if (admitted === 'limited') return this.replyError(id, err(ErrorCode.tooManyRequests, 'too many requests', true));
    switch (method) {
      case 'subscribe':
        return this.subscribe(id, cmd.subscribe!);
      case 'unsubscribe':
        return this.unsubscribe(id, cmd.unsubscribe!);
      case 'history':
        return this.history(id, cmd.history!);
      case 'refresh':
        return this.refresh(id, cmd.refresh!);
      case 'publish':
        return this.replyError(id, err(ErrorCode.permissionDenied, 'permission denied'));
      default:
        return this.replyError(id, err(ErrorCode.notAvailable, 'not available'));
    }
  }

  /**
   * One command from the connection's bucket. A command that finds it empty is answered 111 and still counted: the
   * bucket goes into debt, which the rate pays back. A client that runs up a whole burst of debt (it goes on sending
   * after being told to slow down, e.g. a frame of thousands of commands, frame after frame) is cut off with 3013:
   * answering every excess command kept the event loop busy for seconds, stalling every other client.
   */
  private takeToken(): 'ok' | 'limited' | 'abusive' {
    const { commandBurst, commandsPerSecond } = this.deps.config;
    const now = this.deps.now();
    this.bucket = Math.min(commandBurst, this.bucket + ((now - this.bucketAt) * commandsPerSecond) / 1000);
    this.bucketAt = now;
    const admitted = this.bucket >= 1;
    this.bucket -= 1;
    if (admitted) return 'ok';
    return this.bucket < -commandBurst ? 'abusive' : 'limited';
  }

  // ---- connect / refresh -------------------------------------------------------------------

  private async connect(id: number, token: unknown): Promise<void> {
    if (this.connected) return this.disconnect(CloseCode.badRequest, 'already connected');
    if (typeof token !== 'string' || token === '') {
      this.connectFailed = true;
      return this.replyError(id, err(ErrorCode.unauthorized, 'unauthorized'));
    }
    const check = await this.deps.tokens.verify(token);
    if (this.closed) return;
    if (!check.ok) {
      if (check.reason !== 'expired') return this.disconnect(CloseCode.invalidToken, `${check.reason} token`);
      this.connectFailed = true;
      return this.replyError(id, err(ErrorCode.tokenExpired, 'token expired'));
    }
    this.connected = true;
    this.user = check.address;
    this.keyId = check.keyId;
    clearTimeout(this.connectTimer);
    this.startPings();
    const { pingIntervalMs } = this.deps.config;
    this.send(
      encodeReply(id, 'connect', {
        client: this.id,
        version: this.deps.version,
        ping: Math.max(1, Math.ceil(pingIntervalMs / 1000)),
        pong: true,
        ...this.expiry(check.exp),
      }),
    );
  }

  private async refresh(id: number, req: RefreshRequest): Promise<void> {
    if (typeof req.token !== 'string' || req.token === '') {
      return this.replyError(id, err(ErrorCode.badRequest, 'bad request'));
    }
    const check = await this.deps.tokens.verify(req.token);
    if (this.closed) return;
    if (!check.ok && check.reason === 'expired') return this.replyError(id, err(ErrorCode.tokenExpired, 'token expired'));
    if (!check.ok) return this.disconnect(CloseCode.invalidToken, `${check.reason} token`);
    if (check.address !== this.user) return this.disconnect(CloseCode.invalidToken, 'invalid token');
    this.keyId = check.keyId;
    this.send(encodeReply(id, 'refresh', { client: this.id, version: this.deps.version, ...this.expiry(check.exp) }));
  }

  /** Arms the close of an unrefreshed connection and gives the client its time to refresh. */
  private expiry(exp: number): { expires: true; ttl: number } {
    const msLeft = exp * 1000 - this.deps.now();
    clearTimeout(this.expiryTimer);
    this.expiryTimer = setTimeout(
      () => this.disconnect(CloseCode.expired, 'expired'),
      Math.max(0, msLeft) + this.deps.config.expiredCloseDelayMs,
    );
    this.expiryTimer.unref();
    return { expires: true, ttl: Math.max(1, Math.floor(msLeft / 1000)) };
  }

  private startPings(): void {
    const { pingIntervalMs, pongTimeoutMs } = this.deps.config;
    this.pingTimer = setInterval(() => {
      this.write(PING_FRAME);
      clearTimeout(this.pongTimer);
      this.pongTimer = setTimeout(() => this.disconnect(CloseCode.noPong, 'no pong'), pongTimeoutMs);
      this.pongTimer.unref();
    }, pingIntervalMs);
    this.pingTimer.unref();
  }

  // ---- subscriptions -----------------------------------------------------------------------

  /** Validates a channel name for subscribe/history: the error to answer, or the channel. */
  private resolveChannel(name: unknown): Channel | ProtocolError {
    if (typeof name !== 'string' || name === '') return err(ErrorCode.badRequest, 'bad request');
    const channel = parseChannel(name);
    if (!channel) return err(ErrorCode.unknownChannel, 'unknown channel');
    if (channel.owner !== undefined && channel.owner !== this.user) return err(ErrorCode.permissionDenied, 'permission denied');
    return channel;
  }

  /** Whether this connection subscribes to the channel (canonical name). */
  isSubscribed(channel: string): boolean {
    return this.subs.has(channel);
  }

  private async subscribe(id: number, req: SubscribeRequest): Promise<void> {
    const channel = this.resolveChannel(req.channel);
    if ('code' in channel) return this.replyError(id, channel);
    if (req.type) return this.replyError(id, err(ErrorCode.badRequest, 'only stream subscriptions are offered'));
    const recovering = req.recover === true;
    if (recovering && req.offset !== undefined && !isOffset(req.offset)) {
      return this.replyError(id, err(ErrorCode.badRequest, 'bad request'));
    }
    const key = channel.canonical;
    if (this.subs.has(key)) return this.replyError(id, err(ErrorCode.alreadySubscribed, 'already subscribed'));
    if (this.subs.size >= this.deps.config.maxChannelsPerConnection) {
      return this.replyError(id, err(ErrorCode.limitExceeded, 'limit exceeded'));
    }
    const sub: Subscription = { clientName: req.channel as string, live: false, lastOffset: 0, buffer: [] };
    this.subs.set(key, sub);
    // Subscribe first, then read the position: a publication in between is buffered, never lost.
    await this.deps.broker.subscribe(key, this.deliver);
    const recoverable = HISTORY_SIZE[channel.namespace] > 0;
    const since = { offset: req.offset ?? 0, epoch: typeof req.epoch === 'string' ? req.epoch : '' };
    const position = await this.deps.broker.history(key, recovering && recoverable ? { since, limit: -1 } : { limit: 0 });
    if (this.closed || this.subs.get(key) !== sub) return;
    const recovered = recovering && recoverable && position.complete;
    if (recovering && !recovered && ((req.flag ?? 0) & REJECT_UNRECOVERED) !== 0) {
      this.dropSubscription(key);
      return this.replyError(id, err(ErrorCode.unrecoverablePosition, 'unrecoverable position'));
    }
    const result = {
      recoverable,
      positioned: recoverable,
      epoch: position.epoch,
      // After a recovery: the position recovered from; each recovered publication moves the client on.
      offset: recovered ? since.offset : position.offset,
      was_recovering: recovering,
      recovered,
    };
    const json = JSON.stringify({ id, subscribe: result });
    const pubs = recovered ? position.publications.join(',') : '';
    this.sendHistory(`${json.slice(0, -2)},"publications":[${pubs}]}}`);
    sub.lastOffset = position.offset;
    sub.live = true;
    const waiting = sub.buffer;
    sub.buffer = [];
    for (const d of waiting) {
      this.pendingBytes -= d.frame.length;
      this.onDelivery(d);
    }
  }

  private async unsubscribe(id: number, req: UnsubscribeRequest): Promise<void> {
    if (typeof req.channel !== 'string') return this.replyError(id, err(ErrorCode.badRequest, 'bad request'));
    const channel = parseChannel(req.channel);
    if (channel) this.dropSubscription(channel.canonical);
    this.send(encodeReply(id, 'unsubscribe', {}));
  }

  private dropSubscription(key: string): void {
    const sub = this.subs.get(key);
    if (!sub) return;
    for (const d of sub.buffer) this.pendingBytes -= d.frame.length;
    this.subs.delete(key);
    void this.deps.broker.unsubscribe(key, this.deliver);
  }

  private async history(id: number, req: HistoryRequest): Promise<void> {
    const channel = this.resolveChannel(req.channel);
    if ('code' in channel) return this.replyError(id, channel);
    if (HISTORY_SIZE[channel.namespace] === 0) return this.replyError(id, err(ErrorCode.notAvailable, 'not available'));
    const limit = req.limit ?? 0;
    const since = req.since;
    if (
      !Number.isSafeInteger(limit) ||
      (since !== undefined && (typeof since !== 'object' || since === null || !isOffset(since.offset ?? 0)))
    ) {
      return this.replyError(id, err(ErrorCode.badRequest, 'bad request'));
    }
    const result = await this.deps.broker.history(channel.canonical, {
      limit,
      reverse: req.reverse === true,
      ...(since ? { since: { offset: since.offset ?? 0, epoch: typeof since.epoch === 'string' ? since.epoch : '' } } : {}),
    });
    if (!result.complete) return this.replyError(id, err(ErrorCode.unrecoverablePosition, 'unrecoverable position'));
    this.sendHistory(
      `{"id":${id},"history":{"publications":[${result.publications.join(',')}],"epoch":${JSON.stringify(result.epoch)},"offset":${result.offset}}}`,
    );
  }

  private onDelivery(d: Delivery): void {
    const sub = this.subs.get(d.channel);
    if (!sub || this.closed) return;
    // Joined publications go out in one write unless this client needs them one by one.
    if (d.parts && (!sub.live || sub.lastOffset >= d.parts[0]!.offset || sub.clientName !== d.channel)) {
      for (const part of d.parts) this.onDelivery(part);
      return;
    }
    if (!sub.live) {
      sub.buffer.push(d);
      this.pendingBytes += d.frame.length;
      this.checkBackpressure();
      return;
    }
    if (d.offset <= sub.lastOffset) return; // already in the subscribe reply
    sub.lastOffset = d.offset;
    // Same bytes for every subscriber, unless this client spelled the channel differently.
    this.write(sub.clientName === d.channel ? d.frame : textFrame(encodePublicationPush(sub.clientName, d.pubJson)));
  }

  // ---- output --------------------------------------------------------------------------------

  private replyError(id: number, error: ProtocolError): void {
    this.send(encodeError(id, error));
  }

  private send(message: string): void {
    this.write(textFrame(message));
  }

  /** A reply carrying history: the queue limit counts it only once the socket has drained it. */
  private sendHistory(message: string): void {
    const frame = textFrame(message);
    if (!this.closed) this.historyAllowance += frame.length;
    this.write(frame);
  }

  /**
   * Every text frame leaves through here, whole and in order. ws writes only control frames (close, pong) to the
   * socket, also whole, so frames never interleave. Nothing is written once ws has started or seen a close.
   */
  private write(frame: Buffer): void {
    if (this.closed || this.ws.readyState !== WebSocket.OPEN) return;
    this.socket.write(frame);
    this.checkBackpressure();
  }

  /** A client that does not read cannot make the server hold its data without bound. */
  private checkBackpressure(): void {
    if (this.socket.writableLength + this.pendingBytes > this.deps.config.maxBufferedBytes + this.historyAllowance) {
      this.disconnect(CloseCode.slowConsumer, 'slow consumer');
    }
  }

  private cleanup(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.connectTimer);
    clearInterval(this.pingTimer);
    clearTimeout(this.pongTimer);
    clearTimeout(this.expiryTimer);
    for (const key of [...this.subs.keys()]) this.dropSubscription(key);
    this.deps.onClosed(this);
  }
}
