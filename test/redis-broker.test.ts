import { describe, expect, it } from 'vitest';
import { RedisBroker } from '../src/realtime/redis-broker.js';
import type { Delivery } from '../src/realtime/hub.js';
import { brokerContract, CONTRACT_POLICY } from './helpers/broker-contract.js';
import { redisForSuite } from './helpers/redis.js';

const server = redisForSuite();

let prefixes = 0;
/** Two nodes (as two processes would be) on one Redis, under a prefix of their own. */
function twoNodes(now: () => number, onGap: (channel: string) => void = () => {}) {
  const prefix = `t${++prefixes}`;
  const node = (gap: (channel: string) => void) =>
    new RedisBroker({ redis: server().client(), subscriber: server().client(), policy: CONTRACT_POLICY, now, prefix, onGap: gap });
  const publisher = node(() => {});
  const subscriberNode = node(onGap);
  return { publisher, node: subscriberNode, close: async () => Promise.all([publisher.close(), subscriberNode.close()]).then(() => {}) };
}

async function until(what: () => boolean, ms = 5000): Promise<void> {
  for (const deadline = Date.now() + ms; !what(); ) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('RedisBroker keeps the broker contract across nodes', () => {
  brokerContract(async (now) => {
    const gaps: string[] = [];
    return { ...twoNodes(now, (ch) => gaps.push(ch)), gaps };
  });
});

describe('RedisBroker', () => {
  it('a publication lost while its subscription connection was down reaches the node from the stream, with no later one to reveal it', async () => {
    const gaps: string[] = [];
    const { publisher, node, close } = twoNodes(() => Date.now(), (ch) => gaps.push(ch));
    try {
      const got: Delivery[] = [];
      await node.subscribe('h:x', (d) => got.push(d));
      await publisher.publish('h:x', 1);
      await until(() => got.length === 1);
      const admin = server().client();
      await admin.call('CLIENT', 'KILL', 'TYPE', 'pubsub'); // the node's subscriber connection drops and ioredis reconnects
      await publisher.publish('h:x', 2); // PUB/SUB loses it: nobody subscribed meanwhile
      // Nothing else is published: the node must find the missed one on reconnecting, not on the next publication.
      await until(() => got.length === 2);
      expect(got.map((d) => d.offset)).toEqual([1, 2]);
      expect(got[1]!.pubJson).toBe('{"data":2,"offset":2}');
      expect(gaps).toEqual([]);
      // Delivery goes on in sequence after it.
      await publisher.publish('h:x', 3);
      await until(() => got.length === 3);
      expect(got.map((d) => d.offset)).toEqual([1, 2, 3]);
    } finally {
      await close();
    }
  });

  it('a publication lost on a channel without history is reported as a gap at reconnect, not skipped silently', async () => {
    const gaps: string[] = [];
    const { publisher, node, close } = twoNodes(() => Date.now(), (ch) => gaps.push(ch));
    try {
      const got: Delivery[] = [];
      await node.subscribe('x', (d) => got.push(d));
      await publisher.publish('x', 1);
      await until(() => got.length === 1);
      await server().client().call('CLIENT', 'KILL', 'TYPE', 'pubsub');
      await publisher.publish('x', 2); // lost, and no stream keeps it
      await until(() => gaps.length > 0);
      expect(gaps).toEqual(['x']);
      expect(got.map((d) => d.offset)).toEqual([1]);
    } finally {
      await close();
    }
  });

  it('a publication that overtook one lost on the way waits while the lost one is read from the stream', async () => {
    const gaps: string[] = [];
    const { publisher, node, close } = twoNodes(() => Date.now(), (ch) => gaps.push(ch));
    try {
      const got: Delivery[] = [];
      await node.subscribe('h:y', (d) => got.push(d));
      await publisher.publish('h:y', 1);
      await until(() => got.length === 1);
      // Offset 2 is recorded but its PUB/SUB message goes to a channel nobody hears; offset 3 arrives out of sequence.
      const lua = "local o = redis.call('hincrby', KEYS[2], 's', 1) redis.call('xadd', KEYS[1], o .. '-0', 't', ARGV[1], 'p', '{\"data\":2,\"offset\":' .. o .. '}') return o";
      const admin = server().client();
      const prefix = (node as unknown as { prefix: string }).prefix;
      await admin.eval(lua, 2, `${prefix}:stream:{h:y}`, `${prefix}:meta:{h:y}`, String(Date.now()));
      await publisher.publish('h:y', 3);
      await until(() => got.length === 3);
      expect(got.map((d) => d.offset)).toEqual([1, 2, 3]);
      expect(gaps).toEqual([]);
    } finally {
      await close();
    }
  });

  it('a subscribe asks for the position alone: the stream it does not need is not read', async () => {
    const { publisher, node, close } = twoNodes(() => Date.now());
    try {
      for (let i = 1; i <= 3; i++) await publisher.publish('h:z', i);
      const admin = server().client();
      await admin.config('RESETSTAT');
      const position = await node.history('h:z', { limit: 0 });
      expect(position).toMatchObject({ offset: 3, publications: [], complete: true });
      await node.subscribe('h:z', () => {});
      const stats = await admin.info('commandstats');
      expect(stats).not.toMatch(/cmdstat_xrange:/);
      // History that asks for publications still reads them.
      expect((await node.history('h:z', { limit: -1 })).publications).toHaveLength(3);
      expect(await admin.info('commandstats')).toMatch(/cmdstat_xrange:calls=1,/);
    } finally {
      await close();
    }
  });

  it('Redis losing its data gives a new epoch: old positions fail to recover, subscribed nodes report the gap', async () => {
    const gaps: string[] = [];
    // Deliveries and gap reports in the order they happened.
    const events: string[] = [];
    const { publisher, node, close } = twoNodes(
      () => Date.now(),
      (ch) => {
        gaps.push(ch);
        events.push('gap');
      },
    );
    try {
      const got: Delivery[] = [];
      await node.subscribe('h:x', (d) => {
        got.push(d);
        events.push(`offset ${d.offset}`);
      });
      const before = await publisher.publish('h:x', 1);
      await until(() => got.length === 1);
      await server().restartEmpty();
      // Clients of both nodes reconnect by themselves (ioredis); publish until the node is back and hears one.
      let after = before;
      for (let i = 0; gaps.length === 0 && i < 500; i++) {
        try {
          after = await publisher.publish('h:x', 2 + i);
        } catch {
          // Redis still coming back
        }
        await new Promise((r) => setTimeout(r, 10));
      }
      expect(after.epoch).not.toBe(before.epoch);
      expect(gaps).toContain('h:x');
      expect((await node.history('h:x', { limit: -1, since: before })).complete).toBe(false);
      // Nothing of the new epoch reached the subscribers before the gap was reported (a publication already on its
      // way when the loop stopped may follow it: the server has disconnected them by then).
      expect(events.slice(0, 2)).toEqual(['offset 1', 'gap']);
    } finally {
      await close();
    }
  });

  it('closing sends the publications handed to it before: another node recovers them from the stream', async () => {
    const { publisher, node, close } = twoNodes(() => Date.now());
    try {
      await node.subscribe('h:closed', () => {}); // records the stream (it keeps the last 3)
      const { epoch } = await node.history('h:closed', { limit: 0 });
      for (let n = 1; n <= 50; n++) void publisher.publish('h:closed', n);
      await publisher.close();
      const after = await node.history('h:closed', { since: { offset: 47, epoch }, limit: -1 });
      expect([after.complete, after.offset, after.epoch]).toEqual([true, 50, epoch]);
      expect(after.publications.map((p) => JSON.parse(p).data)).toEqual([48, 49, 50]);
    } finally {
      await close();
    }
  });
});
