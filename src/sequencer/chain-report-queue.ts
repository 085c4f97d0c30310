// The chain's reports to the sequencer of its own process, as journaled commands. A report the journal refuses
// because the store is down or being rebuilt (STORAGE_UNAVAILABLE, STORAGE_FAILED) is kept and tried again with a
// growing pause until it is taken: a chain that follows blocks has moved past the range by then and would not report
// it again before a restart, leaving its fills PENDING. Reports whose order matters (a block range's events before the
// next range's, a transaction's attempt before the range that executes it) go one at a time in the chain's order; the
// local ledger's bare confirmations, which commute, go at once. Any other refusal is logged and dropped, as before.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Command } from '../engine/types.js';
import { ExchangeError } from '../protocol/errors.js';

/** The sequencer refused a report because its store is down or being rebuilt: nothing was applied; send it again later. */
export const refusedForStorage = (err: unknown): boolean =>
  err instanceof ExchangeError && (err.errorCode === 'STORAGE_UNAVAILABLE' || err.errorCode === 'STORAGE_FAILED');

/** The local ledger's bare confirmation commutes with every other report: it goes at once, queued behind none. */
export const reportCommutes = (cmd: Command): boolean => cmd.kind === 'confirmFill' && cmd.chain === undefined;

/** Pauses between the attempts of a report refused for storage: the first, doubled each time up to the last. */
export const STORAGE_RETRY_MS = { first: 200, max: 5000 };

export interface ChainReportQueueOptions {
  submit: (cmd: Command) => Promise<unknown>;
  log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  /** Pauses between attempts: the first, doubled each time up to the last. */
  retryMs?: { first: number; max: number };
}

export class ChainReportQueue {
  /** The ordered report under way, which the next one waits for. */
  private last: Promise<void> = Promise.resolve();
  private readonly stopping = new AbortController();

  constructor(private readonly o: ChainReportQueueOptions) {}

  /** Journals a report, in the chain's order unless it commutes; never throws. */
  run(cmd: Command, what: string): void {
    if (reportCommutes(cmd)) {
      void this.deliver(cmd, what);
      return;
    }
    this.last = this.last.then(() => this.deliver(cmd, what));
  }

  /** Stops trying: what is still kept is reported again by the chain after a restart. */
  stop(): void {
    this.stopping.abort();
  }

  private async deliver(cmd: Command, what: string): Promise<void> {
    const { first, max } = this.o.retryMs ?? STORAGE_RETRY_MS;
    for (let pause = first, warned = false; !this.stopping.signal.aborted; pause = Math.min(pause * 2, max)) {
      try {
        await this.o.submit(cmd);
        return;
      } catch (err) {
        // Refused as a range applied already: an attempt whose sync failed had reached the disk after all.
        if (err instanceof ExchangeError && err.errorCode === 'CHAIN_EVENTS_ALREADY_APPLIED') return;
        if (!refusedForStorage(err)) {
          this.o.log.error({ err }, `${what} not recorded; the chain reports it again after a restart`);
          return;
        }
        if (!warned) this.o.log.warn({ err }, `${what} not taken: the journal refuses commands for now; kept and tried again`);
        warned = true;
        try {
          await sleep(pause, undefined, { signal: this.stopping.signal });
        } catch {
          return; // stopped
        }
      }
    }
  }
}
