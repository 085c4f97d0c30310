// Which broker a process's realtime server uses: its own memory broker, or Redis shared by every process of the
// exchange (ODDEX_REDIS_URL).
import { Redis } from 'ioredis';
import type pino from 'pino';
import type { Config } from '../config.js';
import type { Broker } from './broker.js';
import { RedisBroker } from './redis-broker.js';
import type { BrokerHooks } from './server.js';

/** A connection that reconnects by itself; its outages are logged once each, not once per retry. */
function redisConnection(url: string, role: string, log: pino.Logger): Redis {
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
    });
}
