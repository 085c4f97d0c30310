// What a process shares with the others of its exchange through Redis (ODDEX_REDIS_URL): the realtime broker and API
// key revocations. Without Redis, the realtime server uses its own memory broker and revocations stay in the process.
import { Redis } from 'ioredis';
import type pino from 'pino';
import type { Config } from '../config.js';
import type { Broker } from './broker.js';
import { RedisBroker } from './redis-broker.js';
import { RedisKeyRevocations } from './key-revocations.js';

/** Key and channel prefix of one exchange in Redis. */
const PREFIX = 'oddex';
import type { BrokerHooks } from './server.js';

/** A connection that reconnects by itself; its outages are logged once each, not once per retry. */
export function redisConnection(url: string, role: string, log: pino.Logger): Redis {
  const redis = new Redis(url, { lazyConnect: false });
  let down = false;
  redis.on('error', (err: unknown) => {
    if (!down) log.warn({ err, role }, 'redis unreachable; retrying');
    down = true;
  });
  redis.on('ready', () => {
    if (down) log.info({ role }, 'redis reachable again');
    down = false;
  });
  return redis;
}

/** The broker of ODDEX_REDIS_URL, or undefined for the realtime server's own memory broker. */
export function brokerFactory(config: Pick<Config, 'redisUrl'>, now: () => number, log: pino.Logger): ((hooks: BrokerHooks) => Broker) | undefined {
  const url = config.redisUrl;
  if (!url) return undefined;
  return (hooks) =>
    new RedisBroker({
      redis: redisConnection(url, 'commands', log),
      subscriber: redisConnection(url, 'subscriptions', log),
      policy: hooks.policy,
      now,
      onSubscriberError: hooks.onSubscriberError,
      onOversize: hooks.onOversize,
      onGap: hooks.onGap,
      prefix: PREFIX,
    });
}

/** Revocations shared through ODDEX_REDIS_URL (started), or undefined without Redis. */
export async function sharedRevocations(
  config: Pick<Config, 'redisUrl' | 'realtimeTokenTtlSeconds'>,
  log: pino.Logger,
  onRevoked: (keyId: string) => void,
): Promise<RedisKeyRevocations | undefined> {
  const url = config.redisUrl;
  if (!url) return undefined;
  const revocations = new RedisKeyRevocations(
    redisConnection(url, 'revocations', log),
    redisConnection(url, 'revocation notices', log),
    PREFIX,
    config.realtimeTokenTtlSeconds,
    onRevoked,
  );
  return revocations.start();
}
