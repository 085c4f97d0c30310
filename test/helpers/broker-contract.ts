// The recovery contract every broker keeps (above `Broker` in src/realtime/broker.ts), as one suite each broker runs.
import { expect, it } from 'vitest';
import type { Broker, HistoryPolicy } from '../../src/realtime/broker.js';
import type { Delivery } from '../../src/realtime/hub.js';

export interface BrokerNodes {
  /** Where publications come from (the exchange process). */
  publisher: Broker;
  /** Where clients subscribe: another node when the broker spans processes, else the same broker. */
  node: Broker;
  /** Channels `node` reported a gap on: its subscribers must resubscribe. */
  gaps: string[];
  close(): Promise<void>;
}

/** Channels named `h:` keep 3 publications, `n:` none. */
export const CONTRACT_POLICY: HistoryPolicy = {
  size: (ch) => (ch.startsWith('h:') ? 3 : 0),
  ttlMs: 60_000,
  maxPublicationBytes: 400,
};

async function until(what: () => boolean, ms = 5000): Promise<void> {
  for (const deadline = Date.now() + ms; !what(); ) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

const pub = (data: unknown, offset: number) => `{"data":${JSON.stringify(data)},"offset":${offset}}`;

/** `start(now)`: nodes of a fresh broker whose clock is `now`. */
export function brokerContract(start: (now: () => number) => Promise<BrokerNodes>): void {
  const withNodes = async (body: (n: BrokerNodes, clock: { t: number }) => Promise<void>) => {
    const clock = { t: 1_000_000 };
    const nodes = await start(() => clock.t);
    try {
      await body(nodes, clock);
    } finally {
      await nodes.close();
    }
  };

  it('numbers a channel’s publications 1, 2, 3 … and delivers them in order to every subscriber', async () => {
    await withNodes(async ({ publisher, node }) => {
      const a: Delivery[] = [];
      const b: Delivery[] = [];
      await node.subscribe('h:x', (d) => a.push(d));
      await node.subscribe('h:x', (d) => b.push(d));
      const positions = [];
      for (let i = 1; i <= 5; i++) positions.push(await publisher.publish('h:x', { i }));
      expect(positions.map((p) => p.offset)).toEqual([1, 2, 3, 4, 5]);
      expect(new Set(positions.map((p) => p.epoch)).size).toBe(1);
      await until(() => a.length === 5 && b.length === 5);
      expect(a.map((d) => d.pubJson)).toEqual([1, 2, 3, 4, 5].map((i) => pub({ i }, i)));
      expect(b.map((d) => d.offset)).toEqual([1, 2, 3, 4, 5]);
    });
  });

  it('history: all, since a position, limit, reverse; another epoch or an uncovered gap never answers partially', async () => {
    await withNodes(async ({ publisher, node }) => {
      await node.subscribe('h:x', () => {});
      const { epoch } = await node.history('h:x', { limit: 0 });
      for (let i = 1; i <= 5; i++) await publisher.publish('h:x', i);
      expect(await node.history('h:x', { limit: -1 })).toEqual({ publications: [pub(3, 3), pub(4, 4), pub(5, 5)], complete: true, offset: 5, epoch });
      expect((await node.history('h:x', { limit: -1, reverse: true })).publications).toEqual([pub(5, 5), pub(4, 4), pub(3, 3)]);
      expect((await node.history('h:x', { limit: 1 })).publications).toEqual([pub(3, 3)]);
      expect(await node.history('h:x', { limit: -1, since: { offset: 3, epoch } })).toMatchObject({ publications: [pub(4, 4), pub(5, 5)], complete: true });
      expect(await node.history('h:x', { limit: -1, since: { offset: 5, epoch } })).toMatchObject({ publications: [], complete: true });
      expect((await node.history('h:x', { limit: -1, since: { offset: 1, epoch } })).complete).toBe(false); // 2 is gone
      expect((await node.history('h:x', { limit: -1, since: { offset: 3, epoch: 'other' } })).complete).toBe(false);
      expect((await node.history('h:x', { limit: -1, since: { offset: 6, epoch } })).complete).toBe(false);
      // No history kept: positions still advance.
      await node.subscribe('n:x', () => {});
      await publisher.publish('n:x', 1);
      expect(await node.history('n:x', { limit: -1 })).toMatchObject({ publications: [], complete: true, offset: 1 });
    });
  });

  it('a position handed out stays recoverable after the last subscriber left, while retention covers the gap', async () => {
    await withNodes(async ({ publisher, node }, clock) => {
      const subscriber = () => {};
      await node.subscribe('h:quiet', subscriber);
      const position = await node.history('h:quiet', { limit: 0 });
      await node.unsubscribe('h:quiet', subscriber);
      clock.t += 60_000 - 1; // a minute later, within retention
      for (let i = 1; i <= 3; i++) await publisher.publish('h:quiet', i);
      expect(await node.history('h:quiet', { limit: -1, since: position })).toMatchObject({
        publications: [pub(1, 1), pub(2, 2), pub(3, 3)],
        complete: true,
        epoch: position.epoch,
      });
    });
  });

  it('does not serve publications older than the retention: a position needing one fails to recover', async () => {
    await withNodes(async ({ publisher, node }, clock) => {
      await node.subscribe('h:x', () => {});
      const { epoch } = await publisher.publish('h:x', 1);
      clock.t += 30_000;
      await publisher.publish('h:x', 2);
      clock.t += 30_000; // the first is exactly one retention old
      expect((await node.history('h:x', { limit: -1 })).publications).toEqual([pub(2, 2)]);
      expect((await node.history('h:x', { limit: -1, since: { offset: 0, epoch } })).complete).toBe(false);
      expect((await node.history('h:x', { limit: -1, since: { offset: 1, epoch } })).publications).toEqual([pub(2, 2)]);
    });
  });

  it('splits an array larger than a publication may be into ordered parts with consecutive offsets', async () => {
    await withNodes(async ({ publisher, node }) => {
      const got: Delivery[] = [];
      await node.subscribe('h:big', (d) => got.push(...(d.parts ?? [d])));
      const items = Array.from({ length: 12 }, (_, i) => ({ i, pad: 'x'.repeat(40) }));
      const last = await publisher.publish('h:big', items);
      await until(() => got.length === last.offset);
      expect(last.offset).toBeGreaterThan(1);
      expect(got.map((d) => d.offset)).toEqual(Array.from({ length: last.offset }, (_, i) => i + 1));
      const delivered = got.flatMap((d) => (JSON.parse(d.pubJson) as { data: unknown[] }).data);
      expect(delivered).toEqual(items);
      for (const d of got) expect(Buffer.byteLength(d.pubJson)).toBeLessThan(400);
    });
  });

  it('restarting streams (publications lost before numbering): old positions fail to recover, subscribed nodes report it, numbering starts again', async () => {
    for (const which of ['channels', 'all'] as const) {
      await withNodes(async ({ publisher, node, gaps }) => {
        const got: Delivery[] = [];
        await node.subscribe('h:x', (d) => got.push(d));
        await node.subscribe('h:kept', () => {});
        const old = await publisher.publish('h:x', 1);
        const kept = await publisher.publish('h:kept', 1);
        await until(() => got.length === 1);
        await publisher.restartStreams(which === 'all' ? 'all' : ['h:x']);
        await until(() => gaps.includes('h:x'));
        expect((await node.history('h:x', { limit: -1, since: old })).complete).toBe(false);
        const next = await publisher.publish('h:x', 2);
        expect(next.offset).toBe(1);
        expect(next.epoch).not.toBe(old.epoch);
        // A subscriber that stays (one that resubscribed) gets the new stream from its start.
        await until(() => got.length === 2);
        expect(got[1]!.offset).toBe(1);
        // A channel not named goes on as it was.
        const keptNow = await node.history('h:kept', { limit: -1, since: kept });
        expect(keptNow.complete).toBe(which === 'channels');
        if (which === 'channels') expect(gaps).toEqual(['h:x']);
      });
    }
  });
}
