// A verification worker that says it is ready and then never answers (the pool's stall watchdog must act).
import { parentPort } from 'node:worker_threads';

parentPort!.on('message', () => {});
parentPort!.postMessage({ ready: true });
