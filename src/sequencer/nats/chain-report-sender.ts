// A settlement process's way to the sequencer: what the chain did (a ChainSink's reports, as the engine's
// confirmFill, fillAttempt and chainEvents commands) sent over NATS on the chain-report subject, each repeated with its
// request id while no sequencer answers, across a takeover of the sequencer, until it is taken or this process stops.
// Reports whose order matters (a block range's events before the next range's, a transaction's attempt before the
// range that executes it) go one at a time in the order the chain made them; the local ledger's bare confirmations,
// which commute, go at once (one per fill: waiting for each one's commit would bound fills per second).
// Repeats are harmless: the sequencer answers a repeated request id with its first reply; the engine ignores a
// confirmation of a fill no longer pending and a transaction already recorded as a fill's attempt, and refuses a block
// range overlapping one it applied (then this sender stops: see outOfStep).
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Command } from '../../engine/types.js';
import { ExchangeError } from '../../protocol/errors.js';
import { RetryingRequester, type RequestBounds } from './retrying-requester.js';
import { STORAGE_RETRY_MS, refusedForStorage, reportCommutes } from '../chain-report-queue.js';
import { CHAIN_REPORT_SUBJECT, decodeReply, encodeRequest, resultOfReply } from './wire.js';

export class ChainReportSender {
  private readonly requester: RetryingRequester;
  /** The ordered report under way, which the next one waits for. */
  private last: Promise<unknown> = Promise.resolve();
  private stopped = false;

  constructor(
    url: string,
    private readonly bounds: RequestBounds,
    private readonly log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void },
    /**
     * The sequencer refused a block range as overlapping one it applied (another settlement process's report came
     * first): this sender stops, reports queued behind it included, and the chain adapter must start again from the
     * journal's chain cursor.
     */
    private readonly outOfStep: () => void,
  ) {
    this.requester = new RetryingRequester(url, 'oddex-settlement', log);
  }

  /** Queues a report; resolves once the sequencer journaled it (or refused it: logged, never thrown). */
  send(cmd: Command, what: string): Promise<void> {
    if (reportCommutes(cmd)) return this.deliver(cmd, what);
    const sent = this.last.then(() => this.deliver(cmd, what));
    this.last = sent;
    return sent;
  }

  private async deliver(cmd: Command, what: string): Promise<void> {
    let payload = encodeRequest({ id: randomUUID(), command: cmd });
    for (let warned = false, pause = STORAGE_RETRY_MS.first; !this.stopped; ) {
      try {
        resultOfReply(decodeReply(await this.requester.request(CHAIN_REPORT_SUBJECT, payload, what, true, this.bounds)));
        return;
      } catch (err) {
        if (err instanceof ExchangeError && err.errorCode === 'CHAIN_EVENTS_ALREADY_APPLIED') {
          this.stopped = true;
          this.log.warn({ err }, `${what} overlaps a range another settlement process reported: following the chain again from the journal`);
          this.outOfStep();
          return;
        }
        const storageDown = refusedForStorage(err);
        if (!(err instanceof ExchangeError && err.errorCode === 'SEQUENCER_UNAVAILABLE') && !storageDown) {
          this.log.error({ err }, `${what} refused by the sequencer; the chain reports it again after a restart`);
          return;
        }
        // Kept until a sequencer takes it: a lost report would leave its fill pending until the next takeover.
        if (!warned) this.log.warn({ err }, `${what} not taken yet: ${storageDown ? 'the journal refuses commands for now' : 'no sequencer answers'}; still trying`);
        warned = true;
        // A sequencer whose store is down answers at once: wait before asking again, under a new request id (the
        // sequencer remembers its refusal under the old one; a refused command was not applied).
        if (storageDown) {
          await sleep(pause);
          pause = Math.min(pause * 2, STORAGE_RETRY_MS.max);
          payload = encodeRequest({ id: randomUUID(), command: cmd });
        }
      }
    }
  }

  /** Stops repeating; reports not sent yet are left to the next settlement process (they are in the chain). */
  async close(): Promise<void> {
    this.stopped = true;
    await this.requester.close();
  }
}
