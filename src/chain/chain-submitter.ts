// Hands fills to the settlement chain without ever letting the chain take the exchange down: a submit that
// throws, rejects or does not answer in time leaves the fill PENDING and is retried with exponential backoff.
import type { RefundPaid } from '../engine/changes.js';
import type { ReportedMarket, SettlementChain, FillTerms } from './settlement-chain.js';

export interface ChainSubmitterOptions {
  /** A submit that has not settled after this long counts as failed. */
  timeoutMs: number;
  /** First retry delay; doubles per failed attempt up to `maxBackoffMs`. */
  minBackoffMs: number;
  maxBackoffMs: number;
  /** One call per failed attempt: for the log line. */
  onFailure: (failure: { fillHash: string; attempt: number; retryInMs: number; err: unknown }) => void;
}

class SubmitTimeout extends Error {
  constructor(ms: number) {
    super(`the settlement chain did not take the fill within ${ms} ms`);
  }
}

export class ChainSubmitter {
  /** Failed submit attempts since start (the metric). */
  failures = 0;
  /** Fills the chain has not taken yet, with their failed attempts so far. */
  private readonly waiting = new Map<string, number>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopped = false;

  constructor(
    private readonly chain: SettlementChain,
    private readonly opts: ChainSubmitterOptions,
  ) {}

  /** Fills the chain has not settled yet: not taken (in a call or between retries), or taken and in flight. */
  get backlog(): number {
    return this.waiting.size + (this.chain.inFlight ?? 0);
  }

  /** Whether the chain pays refunds and settlements itself (an on-chain escrow): only then are unpaid ones handed at start. */
  get paysOnChain(): boolean {
    return this.chain.refundsPaid !== undefined;
  }

  start(): void {
    this.chain.start?.();
  }

  marketsReported(markets: ReportedMarket[]): void {
    if (markets.length > 0) this.chain.marketsReported?.(markets);
  }

  refundsPaid(refunds: readonly RefundPaid[]): void {
    if (refunds.length > 0) this.chain.refundsPaid?.(refunds);
  }

  /** Whether each submit must carry the fill's terms (the sequencer copies them only then). */
  get needsFillTerms(): boolean {
    return this.chain.needsFillTerms === true;
  }

  /** Never throws: failures are counted, reported and retried (with the same terms). */
  submit(fillHash: string, acceptedAt: number, terms?: FillTerms): void {
    if (this.stopped || this.waiting.has(fillHash)) return;
    this.waiting.set(fillHash, 0);
    this.attempt(fillHash, acceptedAt, terms);
  }

  /** On a later microtask: the chain never runs inside the commit that handed it the fill. */
  private attempt(fillHash: string, acceptedAt: number, terms: FillTerms | undefined): void {
    queueMicrotask(() => {
      let taken: void | Promise<void>;
      try {
        taken = this.chain.submit(fillHash, acceptedAt, terms);
      } catch (err) {
        this.failed(fillHash, acceptedAt, terms, err);
        return;
      }
      // A chain that takes the fill at once (the local one) costs no timer and no promise per fill.
      if (taken === undefined) this.waiting.delete(fillHash);
      else void this.whenTaken(taken, fillHash, acceptedAt, terms);
    });
  }

  private async whenTaken(taken: Promise<void>, fillHash: string, acceptedAt: number, terms: FillTerms | undefined): Promise<void> {
    let timeout: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        taken,
        new Promise<never>((_, reject) => {
          timeout = setTimeout(() => reject(new SubmitTimeout(this.opts.timeoutMs)), this.opts.timeoutMs);
        }),
      ]);
      this.waiting.delete(fillHash);
    } catch (err) {
      this.failed(fillHash, acceptedAt, terms, err);
    } finally {
      clearTimeout(timeout);
    }
  }

  private failed(fillHash: string, acceptedAt: number, terms: FillTerms | undefined, err: unknown): void {
    if (this.stopped) return;
    const attempt = (this.waiting.get(fillHash) ?? 0) + 1;
    this.waiting.set(fillHash, attempt);
    this.failures++;
    const retryInMs = Math.min(this.opts.maxBackoffMs, this.opts.minBackoffMs * 2 ** (attempt - 1));
    this.opts.onFailure({ fillHash, attempt, retryInMs, err });
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (!this.stopped) this.attempt(fillHash, acceptedAt, terms);
    }, retryInMs);
    this.timers.add(timer);
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.chain.stop();
  }
}
