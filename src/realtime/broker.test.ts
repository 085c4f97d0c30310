import { describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { ChannelStream } from './stream.js';
import { MemoryBroker, StreamRestarts, type Broker } from './broker.js';
import { SUBSCRIBERS_PER_CLOCK_READ, type Delivery } from './hub.js';
import { HISTORY_SIZE, parseChannel } from './channels.js';
import { framePayload, textFrame } from './ws-frame.js';
import { brokerContract, CONTRACT_POLICY } from '../../test/helpers/broker-contract.js';
import { encodePublicationPush } from './protocol.js';

const enc = (tag: string) => (o: number) => `{"data":"${tag}","offset":${o}}`;

describe('ChannelStream', () => {
  it('keeps offsets contiguous and serves exactly the publications after an offset while history covers them', () => {
    const s = new ChannelStream('e', 3, 1000);
    for (const t of ['a', 'b', 'c', 'd']) s.append(enc(t), 0);
    expect(s.top).toBe(4);
    // Capacity 3 keeps offsets 2..4.
    expect(s.after(1, 0)).toEqual([enc('b')(2), enc('c')(3), enc('d')(4)]);
    expect(s.after(3, 0)).toEqual([enc('d')(4)]);
    expect(s.after(4, 0)).toEqual([]);
    expect(s.after(0, 0)).toBeUndefined(); // publication 1 was dropped
    expect(s.after(5, 0)).toBeUndefined(); // ahead of the stream
  });

  it('drops publications older than the retention', () => {
    const s = new ChannelStream('e', 100, 1000);
    s.append(enc('a'), 0);
    s.append(enc('b'), 500);
    expect(s.after(0, 999)).toHaveLength(2);
    expect(s.after(0, 1000)).toBeUndefined(); // 'a' expired: a recovery from 0 would miss it
    expect(s.after(1, 1000)).toEqual([enc('b')(2)]);
    expect(s.after(1, 1500)).toBeUndefined();
    expect(s.after(2, 1500)).toEqual([]); // nothing missed, nothing needed
  });

  it('never answers partially: after(k) is either the exact suffix or undefined (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 60 }), (cap, n, k) => {
        const s = new ChannelStream('e', cap, 1e9);
        for (let i = 0; i < n; i++) s.append(enc(String(i + 1)), 0);
        const got = s.after(k, 0);
        const covered = k <= n && k >= n - cap;
        if (!covered) return got === undefined;
        return JSON.stringify(got) === JSON.stringify(Array.from({ length: n - k }, (_, i) => enc(String(k + i + 1))(k + i + 1)));
      }),
    );
  });
});

describe('MemoryBroker', () => {
  const policy = { size: (ch: string) => (ch.startsWith('h:') ? 2 : 0), ttlMs: 60_000 };

  it('encodes a publication once: every subscriber gets the same Buffer', async () => {
    const b = new MemoryBroker(policy, () => 0);
    const got: Delivery[] = [];
    await b.subscribe('h:x', (d) => got.push(d));
    await b.subscribe('h:x', (d) => got.push(d));
    expect(await b.publish('h:x', [{ a: 1 }])).toEqual({ offset: 1, epoch: `${b.epoch}-1` });
    expect(got).toHaveLength(2);
    expect(got[0]!.frame).toBe(got[1]!.frame);
    expect(framePayload(got[0]!.frame).toString()).toBe('{"push":{"channel":"h:x","pub":{"data":[{"a":1}],"offset":1}}}');
  });

  it('history: all, since a position, limit, reverse, and failure for another epoch or an uncovered gap', async () => {
    const b = new MemoryBroker(policy, () => 0);
    await b.subscribe('h:x', () => {});
    await b.subscribe('n:x', () => {});
    const epoch = (await b.history('h:x', { limit: 0 })).epoch;
    for (let i = 1; i <= 3; i++) await b.publish('h:x', i);
    const pub = (i: number) => `{"data":${i},"offset":${i}}`;
    expect(await b.history('h:x', { limit: -1 })).toEqual({ publications: [pub(2), pub(3)], complete: true, offset: 3, epoch });
    expect((await b.history('h:x', { limit: -1, reverse: true })).publications).toEqual([pub(3), pub(2)]);
    expect((await b.history('h:x', { limit: 1 })).publications).toEqual([pub(2)]);
    expect((await b.history('h:x', { limit: 0 })).publications).toEqual([]);
    expect((await b.history('h:x', { limit: -1, since: { offset: 2, epoch } })).publications).toEqual([pub(3)]);
    expect((await b.history('h:x', { limit: -1, since: { offset: 0, epoch } })).complete).toBe(false);
    expect((await b.history('h:x', { limit: -1, since: { offset: 2, epoch: 'other' } })).complete).toBe(false);
    expect((await b.history('h:x', { limit: -1, since: { offset: 2, epoch: b.epoch } })).complete).toBe(false); // another stream's
    // No history kept: positions still advance.
    await b.publish('n:x', 1);
    expect(await b.history('n:x', { limit: -1 })).toMatchObject({ publications: [], complete: true, offset: 1 });
  });

  it('a throwing subscriber does not keep the others from their publication', async () => {
    const errors: unknown[] = [];
    const b = new MemoryBroker(policy, () => 0, (e) => errors.push(e));
    const got: number[] = [];
    await b.subscribe('c', () => {
      throw new Error('boom');
    });
    await b.subscribe('c', (d) => got.push(d.offset));
    await b.publish('c', 1);
    expect(got).toEqual([1]);
    expect(errors).toHaveLength(1);
  });

  it('fans a publication out in slices, one per turn, and keeps offset order for every subscriber', async () => {
    // sliceMs 0: each slice ends at the first clock read.
    const b = new MemoryBroker(policy, () => 0, undefined, undefined, 0);
    const got = new Map<number, number[]>();
    const unsubscribeLater: ((d: Delivery) => void)[] = [];
    for (let i = 0; i < 300; i++) {
      const sub = (d: Delivery) => got.set(i, [...(got.get(i) ?? []), d.offset]);
      if (i >= 290) unsubscribeLater.push(sub);
      await b.subscribe('h:x', sub);
    }
    const position = await b.publish('h:x', 'first');
    // Numbered and in history at once; one slice of subscribers served in this turn, the rest later.
    expect(position.offset).toBe(1);
    expect((await b.history('h:x', { limit: -1 })).publications).toEqual(['{"data":"first","offset":1}']);
    expect(got.size).toBe(SUBSCRIBERS_PER_CLOCK_READ);
    expect(b.fanoutsPending).toBe(1);
    await b.publish('h:x', 'second');
    expect(got.size).toBe(SUBSCRIBERS_PER_CLOCK_READ); // queued behind the first, not written ahead of it
    for (const sub of unsubscribeLater) await b.unsubscribe('h:x', sub);
    while (b.fanoutsPending > 0) await new Promise((resolve) => setImmediate(resolve));
    expect(got.size).toBe(290);
    for (const offsets of got.values()) expect(offsets).toEqual([1, 2]);
  });

  it('runs the writer work queued while a fan-out is under way before the next slice of the fan-out', async () => {
    // sliceMs 0: a slice is one clock read. The runner queues its next group's write with setImmediate; it must
    // not find another slice of socket writes queued ahead of it.
    const b = new MemoryBroker(policy, () => 0, undefined, undefined, 0);
    let served = 0;
    for (let i = 0; i < 200; i++) await b.subscribe('h:x', () => served++);
    b.publishNow('h:x', 'first');
    expect(served).toBe(SUBSCRIBERS_PER_CLOCK_READ);
    const servedWhenWriterRan = await new Promise<number>((resolve) => setImmediate(() => resolve(served)));
    expect(servedWhenWriterRan).toBe(SUBSCRIBERS_PER_CLOCK_READ);
    // The writer's commit fans out too: queued behind the first publication, not ahead of it.
    b.publishNow('h:x', 'second');
    expect(served).toBe(SUBSCRIBERS_PER_CLOCK_READ);
    while (b.fanoutsPending > 0) await new Promise((resolve) => setImmediate(resolve));
    expect(served).toBe(400);
  });

  it('joins publications of a channel that queue behind a fan-out into one delivery, the same bytes for all', async () => {
    const b = new MemoryBroker({ ...policy, maxPublicationBytes: 400 }, () => 0, undefined, undefined, 0);
    const got = new Map<number, Delivery[]>();
    for (let i = 0; i < 200; i++) await b.subscribe('h:x', (d) => got.set(i, [...(got.get(i) ?? []), d]));
    const other: number[][] = [];
    await b.subscribe('h:y', (d) => other.push((d.parts ?? [d]).map((p) => p.offset)));
    for (let n = 1; n <= 9; n++) {
      b.publishNow('h:x', `p${n}`); // 1: one slice of subscribers served at once, the rest after a turn
      b.publishNow('h:y', `p${n}`); // queued between them: joins do not wait for the other channel
    }
    while (b.fanoutsPending > 0) await new Promise((resolve) => setImmediate(resolve));
    const alone = (n: number) => textFrame(encodePublicationPush('h:x', `{"data":"p${n}","offset":${n}}`));
    // Frames of 59 bytes: 6 fit the 400-byte bound, so 2..7 go together and 8..9 after them.
    expect(alone(2).length).toBe(59);
    const first = got.get(0)!;
    for (const deliveries of got.values()) {
      expect(deliveries.map((d) => (d.parts ?? [d]).map((p) => p.offset))).toEqual([[1], [2, 3, 4, 5, 6, 7], [8, 9]]);
      deliveries.forEach((d, k) => {
        const offsets = (d.parts ?? [d]).map((p) => p.offset);
        expect(d.frame).toEqual(Buffer.concat(offsets.map(alone))); // the single frames back to back
        expect(d.frame).toBe(first[k]!.frame); // built once for every subscriber
        expect(d.offset).toBe(offsets.at(-1));
      });
    }
    expect(other).toEqual([[1, 2, 3, 4, 5, 6], [7, 8, 9]]);
  });

  it('delivers at once when the fan-out fits in a slice and nothing is queued', async () => {
    const b = new MemoryBroker(policy, () => 0);
    const got: number[] = [];
    for (let i = 0; i < 10; i++) await b.subscribe('h:x', (d) => got.push(d.offset));
    b.publishNow('h:x', 1);
    expect(got).toHaveLength(10);
    expect(b.fanoutsPending).toBe(0);
  });

  it('bounds a channel history by bytes as well as count: 2,000 publications of ~1 KB keep at most 64 KB', async () => {
    const b = new MemoryBroker({ size: () => 1000, ttlMs: 60_000, maxBytes: 65_536 }, () => 0);
    await b.subscribe('h:big', () => {});
    const item = 'x'.repeat(1000);
    for (let i = 0; i < 2000; i++) await b.publish('h:big', [item]);
    const kept = await b.history('h:big', { limit: -1 });
    const bytes = kept.publications.reduce((n, p) => n + Buffer.byteLength(p), 0);
    expect(bytes).toBeLessThanOrEqual(65_536);
    expect(kept.publications).toHaveLength(Math.floor(65_536 / Buffer.byteLength(kept.publications[0]!)));
    expect(kept.publications.at(-1)).toBe(`{"data":["${item}"],"offset":2000}`);
    // A recovery from before the retained bytes is refused, never partial.
    expect((await b.history('h:big', { limit: -1, since: { offset: 1900, epoch: kept.epoch } })).complete).toBe(false);
    expect((await b.history('h:big', { limit: -1, since: { offset: 1999, epoch: kept.epoch } })).complete).toBe(true);
  });

  it('splits an array publication larger than a subscriber queue into ordered parts that each fit', async () => {
    const oversize: [string, number][] = [];
    const b = new MemoryBroker({ size: () => 100, ttlMs: 60_000, maxPublicationBytes: 4096 }, () => 0, undefined, (ch, n) =>
      oversize.push([ch, n]),
    );
    const got: Delivery[] = [];
    await b.subscribe('h:book', (d) => got.push(d));
    const orders = Array.from({ length: 100 }, (_, i) => ({ orderHash: i, pad: 'p'.repeat(200) }));
    const huge = { orderHash: 'huge', pad: 'h'.repeat(5000) };
    const position = await b.publish('h:book', [...orders.slice(0, 50), huge, ...orders.slice(50)]);
    expect(got.length).toBeGreaterThan(5);
    for (const d of got) expect(d.frame.length).toBeLessThanOrEqual(4096);
    expect(got.map((d) => d.offset)).toEqual(got.map((_, i) => i + 1));
    expect(position).toEqual({ offset: got.length, epoch: `${b.epoch}-1` });
    // Every order arrives once, in order; the one element that cannot fit any queue is reported, not sent.
    const delivered = got.flatMap((d) => (JSON.parse(d.pubJson) as { data: { orderHash: number }[] }).data);
    expect(delivered).toEqual(orders);
    expect(oversize).toEqual([['h:book', Buffer.byteLength(JSON.stringify(huge))]]);
    // A non-array publication over the limit is dropped and reported too; the stream does not move.
    await b.publish('h:book', { pad: 'z'.repeat(5000) });
    expect(oversize).toHaveLength(2);
    expect((await b.history('h:book', { limit: 0 })).offset).toBe(got.length);
  });

  it('records a channel from its first subscription on: before it, publications are dropped and cost no stream', async () => {
    const b = new MemoryBroker(policy, () => 0);
    expect(b.interested('h:x')).toBe(false);
    expect(await b.publish('h:x', 'unseen')).toEqual({ offset: 0, epoch: `${b.epoch}-0` });
    // No position handed out for a channel without a stream recovers anything.
    const none = await b.history('h:x', { limit: -1 });
    expect(none).toEqual({ publications: [], complete: true, offset: 0, epoch: `${b.epoch}-0` });
    expect((await b.history('h:x', { limit: -1, since: { offset: 0, epoch: none.epoch } })).complete).toBe(false);
    expect((await b.history('h:x', { limit: -1, since: { offset: 0, epoch: '' } })).complete).toBe(false);

    const sub = () => {};
    await b.subscribe('h:x', sub);
    expect(b.interested('h:x')).toBe(true);
    const start = await b.history('h:x', { limit: 0 });
    expect(start.offset).toBe(0);
    await b.publish('h:x', 'seen');
    await b.unsubscribe('h:x', sub);
    // Still recorded with nobody subscribed: whoever left at offset 0 or 1 recovers exactly what it missed.
    expect(b.interested('h:x')).toBe(true);
    await b.publish('h:x', 'while away');
    expect((await b.history('h:x', { limit: -1, since: { offset: 0, epoch: start.epoch } })).publications).toEqual([
      '{"data":"seen","offset":1}',
      '{"data":"while away","offset":2}',
    ]);
    expect((await b.history('h:x', { limit: -1, since: { offset: 1, epoch: start.epoch } })).publications).toEqual(['{"data":"while away","offset":2}']);

    // A channel without history (best_odds): only its subscribers make it publish.
    await b.subscribe('n:x', sub);
    expect(b.interested('n:x')).toBe(true);
    await b.publish('n:x', 1);
    await b.unsubscribe('n:x', sub);
    expect(b.interested('n:x')).toBe(false);
    expect((await b.publish('n:x', 2)).offset).toBe(1);
  });

  it('keeps recording a stream whose last subscriber leaves before its first publication: the leaver recovers', async () => {
    let now = 0;
    const b = new MemoryBroker({ size: () => 100, ttlMs: 300_000 }, () => now);
    const sub = () => {};
    await b.subscribe('h:x', sub);
    const left = await b.history('h:x', { limit: 0 });
    await b.unsubscribe('h:x', sub);
    expect(b.interested('h:x')).toBe(true);
    now = 60_000; // a minute later, with nobody subscribed
    b.sweep();
    for (const data of ['a', 'b', 'c']) await b.publish('h:x', data);
    expect(await b.history('h:x', { limit: -1, since: { offset: left.offset, epoch: left.epoch } })).toEqual({
      publications: ['{"data":"a","offset":1}', '{"data":"b","offset":2}', '{"data":"c","offset":3}'],
      complete: true,
      offset: 3,
      epoch: left.epoch,
    });
  });

  it('drops a stream that never published one history retention after its last subscriber left', async () => {
    let now = 0;
    const b = new MemoryBroker({ ...policy, ttlMs: 1000, idleStreamTtlMs: 10_000 }, () => now);
    const sub = () => {};
    await b.subscribe('h:x', sub);
    now = 5000; // subscribed until 5 s: the retention counts from the leave, not the opening
    const first = await b.history('h:x', { limit: 0 });
    await b.unsubscribe('h:x', sub);
    now = 5999;
    b.sweep();
    expect(b.retained().streams).toBe(1);
    now = 6000;
    b.sweep();
    expect(b.retained().streams).toBe(0);
    expect(b.interested('h:x')).toBe(false);
    await b.publish('h:x', 'dropped'); // nobody is subscribed and nothing is recorded
    await b.subscribe('h:x', sub);
    const second = await b.history('h:x', { limit: 0 });
    expect(second.epoch).not.toBe(first.epoch);
    // The position of the dropped stream does not pass for one that missed nothing.
    expect((await b.history('h:x', { limit: -1, since: { offset: 0, epoch: first.epoch } })).complete).toBe(false);
    expect((await b.history('h:x', { limit: -1, since: { offset: 0, epoch: second.epoch } })).complete).toBe(true);
  });

  it('keeps at most maxQuietStreams streams that never published and have no subscriber, the longest idle going first', async () => {
    let now = 0;
    const b = new MemoryBroker({ ...policy, ttlMs: 60_000, maxQuietStreams: 2 }, () => now);
    const sub = () => {};
    for (const channel of ['h:a', 'h:b', 'h:c', 'h:d']) {
      now += 100;
      await b.subscribe(channel, sub);
      await b.unsubscribe(channel, sub);
    }
    await b.subscribe('h:e', sub); // subscribed: not quiet
    await b.subscribe('h:p', sub);
    await b.publish('h:p', 'x'); // published: kept for its retention whatever the count
    await b.unsubscribe('h:p', sub);
    b.sweep();
    expect(['h:a', 'h:b', 'h:c', 'h:d', 'h:e', 'h:p'].filter((c) => b.interested(c))).toEqual(['h:c', 'h:d', 'h:e', 'h:p']);
  });

  it('counts a published stream idle from its last subscriber leaving, and keeps it at least one history retention', async () => {
    let now = 0;
    const b = new MemoryBroker({ ...policy, ttlMs: 20_000, idleStreamTtlMs: 10_000 }, () => now);
    const sub = () => {};
    await b.subscribe('h:x', sub);
    const { epoch } = await b.publish('h:x', 'a');
    now = 100_000; // long idle, but subscribed until now
    await b.unsubscribe('h:x', sub);
    now = 119_999;
    b.sweep();
    await b.publish('h:x', 'b');
    expect((await b.history('h:x', { limit: -1, since: { offset: 1, epoch } })).publications).toEqual(['{"data":"b","offset":2}']);
    now = 139_998; // 'b' at 119,999 is the last activity
    b.sweep();
    expect(b.retained().streams).toBe(1);
    now = 139_999;
    b.sweep();
    expect(b.retained().streams).toBe(0);
  });

  describe('sweep', () => {
    // History kept 1 s; a stream nobody subscribes to is kept 10 s after its last publication.
    const swept = { ...policy, ttlMs: 1000, idleStreamTtlMs: 10_000 };
    const bytesOf = (...pubs: string[]) => pubs.reduce((n, p) => n + Buffer.byteLength(p), 0);

    it('releases publications past their retention without a read, and the position still recovers', async () => {
      let now = 0;
      const b = new MemoryBroker(swept, () => now);
      await b.subscribe('h:x', () => {});
      await b.publish('h:x', 'a');
      now = 400;
      const { epoch } = await b.publish('h:x', 'b');
      b.sweep();
      expect(b.retained()).toEqual({ streams: 1, bytes: bytesOf('{"data":"a","offset":1}', '{"data":"b","offset":2}') });
      now = 1000; // 'a' is 1 s old
      b.sweep();
      expect(b.retained()).toEqual({ streams: 1, bytes: bytesOf('{"data":"b","offset":2}') });
      now = 1400;
      b.sweep();
      expect(b.retained()).toEqual({ streams: 1, bytes: 0 });
      // Nothing was missed after offset 2, so that position recovers; an earlier one does not.
      expect(await b.history('h:x', { limit: -1, since: { offset: 2, epoch } })).toEqual({ publications: [], complete: true, offset: 2, epoch });
      expect((await b.history('h:x', { limit: -1, since: { offset: 1, epoch } })).complete).toBe(false);
    });

    it('drops the stream of a channel nobody subscribes to once idle for idleStreamTtlMs; the next has another epoch', async () => {
      let now = 0;
      const b = new MemoryBroker(swept, () => now);
      const sub = () => {};
      await b.subscribe('h:x', sub);
      now = 5000;
      const { epoch } = await b.publish('h:x', 'a'); // the last publication: idle from 5 s on
      await b.unsubscribe('h:x', sub);
      now = 14_999;
      b.sweep();
      expect(b.retained()).toEqual({ streams: 1, bytes: 0 });
      expect(b.interested('h:x')).toBe(true);
      expect((await b.history('h:x', { limit: -1, since: { offset: 1, epoch } })).complete).toBe(true);

      now = 15_000;
      b.sweep();
      expect(b.retained()).toEqual({ streams: 0, bytes: 0 });
      expect(b.interested('h:x')).toBe(false);
      expect((await b.history('h:x', { limit: -1, since: { offset: 1, epoch } })).complete).toBe(false);
      await b.subscribe('h:x', sub);
      const restarted = await b.history('h:x', { limit: 0 });
      expect(restarted.offset).toBe(0);
      expect(restarted.epoch).not.toBe(epoch);
    });

    it('keeps the stream of a subscribed channel however long it is idle, and counts idleness from the last publication', async () => {
      let now = 0;
      const b = new MemoryBroker(swept, () => now);
      const sub = () => {};
      await b.subscribe('h:kept', sub);
      await b.subscribe('h:busy', sub);
      const { epoch } = await b.publish('h:kept', 'a');
      now = 9000;
      await b.publish('h:busy', 'b');
      await b.unsubscribe('h:busy', sub);
      now = 1e9; // long past both TTLs for h:kept, which still has its subscriber
      b.sweep();
      expect(b.retained().streams).toBe(1);
      expect(await b.publish('h:kept', 'c')).toEqual({ offset: 2, epoch });

      // A stream opened by a subscription that never publishes counts from its opening.
      now = 0;
      const c = new MemoryBroker(swept, () => now);
      await c.subscribe('h:quiet', sub);
      now = 9000;
      await c.publish('h:quiet', 'late'); // idle from 9 s on
      await c.unsubscribe('h:quiet', sub);
      now = 18_999;
      c.sweep();
      expect(c.retained().streams).toBe(1);
      now = 19_000;
      c.sweep();
      expect(c.retained().streams).toBe(0);
    });

    it('sweeps on a timer from sweepEvery until closed', async () => {
      vi.useFakeTimers();
      try {
        let now = 0;
        const b = new MemoryBroker(swept, () => now).sweepEvery(500);
        const sub = () => {};
        await b.subscribe('h:x', sub);
        await b.publish('h:x', 'a');
        await b.unsubscribe('h:x', sub);
        now = 10_000;
        vi.advanceTimersByTime(499);
        expect(b.retained().streams).toBe(1);
        vi.advanceTimersByTime(1);
        expect(b.retained()).toEqual({ streams: 0, bytes: 0 });
        await b.subscribe('h:y', sub);
        await b.publish('h:y', 'b');
        await b.unsubscribe('h:y', sub);
        await b.close();
        now = 1e9;
        vi.advanceTimersByTime(10_000);
        expect(vi.getTimerCount()).toBe(0);
      } finally {
        vi.useRealTimers();
      }
    });
  });

  it('each broker (server start) has its own epoch', () => {
    expect(new MemoryBroker(policy, () => 0).epoch).not.toBe(new MemoryBroker(policy, () => 0).epoch);
  });
});

describe('parseChannel', () => {
  const hash = '0x' + 'Ab'.repeat(32);
  it('knows the channels of spec section 6 with canonical spellings and history sizes', () => {
    expect(parseChannel(`order_book:market_${hash}`)).toEqual({ namespace: 'order_book', canonical: `order_book:market_${hash.toLowerCase()}` });
    expect(parseChannel('order_book:event_L1001')).toEqual({ namespace: 'order_book', canonical: 'order_book:event_L1001' });
    expect(parseChannel('active_orders:0x8ba1f109551bd432803012645ac136ddd64dba72')).toEqual({
      namespace: 'active_orders',
      canonical: 'active_orders:0x8ba1f109551bD432803012645Ac136ddd64DBA72',
      owner: '0x8ba1f109551bD432803012645Ac136ddd64DBA72',
    });
    expect(parseChannel('ce_refunds:0x8ba1f109551bd432803012645ac136ddd64dba72')?.canonical).toBe(
      'ce_refunds:0x8ba1f109551bD432803012645Ac136ddd64DBA72',
    );
    for (const g of ['markets', 'main_line', 'best_odds', 'recent_trades', 'recent_trades_consolidated', 'parlay_markets']) {
      expect(parseChannel(`${g}:global`)?.namespace).toBe(g);
    }
    expect(parseChannel('fixtures:live_scores')?.namespace).toBe('fixtures');
    expect(parseChannel('fixtures:global')?.namespace).toBe('fixtures');
    expect(HISTORY_SIZE).toMatchObject({ order_book: 5000, best_odds: 0, parlay_markets: 0, active_orders: 100 });
  });

  it('rejects bad parameters and unknown names', () => {
    for (const bad of [
      'order_book:market_0x12',
      `order_book:market_${hash}0`,
      'order_book:event_',
      'order_book:event_a b',
      'order_book:other',
      'active_orders:0x123',
      'ce_refunds:',
      'markets',
      'markets:other',
      'live_scores:1',
      '',
    ]) {
      expect(parseChannel(bad), bad).toBeUndefined();
    }
  });
});

describe('MemoryBroker keeps the broker contract', () => {
  brokerContract(async (now) => {
    const gaps: string[] = [];
    const b = new MemoryBroker(CONTRACT_POLICY, now, undefined, undefined, undefined, (ch) => gaps.push(ch));
    return { publisher: b, node: b, gaps, close: () => b.close() };
  });
});

describe('StreamRestarts', () => {
  it('tries a refused restart again, gathering the channels asked for meanwhile into one attempt', async () => {
    vi.useFakeTimers();
    try {
      const calls: (readonly string[] | 'all')[] = [];
      let refusals = 2;
      const broker = {
        restartStreams: (channels: readonly string[] | 'all') => {
          calls.push(channels);
          return refusals-- > 0 ? Promise.reject(new Error('redis down')) : Promise.resolve();
        },
      } as unknown as Broker;
      const errors: string[] = [];
      const restarts = new StreamRestarts(broker, { error: (_o, msg) => errors.push(msg) });
      restarts.restart(['a']);
      restarts.restart(['b', 'a']);
      await vi.advanceTimersByTimeAsync(0);
      expect(calls).toEqual([['a']]);
      await vi.advanceTimersByTimeAsync(1000);
      expect(calls).toEqual([['a'], ['a', 'b']]);
      restarts.restart('all');
      await vi.advanceTimersByTimeAsync(1000);
      expect(calls).toEqual([['a'], ['a', 'b'], 'all']);
      await vi.advanceTimersByTimeAsync(5000);
      expect(calls).toHaveLength(3);
      expect(errors).toHaveLength(2);
      // Stopped (the broker closes): a refused restart is not tried again.
      refusals = 1;
      restarts.restart(['c']);
      await vi.advanceTimersByTimeAsync(0);
      restarts.stop();
      await vi.advanceTimersByTimeAsync(5000);
      expect(calls).toEqual([['a'], ['a', 'b'], 'all', ['c']]);
    } finally {
      vi.useRealTimers();
    }
  });
});
