// A throw-away redis-server per test file (src/local-services/redis.ts).
import { afterAll, beforeAll } from 'vitest';
import { startRedis, type LocalRedis } from '../../src/local-services/redis.js';

export { startRedis } from '../../src/local-services/redis.js';
export type TestRedis = LocalRedis;

/** A redis-server for the test file: started before its tests, stopped after them. */
export function redisForSuite(): () => TestRedis {
  let redis: TestRedis | undefined;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });
  return () => redis!;
}
