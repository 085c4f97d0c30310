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
  brokerContract(async (now) => twoNodes(now));
});

describe('RedisBroker', () => {
  it('a node whose subscription connection dropped reports the channel instead of skipping what it missed', async () => {
    const gaps: string[] = [];
    const { publisher, node, close } = twoNodes(() => Date.now(), (ch) => gaps.push(ch));
    try {
      const got: Delivery[] = [];
      await node.subscribe('h:x', (d) => got.push(d));
      await publisher.publish('h:x', 1);
      await until(() => got.length === 1);
      const admin = server().client();
      await admin.call('CLIENT', 'KILL', 'TYPE', 'pubsub'); // the node's subscriber connection drops and ioredis reconnects
      await publisher.publish('h:x', 2); // published while it was away
      for (let i = 0; gaps.length === 0 && i < 200; i++) {
        await publisher.publish('h:x', 3 + i);
        await new Promise((r) => setTimeout(r, 10));
      }
      expect(gaps).toContain('h:x');
      // Nothing after the gap was handed on as if contiguous.
      const offsets = got.map((d) => d.offset);
      expect(offsets).toEqual(offsets.map((_, i) => i + 1));
    } finally {
      await close();
    }
  });

  it('Redis losing its data gives a new epoch: old positions fail to recover, subscribed nodes report the gap', async () => {
    const gaps: string[] = [];
    const { publisher, node, close } = twoNodes(() => Date.now(), (ch) => gaps.push(ch));
    try {
      const got: Delivery[] = [];
      await node.subscribe('h:x', (d) => got.push(d));
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
      expect(got.map((d) => d.offset)).toEqual([1]);
    } finally {
      await close();
    }
  });
});
