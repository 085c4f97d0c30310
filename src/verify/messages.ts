// What the writer thread and a verification worker say to each other.
import type { Verified } from './jobs.js';
import type { WireJob } from './wire.js';

export interface ToWorker {
  batch: number;
  jobs: WireJob[];
}

/** A job that threw (a field the schema should have refused) comes back as its message. */
export type JobOutcome = Verified | { error: string };

export type FromWorker = { ready: true } | { batch: number; results: JobOutcome[] };
