// A throw-away nats-server per test file (src/local-services/nats.ts).
import { afterAll, beforeAll } from 'vitest';
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
