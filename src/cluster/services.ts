// The engines a cluster runs on: PostgreSQL, Redis and NATS at the URLs given, else throw-away local servers from
// their Debian binaries (src/local-services), stopped with the cluster.
import { startNats } from '../local-services/nats.js';
import { startPostgres } from '../local-services/postgres.js';
import { startRedis } from '../local-services/redis.js';

export interface ClusterServices {
  databaseUrl: string;
  redisUrl: string;
  natsUrl: string;
  /** Which of them this cluster started (and stops). */
  started: ('postgres' | 'redis' | 'nats')[];
  stop(): Promise<void>;
}

export async function clusterServices(env: NodeJS.ProcessEnv): Promise<ClusterServices> {
  const stops: (() => Promise<void>)[] = [];
  const started: ClusterServices['started'] = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch(() => {});
  };
  try {
    let databaseUrl = env.ODDEX_DATABASE_URL;
    if (!databaseUrl) {
      // Room for every process's pools at once (a gateway's read side alone opens up to 14 connections).
      const pg = await startPostgres({ maxConnections: 150 });
      stops.push(() => pg.stop());
      databaseUrl = await pg.createDatabase('oddex');
      started.push('postgres');
    }
    let redisUrl = env.ODDEX_REDIS_URL;
    if (!redisUrl) {
      const redis = await startRedis();
      stops.push(() => redis.stop());
      redisUrl = redis.url;
      started.push('redis');
    }
    let natsUrl = env.ODDEX_NATS_URL;
    if (!natsUrl) {
      const nats = await startNats();
      stops.push(() => nats.stop());
      natsUrl = nats.url;
      started.push('nats');
    }
    return { databaseUrl, redisUrl, natsUrl, started, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
