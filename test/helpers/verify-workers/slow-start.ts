// The real verification worker, loaded only after a pause: a pool closed meanwhile finds a thread still loading its
// modules (where the native signature addon is loaded too).
import { setTimeout as sleep } from 'node:timers/promises';

await sleep(Number(process.env.ODDEX_TEST_SLOW_START_MS ?? 300));
await import('../../../src/verify/worker.js');
