// The broker numbers publications per channel, keeps their history and hands them to the nodes that have
// subscribers; each node's hub (hub.ts) writes them to its own sockets. Channel code talks to the `Broker` interface
// only: `MemoryBroker` for one process, `RedisBroker` (redis-broker.ts) for realtime nodes in several processes.
import { randomBytes } from 'node:crypto';
import type { StreamPosition } from './protocol.js';
import { ChannelStream } from './stream.js';
import { Hub, type Subscriber } from './hub.js';


export interface HistoryQuery {
  /** Publications after this position; an epoch that is not the current one fails the query. */
  since?: { offset: number; epoch: string };
  /** 0: none (position only); negative: all retained; positive: at most that many. */
  limit: number;
  reverse?: boolean;
}

export interface HistoryResult extends StreamPosition {
  /** Encoded publications, oldest first unless reversed. */
  publications: string[];
  /** False when `since` cannot be served: another epoch, or history no longer covers the gap. */
  complete: boolean;
}

export interface HistoryPolicy {
  /** Publications kept per channel; 0 = none. */
  size(channel: string): number;
  ttlMs: number;
  /** Bytes of publications kept per channel (default: no bound but the count). */
  maxBytes?: number;
  /**
   * Largest publication frame: an array publication over it is split into several publications of consecutive
   * elements, so no subscriber's queue limit is ever exceeded by one publication. An element that alone is larger
   * cannot be delivered to anyone and is dropped (reported through onOversize).
   */
  maxPublicationBytes?: number;
  /**
   * How long the stream of a channel without subscribers is kept after its last publication (default: for good).
   * Past it the stream is dropped: positions in it no longer recover, since its next stream has another epoch.
   */
  idleStreamTtlMs?: number;
  /**
   * Most streams kept that never published and have no subscriber (MemoryBroker; default 10,000): past it the longest
   * idle go at the next sweep. Each holds only the promise that a position in it recovers, and subscribing costs a
   * client nothing, so without a bound clients subscribing to made-up channels from connection after connection grow
   * memory for a whole history retention.
   */
  maxQuietStreams?: number;
}

const DEFAULT_MAX_QUIET_STREAMS = 10_000;

/** Room in a frame for the push wrapper, the channel name, the offset and the WebSocket header. */
const FRAME_OVERHEAD = 96;

/**
 * The contract every broker keeps, and every realtime node relies on for exact recovery:
 * - A channel's publications form a stream named by an epoch; within an epoch offsets are contiguous (1, 2, 3, ...)
 *   and every subscriber sees them in offset order.
 * - A position (offset + epoch) handed out by `history` recovers exactly: `history({since})` answers either every
 *   publication after it (complete) or `complete: false`, never a partial suffix. A stream whose publications could be
 *   lost (a restart of the broker's storage, a dropped idle stream) starts again under another epoch, so an old
 *   position fails to recover instead of silently skipping a gap.
 * - A stream is recorded from the first `subscribe` to its channel on any node; positions stay recoverable while the
 *   history policy's retention covers the gap, whether or not anyone is subscribed meanwhile.
 */
export interface Broker {
  /** This broker's (server start's) epoch: every stream's epoch begins with it. */
  readonly epoch: string;
  /** Streams outlive this process (they are kept in Redis), so positions handed out before it started may recover. */
  readonly streamsOutliveProcess: boolean;
  /**
   * Whether a publication on the channel could reach anyone: it has a subscriber, or its stream is recorded
   * because a client may hold a position in it (recovery, history). Publications of other channels are dropped
   * unrecorded, so a publisher may skip building them. Synchronous so that publishers can ask per commit.
   */
  interested(channel: string): boolean;
  /** Numbers, records and delivers a publication. `data` is any JSON value, or an EncodedArray whose elements are already encoded. */
  publish(channel: string, data: unknown): Promise<StreamPosition>;
  /** Delivers the channel's publications to `subscriber` (through this node's hub) until unsubscribed. */
  subscribe(channel: string, subscriber: Subscriber): Promise<void>;
  unsubscribe(channel: string, subscriber: Subscriber): Promise<void>;
  /** The stream's position, and its publications as the query asks (see the recovery contract above). */
  history(channel: string, query: HistoryQuery): Promise<HistoryResult>;
  /**
   * Publications of these channels (`all`: of any channel) may have been lost before they were numbered: their
   * preparation or their publish failed. Each such stream starts again under another epoch, so a position in the old
   * one fails to recover instead of skipping the loss, and every node with subscribers to the channel reports a gap
   * (its subscribers reconnect, and resubscribe with `recovered: false`).
   */
  restartStreams(channels: readonly string[] | 'all'): Promise<void>;
  /**
   * Whether the broker's server answers now (its connections are up), where it has one: a node whose Redis is down can
   * neither deliver nor recover publications. Absent: always (the process's own memory).
   */
  reachable?(): boolean;
  /** Streams this process holds and the bytes of publications they retain (metrics; synchronous for scrapes). */
  retained(): { streams: number; bytes: number };
  /** Stops delivering. Publications already handed to `publish` are still recorded where streams outlive the process. */
  close(): Promise<void>;
}

/** How long apart a restart of streams the broker refused (Redis down) is tried again. */
const RESTART_RETRY_MS = 1000;

/**
 * Restarts the streams of channels whose publications were lost before they were numbered, trying again for as long
 * as the broker refuses: a lost publication is never left looking delivered. Channels asked for meanwhile are
 * gathered into the next attempt, so an outage holds one set of channel names, not one retry per failed publication.
 */
export class StreamRestarts {
  private channels = new Set<string>();
  private all = false;
  private busy = false;
  private stopped = false;
  private retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly broker: Broker,
    private readonly log: { error(o: object, msg: string): void },
  ) {}

  restart(channels: readonly string[] | 'all'): void {
    if (channels === 'all') this.all = true;
    else for (const c of channels) this.channels.add(c);
    this.next();
  }

  /** The broker is closing: nothing more is tried. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.retry);
  }

  private next(): void {
    if (this.stopped || this.busy || (!this.all && this.channels.size === 0)) return;
    const channels = this.all ? 'all' : [...this.channels];
    this.all = false;
    this.channels = new Set();
    this.busy = true;
    this.broker.restartStreams(channels).then(
      () => {
        this.busy = false;
        this.next();
      },
      (err: unknown) => {
        this.log.error({ err }, 'realtime streams not restarted yet; trying again');
        if (channels === 'all') this.all = true;
        else this.channels = new Set([...channels, ...this.channels]);
        this.retry = setTimeout(() => {
          this.busy = false;
          this.next();
        }, RESTART_RETRY_MS).unref();
      },
    );
  }
}

/**
 * Array data whose elements are JSON-encoded once: publishing it on several channels (an order update goes to its
 * market's book, its event's book and its maker's channel) encodes nothing again. Broker implementations take it
 * wherever `publish` takes data.
 */
export class EncodedArray {
  private joined: string | undefined;
  constructor(readonly items: readonly string[]) {}

  static of(values: readonly unknown[]): EncodedArray {
    return new EncodedArray(values.map((v) => JSON.stringify(v)));
  }

  /** The whole array as JSON, joined on first use. */
  get json(): string {
    return (this.joined ??= `[${this.items.join(',')}]`);
  }
}

/**
 * Consecutive already-encoded elements packed into JSON arrays of at most `budget` bytes each, in order. An
 * element larger than the budget on its own is left out and reported.
 */
export function packElements(items: readonly string[], budget: number, oversize: (bytes: number) => void): string[] {
  const parts: string[] = [];
  let current: string[] = [];
  let size = 2; // "[" and "]"
  for (const json of items) {
    const bytes = Buffer.byteLength(json);
    if (bytes + 2 > budget) {
      oversize(bytes);
      continue;
    }
    if (current.length > 0 && size + 1 + bytes > budget) {
      parts.push(`[${current.join(',')}]`);
      current = [];
      size = 2;
    }
    size += bytes + (current.length > 0 ? 1 : 0);
    current.push(json);
  }
  if (current.length > 0) parts.push(`[${current.join(',')}]`);
  return parts;
}

/**
 * A publication as the JSON texts of its data, ready to number: one, or (an array over the policy's
 * `maxPublicationBytes`) consecutive elements packed into several that each fit. Data that cannot fit is reported
 * through `oversize` and gives none.
 */
export function publicationParts(channel: string, data: unknown, policy: HistoryPolicy, oversize: (bytes: number) => void): string[] {
  const budget = (policy.maxPublicationBytes ?? Infinity) - FRAME_OVERHEAD - Buffer.byteLength(channel);
  const encoded = data instanceof EncodedArray ? data : undefined;
  const whole = encoded ? encoded.json : JSON.stringify(data);
  if (Buffer.byteLength(whole) <= budget) return [whole];
  if (!encoded && !Array.isArray(data)) {
    oversize(Buffer.byteLength(whole));
    return [];
  }
  const items = encoded ? encoded.items : (data as unknown[]).map((item) => JSON.stringify(item));
  return packElements(items, budget, oversize);
}

/**
 * Single-process broker: streams in memory, delivery through this process's hub; the epoch changes on every start.
 * A channel's stream starts at its first subscription and is recorded from then on, whether subscribed or not, so
 * every position a client was given stays exactly recoverable while history covers it. A channel nobody ever
 * subscribed to has no stream: its publications are dropped, and nobody can hold a position in it (positions come
 * from a subscribe, and history of a channel without a stream gives none that recovers). A stream nobody subscribes
 * to is swept once idle (see `sweep`): one history retention after its last subscriber left when it never published,
 * so subscriptions to channels that never publish hold no memory for long; a stream started again for the channel
 * has another epoch, so a position in the dropped one never recovers.
 * A publication is numbered, stored and encoded at once, and handed to the hub, which writes it out in slices.
 */
export class MemoryBroker implements Broker {
  readonly epoch = randomBytes(4).toString('hex');
  readonly streamsOutliveProcess = false;
  private readonly streams = new Map<string, ChannelStream>();
  /** Streams started so far: numbers each stream's epoch. */
  private streamsStarted = 0;
  private readonly hub: Hub;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly policy: HistoryPolicy,
    private readonly now: () => number,
    onSubscriberError: (err: unknown) => void = () => {},
    private readonly onOversize: (channel: string, bytes: number) => void = () => {},
    sliceMs?: number,
    /** A channel's subscribers must reconnect and resubscribe: its stream started again. */
    private readonly onGap: (channel: string) => void = () => {},
  ) {
    this.hub = new Hub(onSubscriberError, policy.maxPublicationBytes, sliceMs);
  }

  private stream(channel: string): ChannelStream {
    let s = this.streams.get(channel);
    if (!s) {
      const epoch = `${this.epoch}-${(++this.streamsStarted).toString(36)}`;
      s = new ChannelStream(epoch, this.policy.size(channel), this.policy.ttlMs, this.policy.maxBytes, this.now());
      this.streams.set(channel, s);
    }
    return s;
  }

  interested(channel: string): boolean {
    return this.hub.has(channel) || (this.streams.get(channel)?.capacity ?? 0) > 0;
  }

  /**
   * Synchronous core of publish: the publication has its offset and is in history when this returns; subscribers
   * have it too unless earlier fan-outs are still under way or this one needs more than one slice.
   */
  publishNow(channel: string, data: unknown): StreamPosition {
    if (!this.interested(channel)) {
      const stream = this.streams.get(channel);
      return stream ? { offset: stream.top, epoch: stream.epoch } : { offset: 0, epoch: this.noStreamEpoch };
    }
    const stream = this.stream(channel);
    for (const dataJson of publicationParts(channel, data, this.policy, (bytes) => this.onOversize(channel, bytes))) {
      const { offset, json } = stream.append((o) => `{"data":${dataJson},"offset":${o}}`, this.now());
      this.hub.deliver(channel, offset, json);
    }
    return { offset: stream.top, epoch: stream.epoch };
  }

  /** The epoch of a position in a channel without a stream: it matches no stream, so it never recovers. */
  private get noStreamEpoch(): string {
    return `${this.epoch}-0`;
  }

  /** Publications still reaching their subscribers (tests). */
  get fanoutsPending(): number {
    return this.hub.pending;
  }

  async publish(channel: string, data: unknown): Promise<StreamPosition> {
    return this.publishNow(channel, data);
  }

  async subscribe(channel: string, subscriber: Subscriber): Promise<void> {
    this.hub.add(channel, subscriber);
    this.stream(channel); // recorded from now on: the subscriber is about to be given a position in it
  }

  async unsubscribe(channel: string, subscriber: Subscriber): Promise<void> {
    // The leaver holds a position in the stream: it stays recorded, and its idleness counts from now.
    if (this.hub.remove(channel, subscriber)) this.streams.get(channel)?.touch(this.now());
  }

  async history(channel: string, query: HistoryQuery): Promise<HistoryResult> {
    const stream = this.streams.get(channel);
    const now = this.now();
    const result = (publications: string[], complete: boolean): HistoryResult => ({
      publications,
      complete,
      offset: stream?.top ?? 0,
      epoch: stream?.epoch ?? this.noStreamEpoch,
    });
    let pubs: string[];
    if (query.since) {
      // Without a stream, what was published is unknown. An empty epoch means "any epoch" to the client library
      // (it sends one only when it has it).
      if (!stream || (query.since.epoch !== '' && query.since.epoch !== stream.epoch)) return result([], false);
      const after = stream.after(query.since.offset, now);
      if (!after) return result([], false);
      pubs = after;
    } else {
      pubs = stream ? stream.all(now) : [];
    }
    if (query.limit === 0) return result([], true);
    if (query.reverse) pubs = pubs.reverse();
    if (query.limit > 0 && pubs.length > query.limit) pubs = pubs.slice(0, query.limit);
    return result(pubs, true);
  }

  async restartStreams(channels: readonly string[] | 'all'): Promise<void> {
    for (const channel of channels === 'all' ? [...this.streams.keys()] : channels) {
      // Dropped, not emptied: the next stream of the channel has another epoch.
      if (!this.streams.delete(channel)) continue;
      if (this.hub.has(channel)) {
        this.stream(channel); // still subscribed: recorded from now on, as a subscribe would
        this.onGap(channel);
      }
    }
  }

  retained(): { streams: number; bytes: number } {
    let bytes = 0;
    for (const s of this.streams.values()) bytes += s.bytes;
    return { streams: this.streams.size, bytes };
  }

  /**
   * Releases what outlived its retention. Reads expire a stream's old publications too, but a channel nobody reads
   * again (a settled market's book) would keep its last ones for good; and a stream nobody subscribes to and
   * nothing publishes on for `idleStreamTtlMs` is dropped, so memory follows the channels in use, not every channel
   * a month has seen. A client holding a position in a dropped stream resubscribes without recovery, as after a
   * restart.
   */
  sweep(): void {
    const now = this.now();
    const quiet: [string, ChannelStream][] = [];
    for (const [channel, stream] of this.streams) {
      stream.expire(now);
      if (this.hub.has(channel)) continue;
      if (now - stream.lastActiveAt >= this.idleTtl(stream)) this.streams.delete(channel);
      else if (stream.top === 0) quiet.push([channel, stream]);
    }
    const excess = quiet.length - (this.policy.maxQuietStreams ?? DEFAULT_MAX_QUIET_STREAMS);
    if (excess <= 0) return;
    quiet.sort(([, a], [, b]) => a.lastActiveAt - b.lastActiveAt);
    for (const [channel] of quiet.slice(0, excess)) this.streams.delete(channel);
  }

  /**
   * How long a stream nobody subscribes to is kept after its last activity. Never less than history retention: a
   * position handed out before that stays recoverable while history would cover its gap. A stream that never
   * published holds nothing but that promise, so it goes as soon as the promise ends.
   */
  private idleTtl(stream: ChannelStream): number {
    if (stream.top === 0) return this.policy.ttlMs;
    return Math.max(this.policy.idleStreamTtlMs ?? Infinity, this.policy.ttlMs);
  }

  /** Sweeps every `ms` until closed; the timer does not keep the process alive. */
  sweepEvery(ms: number): this {
    clearInterval(this.sweeper);
    this.sweeper = setInterval(() => this.sweep(), ms).unref();
    return this;
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.hub.close();
  }
}
