// What the writer thread and a verification worker say to each other.
import type { Verified } from './jobs.js';
import type { WireJob } from './wire.js';

/** A batch of jobs, or the request to end: the worker closes its port and its thread exits on its own. */
export type ToWorker = { batch: number; jobs: WireJob[] } | { close: true };

/** A job that threw (a field the schema should have refused) comes back as its message. */
export type JobOutcome = Verified | { error: string };

export type FromWorker = { ready: true } | { batch: number; results: JobOutcome[] };
