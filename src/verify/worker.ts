// A verification worker thread: receives batches of jobs, answers with their results in the same order.
import { parentPort } from 'node:worker_threads';
import { keccakWasmReady } from '../protocol/keccak-wasm.js';
import { runVerifyJob } from './jobs.js';
import { fromWire, type WireJob } from './wire.js';
import type { FromWorker, ToWorker } from './messages.js';

const port = parentPort;
if (!port) throw new Error('verify/worker.ts runs only as a worker thread');

function answer(message: FromWorker): void {
  port!.postMessage(message);
}

const runSafely = (job: WireJob) => {
  try {
    return runVerifyJob(fromWire(job));
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
};

port.on('message', (message: ToWorker) => {
  if ('close' in message) port.close();
  else answer({ batch: message.batch, results: message.jobs.map(runSafely) });
});

// Announce readiness once the fast keccak is in place, so the first batch does not run on the slow one.
await keccakWasmReady;
answer({ ready: true });
