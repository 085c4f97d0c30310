// A verification worker that says it is ready and dies on its first batch (the pool must finish the jobs itself).
import { parentPort } from 'node:worker_threads';

parentPort!.on('message', () => {
  throw new Error('worker crashed on purpose');
});
parentPort!.postMessage({ ready: true });
