// Broker on Redis, for realtime nodes in several processes or machines (the shape of Centrifugo's Redis engine):
// per channel a meta hash (epoch `e`, top offset `s`) and a stream of its retained publications (entry id = offset,
// fields `t` = time published, `p` = the encoded publication); one Lua script per publication numbers, records and
// PUBLISHes it atomically, so every node sees the same offsets in the same order; a node SUBSCRIBEs to a channel only
// while it has local subscribers and hands what arrives to its hub.
// Redis losing data (a restart without persistence, an eviction) loses a channel's meta: the next publication or
// subscription starts the stream again under a new epoch, so positions in the old one fail to recover instead of
// skipping a gap. PUB/SUB delivers at most once: what is published while a node's subscription connection is down
// (Redis dropped it past its output buffer limit, a network cut) never reaches that node. So a node checks each of its
// channels against the stream whenever that connection comes back, and whenever a publication arrives out of
// sequence: what it missed is read from the stream and delivered in order, holding back what arrives meanwhile. Only
// when the stream no longer holds it (a channel without history, trimmed, another epoch) is the channel reported
// through `onGap`; its clients reconnect and recover from the stream, exactly or with `recovered: false`. Either
// way, a missed publication is never skipped silently, even when no later one comes to reveal it. A publication lost
// before it was numbered (the exchange could not prepare or publish it) restarts its channel's stream: its meta goes,
// and a notice on its PUB/SUB channel has every node report the gap.
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
 * read after ('-1': all retained; 'none': no entries, the position alone). Answers {top, epoch or false, entries up to top}.
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
if after and after < top then entries = redis.call('xrange', KEYS[1], (after + 1) .. '-0', top .. '-0') end
return {top, epoch, entries}
`;

type StreamEntry = [id: string, fields: string[]];

/** A channel's delivery held back while its position is read (first local subscriber, or catching up). */
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

/** Sent on a channel's PUB/SUB channel once its stream was started again: never a publication (those begin with an epoch). */
const RESTARTED = '!restarted';
/** How long a closing broker waits for Redis to take the publications it was handed. */
const CLOSE_WAIT_MS = 2000;

const publishScript = new RedisScript(PUBLISH);
const positionScript = new RedisScript(POSITION);

export class RedisBroker implements Broker {
  readonly epoch = randomBytes(4).toString('hex');
  readonly streamsOutliveProcess = true;
  private epochsMade = 0;
  private readonly hub: Hub;
  private readonly prefix: string;
  /** Per channel subscribed on this node: the epoch and offset of the last publication it delivered. */
  private readonly seen = new Map<string, StreamPosition>();
  /** Channels whose first local subscriber's SUBSCRIBE and position read are under way. */
  private readonly starting = new Map<string, Start>();
  private readonly onMessage = (pubsubChannel: string, message: string) => this.received(pubsubChannel, message);
  private readonly onReady = () => void this.resubscribed();

  constructor(private readonly opts: RedisBrokerOptions) {
    this.prefix = opts.prefix ?? 'oddex';
    this.hub = new Hub(opts.onSubscriberError, opts.policy.maxPublicationBytes, opts.sliceMs);
    opts.subscriber.on('message', this.onMessage);
    opts.subscriber.on('ready', this.onReady);
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

  /** Both connections are up: commands and scripts, and the subscriptions publications arrive on. */
  reachable(): boolean {
    return this.opts.redis.status === 'ready' && this.opts.subscriber.status === 'ready';
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
    const { top, epoch } = await this.readPosition(channel, true, 'none');
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
      this.release(channel, start);
    }
  }

  /** Ends a hold on the channel's delivery and hands on what arrived meanwhile. */
  private release(channel: string, start: Start): void {
    if (this.starting.get(channel) === start) this.starting.delete(channel);
    for (const message of start.queued) this.received(this.pubsubChannel(channel), message);
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
    if (message === RESTARTED) {
      // Behind a start under way it waits its turn, as a publication would; its subscribers then learn it.
      const starting = this.starting.get(channel);
      if (starting) starting.queued.push(message);
      else if (this.seen.has(channel) && this.hub.has(channel)) {
        this.seen.set(channel, { epoch: RESTARTED, offset: 0 });
        this.opts.onGap?.(channel);
      }
      return;
    }
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
    if (epoch !== last.epoch) {
      this.seen.set(channel, { epoch, offset });
      // The first publication of a stream started again after its gap was reported: nothing of it was missed.
      if (last.epoch === RESTARTED && offset === 1) return this.hub.deliver(channel, offset, pubJson);
      this.opts.onGap?.(channel);
      return;
    }
    // Some went missing on the way: read them from the stream, this one waiting behind them.
    if (offset !== last.offset + 1) return this.catchUp(channel, message);
    this.seen.set(channel, { epoch, offset });
    this.hub.deliver(channel, offset, pubJson);
  }

  /**
   * The subscription connection is (again) ready: ioredis has sent SUBSCRIBE for every channel, but whatever was
   * published while it was down is lost to PUB/SUB. Each channel is checked against its stream.
   */
  private async resubscribed(): Promise<void> {
    const channels = [...this.seen.keys()];
    if (channels.length === 0) return;
    try {
      // Acknowledged after ioredis's own SUBSCRIBE (one connection answers in order): from here on, every
      // publication reaches this node, so a position read now leaves nothing unaccounted for.
      await this.opts.subscriber.subscribe(...channels.map((c) => this.pubsubChannel(c)));
    } catch {
      return; // down again: the next ready checks
    }
    for (const channel of channels) {
      if (this.seen.has(channel)) this.catchUp(channel);
      // Its last local subscriber left while this SUBSCRIBE was on its way: leave it again.
      else if (!this.hub.has(channel)) void this.opts.subscriber.unsubscribe(this.pubsubChannel(channel)).catch(() => {});
    }
  }

  /**
   * Delivers what this node has not seen of the channel up to the stream's top, from the stream, holding back what
   * arrives meanwhile (`pending`: the out-of-sequence message that revealed the gap). When the stream no longer has
   * every missed publication, or its epoch changed, the channel's subscribers are told through onGap instead.
   */
  private catchUp(channel: string, pending?: string): void {
    const held = this.starting.get(channel);
    if (held) {
      // A message waits behind the position read under way. A reconnect's check cannot: that read may have been
      // answered before what the connection lost, so the channel is checked again once it is done.
      if (pending !== undefined) held.queued.push(pending);
      else void held.ready.catch(() => {}).then(() => this.seen.has(channel) && this.catchUp(channel));
      return;
    }
    const last = this.seen.get(channel);
    if (!last) return;
    const start: Start = { queued: pending === undefined ? [] : [pending], ready: Promise.resolve() };
    this.starting.set(channel, start);
    start.ready = (async () => {
      try {
        const { top, epoch, entries } = await this.readPosition(channel, false, last.offset);
        if (this.seen.get(channel) !== last || !this.hub.has(channel)) return; // unsubscribed meanwhile
        const missed = entries.map(([id, fields]) => ({ offset: Number(id.split('-')[0]), pubJson: fieldOf(fields, 'p') }));
        const whole = epoch === last.epoch && missed.length === top - last.offset && missed.every((m, i) => m.offset === last.offset + 1 + i);
        this.seen.set(channel, { epoch: epoch ?? last.epoch, offset: Math.max(top, last.offset) });
        if (!whole) return this.opts.onGap?.(channel);
        for (const m of missed) this.hub.deliver(channel, m.offset, m.pubJson);
      } catch {
        if (this.seen.get(channel) === last) this.opts.onGap?.(channel); // cannot tell what was missed
      } finally {
        this.release(channel, start);
      }
    })();
  }

  /**
   * The channel's top offset and epoch (null: no stream, unless `start`), and its retained entries after `after`
   * ('none': the position alone, whatever the stream holds).
   */
  private async readPosition(channel: string, start: boolean, after: number | 'none'): Promise<{ top: number; epoch: string | null; entries: StreamEntry[] }> {
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
    // A subscribe asks for the position alone (limit 0): the stream's entries are not read, however many it keeps.
    const after = query.since ? Math.max(-1, query.since.offset) : query.limit === 0 ? 'none' : -1;
    const { top, epoch, entries } = await this.readPosition(channel, false, after);
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

  async restartStreams(channels: readonly string[] | 'all'): Promise<void> {
    const redis = this.opts.redis;
    for (const channel of channels === 'all' ? await this.recordedChannels() : channels) {
      // Without its meta, the channel's next publication or subscription starts a stream under a new epoch.
      await redis.del(this.streamKey(channel), this.metaKey(channel));
      // Nodes with subscribers learn it now, not at the channel's next publication (which may never come).
      await redis.publish(this.pubsubChannel(channel), RESTARTED);
    }
  }

  /** The channels with a stream under this prefix. */
  private async recordedChannels(): Promise<string[]> {
    const head = `${this.prefix}:meta:{`;
    const channels: string[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await this.opts.redis.scan(cursor, 'MATCH', `${this.prefix}:meta:*`, 'COUNT', 1000);
      cursor = next;
      for (const key of keys) if (key.startsWith(head) && key.endsWith('}')) channels.push(key.slice(head.length, -1));
    } while (cursor !== '0');
    return channels;
  }

  /** History lives in Redis, not in this process. */
  retained(): { streams: number; bytes: number } {
    return { streams: 0, bytes: 0 };
  }

  async close(): Promise<void> {
    this.opts.subscriber.off('message', this.onMessage);
    this.opts.subscriber.off('ready', this.onReady);
    this.hub.close();
    this.seen.clear();
    this.opts.subscriber.disconnect();
    // QUIT is answered after the publications sent before it (also those still queued for a connection under way),
    // so they reach their streams. Bounded, for a Redis that is gone.
    const quit = this.opts.redis.quit().catch(() => {});
    await Promise.race([quit, new Promise((resolve) => setTimeout(resolve, CLOSE_WAIT_MS).unref())]);
    this.opts.redis.disconnect();
  }
}

function fieldOf(fields: string[], name: string): string {
  for (let i = 0; i < fields.length; i += 2) if (fields[i] === name) return fields[i + 1]!;
  return '';
}
