// A throw-away nats-server per test file (src/local-services/nats.ts).
import { afterAll, beforeAll } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { startNats, type LocalNats } from '../../src/local-services/nats.js';

export { startNats } from '../../src/local-services/nats.js';
export type TestNats = LocalNats;

/** A nats-server for the test file: started before its tests, stopped after them. */
export function natsForSuite(): () => TestNats {
  let nats: TestNats | undefined;
  beforeAll(async () => {
    nats = await startNats();
  });
  afterAll(async () => {
    await nats?.stop();
  });
  return () => nats!;
}

/** A nats-server for the test file and a client connected to it: both started before its tests, closed after them. */
export function natsClientForSuite(): { nats: () => TestNats; nc: () => NatsConnection } {
  let nats: TestNats | undefined;
  let nc: NatsConnection | undefined;
  beforeAll(async () => {
    nats = await startNats();
    nc = await connect({ servers: nats.url });
  });
  afterAll(async () => {
    await nc?.close();
    await nats?.stop();
  });
  return { nats: () => nats!, nc: () => nc! };
}
