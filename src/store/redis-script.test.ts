import { describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { RedisScript } from './redis-script.js';
import { redisForSuite } from '../../test/helpers/redis.js';

const server = redisForSuite();
const append = new RedisScript("return redis.call('RPUSH', KEYS[1], ARGV[1])");

describe('RedisScript', () => {
  it('runs on one connection in the order it is called, also after reconnecting to a Redis that lost its scripts but kept its data', async () => {
    const redis = server().client();
    const admin = server().client();
    try {
      await append.run(redis, ['order'], ['first']);
      // A restart that kept the data, as far as this connection can tell: scripts forgotten, connection cut.
      await admin.script('FLUSH');
      const id = await redis.client('ID');
      await admin.client('KILL', 'ID', String(id));
      await new Promise((resolve) => redis.once('ready', resolve));

      // The connection stalls between a and b (a blocking pop), and c is called while it does: c must still run last.
      const a = append.run(redis, ['order'], ['a']);
      const stall = redis.blpop('nothing', 0.2);
      const b = append.run(redis, ['order'], ['b']);
      await sleep(100);
      const c = append.run(redis, ['order'], ['c']);
      await Promise.all([a, stall, b, c]);
      expect(await admin.lrange('order', 0, -1)).toEqual(['first', 'a', 'b', 'c']);
    } finally {
      redis.disconnect();
      admin.disconnect();
    }
  });
});
