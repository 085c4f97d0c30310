// Order updates reach their three kinds of channel with each order encoded once, and split publications of
// pre-encoded arrays keep every element exactly once, in order.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EventBus } from '../events.js';
import { EncodedArray, MemoryBroker, StreamRestarts } from './broker.js';
import type { Delivery } from './hub.js';
import { activeOrdersChannel, orderBookEventChannel, orderBookMarketChannel } from './channels.js';
import { connectFeeds } from './feeds.js';
import { emitAny } from '../../test/helpers/bus.js';

const MAKER_A = '0x00000000000000000000000000000000000000A1';
const MAKER_B = '0x00000000000000000000000000000000000000B2';
const MARKET = '0x' + 'ab'.repeat(32);
const silent = { error: () => {} } as never;
const flush = () => new Promise((r) => setImmediate(r));

describe('order feeds', () => {
  afterEach(() => vi.restoreAllMocks());

  it('publishes the same order bytes on the market, event and maker channels, encoding each order once', async () => {
    const broker = new MemoryBroker({ size: () => 10, ttlMs: 60_000 }, () => 0);
    const bus = new EventBus();
    connectFeeds(bus, broker, silent, new StreamRestarts(broker, silent));
    const got = new Map<string, string[]>();
    const channels = [orderBookMarketChannel(MARKET), orderBookEventChannel('ev9'), activeOrdersChannel(MAKER_A), activeOrdersChannel(MAKER_B)];
    for (const ch of channels) {
      got.set(ch, []);
      await broker.subscribe(ch, (d: Delivery) => got.get(ch)!.push(d.pubJson));
    }
    const orders = [
      { orderHash: '0x01', maker: MAKER_A, totalBetSize: '100', status: 'ACTIVE' },
      { orderHash: '0x02', maker: MAKER_B.toLowerCase(), totalBetSize: '200', status: 'ACTIVE' },
      { orderHash: '0x03', maker: MAKER_A, totalBetSize: '300', status: 'INACTIVE' },
    ];
    const stringify = vi.spyOn(JSON, 'stringify');
    emitAny(bus, 'orders', { marketHash: MARKET, exchangeEventId: 'ev9', orders });
    await flush();
    const orderEncodings = stringify.mock.calls.filter(([v]) => typeof v === 'object' && v !== null && 'orderHash' in v);
    expect(orderEncodings.map(([v]) => (v as { orderHash: string }).orderHash)).toEqual(['0x01', '0x02', '0x03']);
    stringify.mockRestore();

    const enc = orders.map((o) => JSON.stringify(o));
    expect(got.get(channels[0]!)).toEqual([`{"data":[${enc.join(',')}],"offset":1}`]);
    expect(got.get(channels[1]!)).toEqual([`{"data":[${enc.join(',')}],"offset":1}`]);
    expect(got.get(channels[2]!)).toEqual([`{"data":[${enc[0]},${enc[2]}],"offset":1}`]);
    expect(got.get(channels[3]!)).toEqual([`{"data":[${enc[1]}],"offset":1}`]);
  });

  it('a publication the broker refused restarts its channel’s stream, so its subscribers never skip it silently', async () => {
    const gaps: string[] = [];
    const broker = new MemoryBroker({ size: () => 10, ttlMs: 60_000 }, () => 0, undefined, undefined, undefined, (ch) => gaps.push(ch));
    const bus = new EventBus();
    connectFeeds(bus, broker, silent, new StreamRestarts(broker, silent));
    const market = orderBookMarketChannel(MARKET);
    const event = orderBookEventChannel('ev9');
    for (const ch of [market, event]) await broker.subscribe(ch, () => {});
    const order = { orderHash: '0x01', maker: MAKER_A, totalBetSize: '100', status: 'ACTIVE' };
    emitAny(bus, 'orders', { marketHash: MARKET, exchangeEventId: 'ev9', orders: [order] });
    await flush();
    const before = await broker.history(market, { limit: 0 });
    expect(before.offset).toBe(1);
    // The market channel's next publish fails (as Redis may): the event channel's goes through.
    const publish = broker.publish.bind(broker);
    vi.spyOn(broker, 'publish').mockImplementation((ch, data) => (ch === market ? Promise.reject(new Error('down')) : publish(ch, data)));
    emitAny(bus, 'orders', { marketHash: MARKET, exchangeEventId: 'ev9', orders: [{ ...order, status: 'INACTIVE' }] });
    await flush();
    await flush();
    expect(gaps).toEqual([market]);
    // The old position no longer recovers; the event channel's stream goes on as it was.
    const since = await broker.history(market, { since: { offset: before.offset, epoch: before.epoch }, limit: -1 });
    expect(since.complete).toBe(false);
    expect(since.epoch).not.toBe(before.epoch);
    expect((await broker.history(event, { limit: 0 })).offset).toBe(2);
  });

  it('splits an encoded array over the size limit into consecutive publications, as a plain array', async () => {
    const policy = { size: () => 100, ttlMs: 60_000, maxPublicationBytes: 400 };
    const items = Array.from({ length: 30 }, (_, i) => ({ i, pad: 'x'.repeat(20) }));
    const plain = new MemoryBroker(policy, () => 0);
    const encoded = new MemoryBroker(policy, () => 0);
    // Recorded from a first subscription on.
    for (const broker of [plain, encoded]) await broker.subscribe('h:a', () => {});
    await plain.publish('h:a', items);
    await encoded.publish('h:a', EncodedArray.of(items));
    const all = async (b: MemoryBroker) => (await b.history('h:a', { limit: -1 })).publications;
    const pubs = await all(encoded);
    expect(pubs.length).toBeGreaterThan(1);
    expect(pubs).toEqual(await all(plain));
    const elements = pubs.flatMap((p) => (JSON.parse(p) as { data: unknown[] }).data);
    expect(elements).toEqual(items);
  });
});
