// Broker on Redis, for realtime nodes in several processes or machines (the shape of Centrifugo's Redis engine):
// per channel a meta hash (epoch `e`, top offset `s`) and a stream of its retained publications (entry id = offset,
// fields `t` = time published, `p` = the encoded publication); one Lua script per publication numbers, records and
// PUBLISHes it atomically, so every node sees the same offsets in the same order; a node SUBSCRIBEs to a channel only
// while it has local subscribers and hands what arrives to its hub.
// Redis losing data (a restart without persistence, an eviction) loses a channel's meta: the next publication or
// subscription starts the stream again under a new epoch, so positions in the old one fail to recover instead of
// skipping a gap. A node that sees a channel's publications arrive out of sequence (its subscription connection
// dropped and reconnected, or the epoch changed) reports the channel through `onGap`; its clients reconnect and
// recover from the stream, exactly or with `recovered: false`.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { StreamPosition } from './protocol.js';
import { publicationParts, type Broker, type HistoryPolicy, type HistoryQuery, type HistoryResult } from './broker.js';
import { Hub, type Subscriber } from './hub.js';
import { RedisScript } from '../store/redis-script.js';

/** KEYS: stream, meta. ARGV: data JSON, history size, stream TTL ms, meta TTL ms (0: none), new epoch, PUB/SUB channel, now ms. */
const PUBLISH = `
local epoch = redis.call('hget', KEYS[2], 'e')
if not epoch then
  epoch = ARGV[5]
  redis.call('hset', KEYS[2], 'e', epoch)
  redis.call('del', KEYS[1])
end
local offset = redis.call('hincrby', KEYS[2], 's', 1)
local pub = '{"data":' .. ARGV[1] .. ',"offset":' .. offset .. '}'
if tonumber(ARGV[2]) > 0 then
  redis.call('xadd', KEYS[1], 'MAXLEN', ARGV[2], offset .. '-0', 't', ARGV[7], 'p', pub)
  redis.call('pexpire', KEYS[1], ARGV[3])
end
if tonumber(ARGV[4]) > 0 then redis.call('pexpire', KEYS[2], ARGV[4]) end
redis.call('publish', ARGV[6], epoch .. ' ' .. pub)
return {offset, epoch}
`;

/**
 * KEYS: stream, meta. ARGV: new epoch, meta TTL ms (0: none), '1' to start the stream when it has none, the offset to
 * read after ('-1': all retained). Answers {top, epoch or false, entries up to top}.
 */
const POSITION = `
local epoch = redis.call('hget', KEYS[2], 'e')
if not epoch then
  if ARGV[3] ~= '1' then return {0, false, {}} end
  epoch = ARGV[1]
  redis.call('hset', KEYS[2], 'e', epoch, 's', 0)
  redis.call('del', KEYS[1])
end
if tonumber(ARGV[2]) > 0 then redis.call('pexpire', KEYS[2], ARGV[2]) end
local top = tonumber(redis.call('hget', KEYS[2], 's') or '0')
local after = tonumber(ARGV[4])
local entries = {}
if after < top then entries = redis.call('xrange', KEYS[1], (after + 1) .. '-0', top .. '-0') end
return {top, epoch, entries}
`;

type StreamEntry = [id: string, fields: string[]];

interface Start {
  ready: Promise<void>;
  /** Messages that arrived meanwhile, in order. */
  queued: string[];
}

export interface RedisBrokerOptions {
  /** Commands and scripts. The broker owns both connections and closes them. */
  redis: Redis;
  /** A second connection in subscriber mode (Redis allows nothing else on it). */
  subscriber: Redis;
  policy: HistoryPolicy;
  now: () => number;
  /** Key and PUB/SUB prefix: several exchanges can share one Redis. */
  prefix?: string;
  onSubscriberError?: (err: unknown) => void;
  onOversize?: (channel: string, bytes: number) => void;
  /** This node missed publications of the channel; its local subscribers must recover from the stream. */
  onGap?: (channel: string) => void;
  sliceMs?: number;
}

const publishScript = new RedisScript(PUBLISH);
const positionScript = new RedisScript(POSITION);

export class RedisBroker implements Broker {
  readonly epoch = randomBytes(4).toString('hex');
  private epochsMade = 0;
  private readonly hub: Hub;
  private readonly prefix: string;
  /** Per channel subscribed on this node: the epoch and offset of the last publication it delivered. */
  private readonly seen = new Map<string, StreamPosition>();
  /** Channels whose first local subscriber's SUBSCRIBE and position read are under way. */
  private readonly starting = new Map<string, Start>();
  private readonly onMessage = (pubsubChannel: string, message: string) => this.received(pubsubChannel, message);

  constructor(private readonly opts: RedisBrokerOptions) {
    this.prefix = opts.prefix ?? 'oddex';
    this.hub = new Hub(opts.onSubscriberError, opts.policy.maxPublicationBytes, opts.sliceMs);
    opts.subscriber.on('message', this.onMessage);
  }

  // Keys of one channel share a hash tag, so they live on one node of a Redis cluster.
  private streamKey(channel: string): string {
    return `${this.prefix}:stream:{${channel}}`;
  }
  private metaKey(channel: string): string {
    return `${this.prefix}:meta:{${channel}}`;
  }
  private pubsubChannel(channel: string): string {
    return `${this.prefix}:pub:${channel}`;
  }

  private newEpoch(): string {
    return `${this.epoch}-${(++this.epochsMade).toString(36)}`;
  }

  /** How long a channel's position outlives its last publication: as long as the memory broker keeps an idle stream. */
  private get metaTtlMs(): number {
    const idle = this.opts.policy.idleStreamTtlMs;
    return idle === undefined || !Number.isFinite(idle) ? 0 : Math.max(idle, this.opts.policy.ttlMs);
  }

  /** Any node may have subscribers or clients holding positions: every publication is recorded. */
  interested(): boolean {
    return true;
  }

  async publish(channel: string, data: unknown): Promise<StreamPosition> {
    const { policy, now, redis } = this.opts;
    const parts = publicationParts(channel, data, policy, (bytes) => this.opts.onOversize?.(channel, bytes));
    if (parts.length === 0) return this.position(channel);
    const stream = this.streamKey(channel);
    const meta = this.metaKey(channel);
    const size = policy.size(channel);
    // Sent back to back on one connection: Redis runs them in this order, so the parts keep theirs.
    const replies = await Promise.all(
      parts.map((dataJson) =>
        publishScript.run(redis, [stream, meta], [dataJson, size, policy.ttlMs, this.metaTtlMs, this.newEpoch(), this.pubsubChannel(channel), now()]),
      ),
    );
    const [offset, epoch] = replies[replies.length - 1] as [number, string];
    return { offset, epoch };
  }

  private async position(channel: string): Promise<StreamPosition> {
    const { top, epoch } = await this.readPosition(channel, true, -1);
    return { offset: top, epoch: epoch ?? '' };
  }

  async subscribe(channel: string, subscriber: Subscriber): Promise<void> {
    if (!this.hub.add(channel, subscriber)) {
      await this.starting.get(channel)?.ready; // the first local subscriber's start is still under way
      return;
    }
    const start: Start = { queued: [], ready: this.startChannel(channel) };
    this.starting.set(channel, start);
    try {
      await start.ready;
    } catch (err) {
      this.hub.remove(channel, subscriber);
      throw err;
    } finally {
      this.starting.delete(channel);
      for (const message of start.queued) this.received(this.pubsubChannel(channel), message);
    }
  }

  /** SUBSCRIBE, then read the position: publications from then on arrive here, and are checked against it. */
  private async startChannel(channel: string): Promise<void> {
    await this.opts.subscriber.subscribe(this.pubsubChannel(channel));
    this.seen.set(channel, await this.position(channel));
  }

  async unsubscribe(channel: string, subscriber: Subscriber): Promise<void> {
    if (!this.hub.remove(channel, subscriber)) return;
    this.seen.delete(channel);
    await this.opts.subscriber.unsubscribe(this.pubsubChannel(channel));
  }

  private received(pubsubChannel: string, message: string): void {
    const head = `${this.prefix}:pub:`;
    if (!pubsubChannel.startsWith(head)) return;
    const channel = pubsubChannel.slice(head.length);
    const space = message.indexOf(' ');
    const epoch = message.slice(0, space);
    const pubJson = message.slice(space + 1);
    const offset = Number(/,"offset":(\d+)}$/.exec(pubJson)?.[1]);
    // Arrived between SUBSCRIBE and the position read (on another connection): judged once the position is known.
    const starting = this.starting.get(channel);
    if (starting) {
      starting.queued.push(message);
      return;
    }
    const last = this.seen.get(channel);
    if (!last || !this.hub.has(channel)) return;
    // A publication before the position read at subscribe time is already covered by it.
    if (epoch === last.epoch && offset <= last.offset) return;
    this.seen.set(channel, { epoch, offset });
    if (epoch !== last.epoch || offset !== last.offset + 1) {
      this.opts.onGap?.(channel);
      return;
    }
    this.hub.deliver(channel, offset, pubJson);
  }

  /** The channel's top offset and epoch (null: no stream, unless `start`), and its retained entries after `after`. */
  private async readPosition(channel: string, start: boolean, after: number): Promise<{ top: number; epoch: string | null; entries: StreamEntry[] }> {
    const reply = (await positionScript.run(this.opts.redis, [this.streamKey(channel), this.metaKey(channel)], [
      this.newEpoch(),
      this.metaTtlMs,
      start ? '1' : '0',
      after,
    ])) as [number, string | null, StreamEntry[]];
    // Lua's false arrives as null.
    return { top: reply[0], epoch: reply[1], entries: reply[2] };
  }

  async history(channel: string, query: HistoryQuery): Promise<HistoryResult> {
    const after = query.since ? query.since.offset : -1;
    const { top, epoch, entries } = await this.readPosition(channel, false, Math.max(-1, after));
    const result = (publications: string[], complete: boolean): HistoryResult => ({
      publications,
      complete,
      offset: top,
      epoch: epoch ?? `${this.epoch}-0`,
    });
    const oldestKept = this.opts.now() - this.opts.policy.ttlMs;
    const live = entries.filter(([, fields]) => Number(fieldOf(fields, 't')) > oldestKept);
    let pubs = live.map(([, fields]) => fieldOf(fields, 'p'));
    if (query.since) {
      // An empty epoch means "any epoch" to the client library (it sends one only when it has it).
      if (epoch === null || (query.since.epoch !== '' && query.since.epoch !== epoch)) return result([], false);
      if (query.since.offset > top) return result([], false);
      const first = live[0] ? Number(live[0][0].split('-')[0]) : top + 1;
      // Served only when history still holds every publication after the position, never a partial suffix.
      if (top - query.since.offset !== live.length || (live.length > 0 && first !== query.since.offset + 1)) return result([], false);
    }
    if (query.limit === 0) return result([], true);
    if (query.reverse) pubs = pubs.reverse();
    if (query.limit > 0 && pubs.length > query.limit) pubs = pubs.slice(0, query.limit);
    return result(pubs, true);
  }

  /** History lives in Redis, not in this process. */
  retained(): { streams: number; bytes: number } {
    return { streams: 0, bytes: 0 };
  }

  async close(): Promise<void> {
    this.opts.subscriber.off('message', this.onMessage);
    this.hub.close();
    this.seen.clear();
    this.opts.subscriber.disconnect();
    this.opts.redis.disconnect();
  }
}

function fieldOf(fields: string[], name: string): string {
  for (let i = 0; i < fields.length; i += 2) if (fields[i] === name) return fields[i + 1]!;
  return '';
}
