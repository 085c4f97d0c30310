// A verification worker whose first thread dies on its first batch; later threads (the marker file exists) are the
// real worker. The pool must finish the lost jobs itself and replace the thread.
import { existsSync, writeFileSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';

const marker = process.env.ODDEX_TEST_CRASH_ONCE_MARKER!;
if (existsSync(marker)) {
  await import('../../../src/verify/worker.js');
} else {
  writeFileSync(marker, '');
  parentPort!.on('message', () => {
    throw new Error('worker crashed on purpose');
  });
  parentPort!.postMessage({ ready: true });
}
