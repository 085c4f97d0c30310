// This node's side of a channel: its local subscribers and the sliced socket fan-out of what the broker publishes to
// them. The broker (memory or Redis) decides offsets and keeps history; the hub only delivers, in offset order.
import { encodePublicationPush } from './protocol.js';
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
 * A publication's socket writes go out in slices of at most `sliceMs`, so 5,000 subscribers on a book never hold the
 * writer for more than a slice. Between two slices the hub gives up a whole event-loop turn: the I/O that arrived
 * meanwhile (requests, a commit's sync completing, hence its replies) and the writer's own check-phase work (writing
 * the next group) all run before the next slice, so each step of a command waits for at most the one slice under way
 * when it became ready. Publications reach each subscriber in the order they were delivered to the hub.
 */
export class Hub {
  private readonly subscribers = new Map<string, Set<Subscriber>>();
  private fanouts: (Fanout | undefined)[] = [];
  private fanoutHead = 0;
  /** Per channel, the queued fan-out not yet started, which the channel's next publication joins. */
  private readonly waiting = new Map<string, Fanout>();
  private nextSlice: NodeJS.Immediate | undefined;

  constructor(
    private readonly onSubscriberError: (err: unknown) => void = () => {},
    /** Bound of one joined write: a single publication's bound, so it fits any subscriber's queue the same way. */
    private readonly maxPublicationBytes = Infinity,
    private readonly sliceMs = DEFAULT_SLICE_MS,
  ) {}

  /** Adds a local subscriber; true when it is the channel's first on this node. */
  add(channel: string, subscriber: Subscriber): boolean {
    let subs = this.subscribers.get(channel);
    const first = !subs;
    if (!subs) this.subscribers.set(channel, (subs = new Set()));
    subs.add(subscriber);
    return first;
  }

  /** Removes a local subscriber; true when it was the channel's last on this node. */
  remove(channel: string, subscriber: Subscriber): boolean {
    const subs = this.subscribers.get(channel);
    if (!subs) return false;
    subs.delete(subscriber);
    if (subs.size > 0) return false;
    this.subscribers.delete(channel);
    return true;
  }

  has(channel: string): boolean {
    return this.subscribers.has(channel);
  }

  /** Channels with local subscribers. */
  channels(): IterableIterator<string> {
    return this.subscribers.keys();
  }

  /** Hands a numbered, encoded publication (`{"data":...,"offset":n}`) to the channel's local subscribers. */
  deliver(channel: string, offset: number, pubJson: string): void {
    const subs = this.subscribers.get(channel);
    if (!subs || subs.size === 0) return;
    this.enqueue({ channel, offset, pubJson, frame: textFrame(encodePublicationPush(channel, pubJson)) });
    if (!this.nextSlice) this.fanOut();
  }

  /** Publications still reaching their subscribers (tests). */
  get pending(): number {
    return this.fanouts.length - this.fanoutHead;
  }

  /**
   * Queues a publication for fan-out. When fan-outs fall behind (5,000 subscribers cost more than the time between
   * two commits), publications of a channel that wait join one fan-out: each subscriber gets them in one write, so
   * the cost of a round over the subscribers is paid once for all of them and delivery catches up.
   */
  private enqueue(delivery: Delivery): void {
    const bytes = delivery.frame.length;
    const joinable = this.waiting.get(delivery.channel);
    const limit = Math.min(MAX_JOINED_BYTES, this.maxPublicationBytes);
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
      this.fanouts[this.fanoutHead++] = undefined; // let the frame go
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

  close(): void {
    if (this.nextSlice) clearImmediate(this.nextSlice);
    this.nextSlice = undefined;
    this.fanouts = [];
    this.fanoutHead = 0;
    this.waiting.clear();
    this.subscribers.clear();
  }
}
