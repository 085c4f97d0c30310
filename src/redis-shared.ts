// What a process shares with the others of its exchange through Redis (ODDEX_REDIS_URL): the realtime broker, API
// key revocations and rate-limit windows. Without Redis, the realtime server uses its own memory broker, and
// revocations and rate limits stay in the process.
import { Redis, type RedisOptions } from 'ioredis';
import type pino from 'pino';
import type { Config } from './config.js';
import type { Broker } from './realtime/broker.js';
import { RedisBroker } from './realtime/redis-broker.js';
import { RedisKeyRevocations } from './realtime/key-revocations.js';
import { InProcessRateLimiter, rateLimitsFromConfig, type RateLimiter } from './api/rate-limit/limiter.js';
import { RedisRateLimiter } from './api/rate-limit/redis-limiter.js';

/** Key and channel prefix of one exchange in Redis. */
const PREFIX = 'oddex';
import type { BrokerHooks } from './realtime/server.js';

/** A connection that reconnects by itself; its outages are logged once each, not once per retry. */
export function redisConnection(url: string, role: string, log: pino.Logger, options: RedisOptions = {}): Redis {
  const redis = new Redis(url, options);
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

/** Rate-limit windows shared through ODDEX_REDIS_URL, or undefined for the app's in-process limiter. */
export function sharedRateLimiter(config: Pick<Config, 'redisUrl' | 'rateLimits'>, log: pino.Logger): (RateLimiter & { close(): void }) | undefined {
  const url = config.redisUrl;
  if (!url || !config.rateLimits.enabled) return undefined;
  const limits = rateLimitsFromConfig(config.rateLimits);
  // A request never waits for Redis: no queue while disconnected, and a short bound on each answer.
  const redis = redisConnection(url, 'rate limits', log, { enableOfflineQueue: false, commandTimeout: 250, maxRetriesPerRequest: 0 });
  let warned = 0;
  const limiter = new RedisRateLimiter(redis, limits, new InProcessRateLimiter(limits), (err) => {
    if (Date.now() - warned < 60_000) return;
    warned = Date.now();
    log.warn({ err }, 'rate limits counted in this process while redis does not answer');
  });
  return Object.assign(limiter, { close: () => redis.disconnect() });
}
