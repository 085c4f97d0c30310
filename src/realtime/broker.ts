// The broker moves publications from channels to subscribers and keeps stream positions and history.
// Channel code talks to the `Broker` interface only, so a Redis implementation can replace the
// in-process one without touching it. Methods are async for that reason.
import { randomBytes } from 'node:crypto';
import { encodePublicationPush, type StreamPosition } from './protocol.js';
import { ChannelStream } from './stream.js';
import { textFrame } from './ws-frame.js';

/** One publication as delivered to subscribers: encoded once, the same bytes for every one of them. */
export interface Delivery {
  channel: string;
  offset: number;
  /** The WebSocket text frame (header included) of `{"push":{"channel":...,"pub":{"data":...,"offset":n}}}`. */
  frame: Buffer;
  /** `{"data":...,"offset":n}` (for re-framing under another spelling of the channel). */
  pubJson: string;
  /**
   * Set when this delivery carries several consecutive publications of the channel, which queued up while earlier
   * fan-outs were under way: `frame` is their frames back to back (one socket write for all of them), `offset` and
   * `pubJson` are the last one's. A subscriber that needs them one by one (it already has some, or spells the
   * channel differently) takes the parts.
   */
  parts?: readonly Delivery[];
}

export type Subscriber = (delivery: Delivery) => void;

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
}

/** Room in a frame for the push wrapper, the channel name, the offset and the WebSocket header. */
const FRAME_OVERHEAD = 96;

export interface Broker {
  /** This broker's (server start's) epoch: every stream's epoch begins with it. */
  readonly epoch: string;
  /**
   * Whether a publication on the channel could reach anyone: it has a subscriber, or its stream is recorded
   * because a client may hold a position in it (recovery, history). Publications of other channels are dropped
   * unrecorded, so a publisher may skip building them. Synchronous so that publishers can ask per commit.
   */
  interested(channel: string): boolean;
  /** `data` is any JSON value, or an EncodedArray whose elements are already encoded. */
  publish(channel: string, data: unknown): Promise<StreamPosition>;
  subscribe(channel: string, subscriber: Subscriber): Promise<void>;
  unsubscribe(channel: string, subscriber: Subscriber): Promise<void>;
  history(channel: string, query: HistoryQuery): Promise<HistoryResult>;
  /** Streams this process holds and the bytes of publications they retain (metrics; synchronous for scrapes). */
  retained(): { streams: number; bytes: number };
  close(): Promise<void>;
}

/**
 * Publications of one channel on their way to its subscribers. Until its first subscriber is served, later
 * publications of the channel join it; then `next` walks the live set, so late joiners are seen.
 */
interface Fanout {
  channel: string;
  queued: Delivery[];
  queuedBytes: number;
  delivery: Delivery | undefined;
  next: Iterator<Subscriber> | undefined;
}

/**
 * Subscribers served between two clock reads while fanning out: a socket write costs 5-15 µs (mostly the kernel's
 * loopback TCP), so a slice overruns its time by at most about 0.2 ms, and the clock read costs nothing beside it.
 */
export const SUBSCRIBERS_PER_CLOCK_READ = 16;
/** Longest fan-out slice, 30-100 socket writes: what one step of the writer's work may wait for. */
const DEFAULT_SLICE_MS = 0.5;
/** Most bytes of publications that queue into one fan-out (one write per subscriber), within maxPublicationBytes. */
const MAX_JOINED_BYTES = 65_536;

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
 * Single-process broker: streams and subscriber sets in memory; the epoch changes on every start. A channel's
 * stream starts at its first subscription and is recorded from then on, whether subscribed or not, so every
 * position a client was given stays exactly recoverable while history covers it. A channel nobody ever subscribed
 * to has no stream: its publications are dropped, and nobody can hold a position in it (positions come from a
 * subscribe, and history of a channel without a stream gives none that recovers). A stream nobody subscribes to is
 * swept once idle (see `sweep`): one history retention after its last subscriber left when it never published, so
 * subscriptions to channels that never publish hold no memory for long; a stream started again for the channel has
 * another epoch, so a position in the dropped one never recovers.
 * A publication is numbered, stored and encoded at once; its socket writes go out in slices of at most `sliceMs`,
 * so 5,000 subscribers on a book never hold the writer for more than a slice. Between two slices the broker gives up a
 * whole event-loop turn: the I/O that arrived meanwhile (requests, a commit's sync completing, hence its replies)
 * and the writer's own check-phase work (writing the next group) all run before the next slice, so each step of a
 * command waits for at most the one slice under way when it became ready. Publications reach each subscriber in
 * offset order; a subscriber that joins mid-way skips what its subscribe reply already covered.
 */
export class MemoryBroker implements Broker {
  readonly epoch = randomBytes(4).toString('hex');
  private readonly streams = new Map<string, ChannelStream>();
  /** Streams started so far: numbers each stream's epoch. */
  private streamsStarted = 0;
  private readonly subscribers = new Map<string, Set<Subscriber>>();
  private fanouts: Fanout[] = [];
  private fanoutHead = 0;
  /** Per channel, the queued fan-out not yet started, which the channel's next publication joins. */
  private readonly waiting = new Map<string, Fanout>();
  private nextSlice: NodeJS.Immediate | undefined;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly policy: HistoryPolicy,
    private readonly now: () => number,
    private readonly onSubscriberError: (err: unknown) => void = () => {},
    private readonly onOversize: (channel: string, bytes: number) => void = () => {},
    private readonly sliceMs = DEFAULT_SLICE_MS,
  ) {}

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
    return this.subscribers.has(channel) || (this.streams.get(channel)?.capacity ?? 0) > 0;
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
    const budget = (this.policy.maxPublicationBytes ?? Infinity) - FRAME_OVERHEAD - Buffer.byteLength(channel);
    const encoded = data instanceof EncodedArray ? data : undefined;
    const whole = encoded ? encoded.json : JSON.stringify(data);
    if (Buffer.byteLength(whole) <= budget) return this.publishJson(channel, whole);
    if (!encoded && !Array.isArray(data)) {
      this.onOversize(channel, Buffer.byteLength(whole));
      const stream = this.stream(channel);
      return { offset: stream.top, epoch: stream.epoch };
    }
    const items = encoded ? encoded.items : (data as unknown[]).map((item) => JSON.stringify(item));
    const stream = this.stream(channel);
    let position: StreamPosition = { offset: stream.top, epoch: stream.epoch };
    for (const part of packElements(items, budget, (bytes) => this.onOversize(channel, bytes))) {
      position = this.publishJson(channel, part);
    }
    return position;
  }

  private publishJson(channel: string, dataJson: string): StreamPosition {
    const stream = this.stream(channel);
    const { offset, json } = stream.append((o) => `{"data":${dataJson},"offset":${o}}`, this.now());
    const subs = this.subscribers.get(channel);
    if (subs && subs.size > 0) {
      const delivery: Delivery = { channel, offset, pubJson: json, frame: textFrame(encodePublicationPush(channel, json)) };
      this.enqueue(delivery);
      if (!this.nextSlice) this.fanOut();
    }
    return { offset, epoch: stream.epoch };
  }

  /** The epoch of a position in a channel without a stream: it matches no stream, so it never recovers. */
  private get noStreamEpoch(): string {
    return `${this.epoch}-0`;
  }

  /**
   * Queues a publication for fan-out. When fan-outs fall behind (5,000 subscribers cost more than the time between
   * two commits), publications of a channel that wait join one fan-out: each subscriber gets them in one write, so
   * the cost of a round over the subscribers is paid once for all of them and delivery catches up.
   */
  private enqueue(delivery: Delivery): void {
    const bytes = delivery.frame.length;
    const joinable = this.waiting.get(delivery.channel);
    // A joined write is held to the bound of a single publication, so it fits any subscriber's queue the same way.
    const limit = Math.min(MAX_JOINED_BYTES, this.policy.maxPublicationBytes ?? Infinity);
    if (joinable && joinable.queuedBytes + bytes <= limit) {
      joinable.queued.push(delivery);
      joinable.queuedBytes += bytes;
      return;
    }
    const fanout: Fanout = { channel: delivery.channel, queued: [delivery], queuedBytes: bytes, delivery: undefined, next: undefined };
    this.fanouts.push(fanout);
    this.waiting.set(delivery.channel, fanout);
  }

  /** Closes a fan-out to newcomers and fixes what it delivers: one publication, or the joined ones as parts. */
  private start(fanout: Fanout): void {
    if (this.waiting.get(fanout.channel) === fanout) this.waiting.delete(fanout.channel);
    const parts = fanout.queued;
    const last = parts[parts.length - 1]!;
    fanout.delivery =
      parts.length === 1 ? last : { ...last, frame: Buffer.concat(parts.map((d) => d.frame), fanout.queuedBytes), parts };
    fanout.next = (this.subscribers.get(fanout.channel) ?? new Set<Subscriber>()).values();
  }

  /** Publications still reaching their subscribers (tests). */
  get fanoutsPending(): number {
    return this.fanouts.length - this.fanoutHead;
  }

  /** Serves queued fan-outs in order until they are done or the slice is used up, then yields a turn. */
  private fanOut(): void {
    this.nextSlice = undefined;
    const deadline = performance.now() + this.sliceMs;
    let served = 0;
    while (this.fanoutHead < this.fanouts.length) {
      const fanout = this.fanouts[this.fanoutHead]!;
      if (!fanout.next) this.start(fanout);
      const delivery = fanout.delivery!;
      const next = fanout.next!;
      for (let it = next.next(); !it.done; it = next.next()) {
        try {
          it.value(delivery);
        } catch (err) {
          this.onSubscriberError(err); // one failing subscriber must not starve the others
        }
        if (++served % SUBSCRIBERS_PER_CLOCK_READ === 0 && performance.now() >= deadline) {
          this.yieldTurn();
          return;
        }
      }
      this.fanouts[this.fanoutHead++] = undefined as unknown as Fanout; // let the frame go
    }
    this.fanouts = [];
    this.fanoutHead = 0;
  }

  /**
   * Continues the fan-out after a full event-loop turn. An immediate queued now would run in the next check phase
   * ahead of what the writer queues for that phase during its poll (the next group's write), so the next slice is
   * queued from that phase instead, behind the writer's work, with a poll phase for I/O in between.
   */
  private yieldTurn(): void {
    this.nextSlice = setImmediate(() => {
      this.nextSlice = setImmediate(() => this.fanOut());
    });
  }

  async publish(channel: string, data: unknown): Promise<StreamPosition> {
    return this.publishNow(channel, data);
  }

  async subscribe(channel: string, subscriber: Subscriber): Promise<void> {
    let subs = this.subscribers.get(channel);
    if (!subs) this.subscribers.set(channel, (subs = new Set()));
    subs.add(subscriber);
    this.stream(channel); // recorded from now on: the subscriber is about to be given a position in it
  }

  async unsubscribe(channel: string, subscriber: Subscriber): Promise<void> {
    const subs = this.subscribers.get(channel);
    if (!subs) return;
    subs.delete(subscriber);
    if (subs.size > 0) return;
    this.subscribers.delete(channel);
    // The leaver holds a position in the stream: it stays recorded, and its idleness counts from now.
    this.streams.get(channel)?.touch(this.now());
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
    for (const [channel, stream] of this.streams) {
      stream.expire(now);
      if (!this.subscribers.has(channel) && now - stream.lastActiveAt >= this.idleTtl(stream)) this.streams.delete(channel);
    }
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
    if (this.nextSlice) clearImmediate(this.nextSlice);
    this.nextSlice = undefined;
    this.fanouts = [];
    this.fanoutHead = 0;
    this.waiting.clear();
    this.subscribers.clear();
  }
}
