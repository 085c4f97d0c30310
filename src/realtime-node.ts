// Starts a realtime node (ODDEX_ROLES=realtime): only the WebSocket server, on the Redis broker the exchange process
// publishes through. It holds no exchange state: tokens are checked with the secret every process shares, and
// revoked keys are heard through Redis. Add nodes to hold more connections.
import { createServer } from 'node:http';
import type pino from 'pino';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { registerRealtimeGauges } from './api/metrics.js';
import { healthPort } from './health-port.js';
import type { Config } from './config.js';
import { createLoggers, resolveLogFormat } from './log.js';
import { RealtimeServer } from './realtime/server.js';
import { RealtimeTokens } from './realtime/tokens.js';
import { brokerFactory, sharedRevocations } from './redis-shared.js';

export interface RealtimeNode {
  url: string;
  port: number;
  log: pino.Logger;
  realtime: RealtimeServer;
  close(): Promise<void>;
}

export async function startRealtimeNode(baseConfig: Config, opts: { now?: () => number; logDestination?: pino.DestinationStream } = {}): Promise<RealtimeNode> {
  const secret = baseConfig.realtimeTokenSecret;
  if (!baseConfig.redisUrl || !secret) throw new Error('a realtime node needs ODDEX_REDIS_URL and ODDEX_REALTIME_TOKEN_SECRET (loadConfig checks both)');
  const logFormat = resolveLogFormat(baseConfig.logFormat, !opts.logDestination && process.stdout.isTTY === true);
  const { log } = createLoggers(baseConfig.logLevel, logFormat, opts.logDestination);
  const config = { ...baseConfig, logFormat };
  const now = opts.now ?? Date.now;
  // Revocations heard before the server exists have no sessions to end yet.
  const sessions: { endKey: (keyId: string) => void } = { endKey: () => {} };
  const revocations = await sharedRevocations(config, log, (keyId) => sessions.endKey(keyId));
  const tokens = new RealtimeTokens(Buffer.from(secret), config.realtimeTokenTtlSeconds, now, (keyId) => !revocations?.isRevoked(keyId));
  let ready = false;
  const realtime = new RealtimeServer({ config, makeBroker: brokerFactory(config, now, log), tokens, isReady: () => ready, now, log });
  sessions.endKey = (keyId) => realtime.disconnectKey(keyId);
  // Health and metrics for load balancers and monitoring; everything else is the WebSocket endpoint.
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'oddex_process_' });
  registerRealtimeGauges(registry, realtime);
  // Not ready while Redis does not answer: publications can neither reach its clients nor be recovered.
  const server = createServer(
    healthPort({ registry, ready: () => ready && realtime.brokerReachable, notReady: () => (ready ? 'redis unreachable: publications cannot be delivered' : 'error') }),
  );
  realtime.attach(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  ready = true;
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host}:${port}`;
  log.info({ port, host: config.host }, `Oddex realtime node listening on ${url}`);
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      ready = false;
      await realtime.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      revocations?.close();
    })());
  return { url, port, log, realtime, close };
}
