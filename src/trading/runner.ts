// Drives the pure engine: applies commands one at a time, journals them with group commit (one transaction per
// event-loop turn) and resolves each caller only once its command is on disk. Hands accepted fills to the
// settlement chain and sweeps expiries.
import { Engine, type CommandResult } from '../engine/engine.js';
import { EngineRejection, type Command, type EngineEvents } from '../engine/types.js';
import type { Journal } from '../store/journal.js';
import { LocalChain, type ChainSink, type SettlementChain } from '../chain/settlement-chain.js';
import { ChainSubmitter, type ChainSubmitterOptions } from '../chain/chain-submitter.js';

export interface RunnerOptions {
  now: () => number;
  chainConfirmationDelayMs: number;
  /** Called after each group commit with what changed, in order. */
  afterCommit: (events: EngineEvents) => void;
  onFatal: (err: unknown) => void;
  expirySweepMs?: number;
  /** The settlement chain, given where to report; default the local chain. */
  createChain?: (sink: ChainSink, engine: Engine) => SettlementChain;
  /** Timeouts and backoff for handing fills to the chain, and the report of each failed attempt. */
  chainSubmit: ChainSubmitterOptions;
}

interface Pending {
  cmd: Command;
  result: CommandResult;
  events: EngineEvents;
  resolve: (r: CommandResult) => void;
  reject: (e: unknown) => void;
}

export class EngineRunner {
  private queue: Pending[] = [];
  private flushScheduled = false;
  /** Changes committed but not yet handed to afterCommit. */
  private unpublished: EngineEvents | undefined;
  private broken: unknown;
  private sweep: NodeJS.Timeout | undefined;
  /** Refunds already handed to the chain (all of them are handed again at start: the chain pays each once). */
  private refundsHanded = 0;
  /** The settlement chain behind retries: a chain that throws or hangs leaves fills PENDING, never the runner broken. */
  readonly chain: ChainSubmitter;

  constructor(
    readonly engine: Engine,
    private readonly journal: Journal,
    private readonly opts: RunnerOptions,
  ) {
    const run = (cmd: Command) => void this.submit(cmd).catch((err) => this.opts.onFatal(err));
    const sink: ChainSink = {
      executed: (fillHash, chain) => run({ kind: 'confirmFill', at: this.opts.now(), fillHash, ...(chain ? { chain } : {}) }),
      attempted: (fillHashes, txHash) => run({ kind: 'fillAttempt', at: this.opts.now(), fillHashes, txHash }),
      tokenEvents: (events, toBlock) => run({ kind: 'chainEvents', at: this.opts.now(), toBlock, ...events }),
    };
    const chain = opts.createChain?.(sink, engine) ?? new LocalChain(opts.chainConfirmationDelayMs, opts.now, sink);
    this.chain = new ChainSubmitter(chain, opts.chainSubmit);
  }

  /** Rebuilds the engine from the journal; returns the number of commands replayed. */
  replay(): number {
    let n = 0;
    for (const cmd of this.journal.replay()) {
      try {
        this.engine.apply(cmd);
      } catch (err) {
        // A journaled command was accepted once; a rejection now means the journal and the code disagree.
        if (!(err instanceof EngineRejection)) throw err;
      }
      n++;
    }
    return n;
  }

  /** Resubmits fills still pending after a restart and starts the expiry sweep. */
  start(): void {
    this.chain.start();
    for (const fill of this.engine.fills.values()) {
      if (fill.status === 'PENDING') this.chain.submit(fill.fillHash, fill.acceptedAt);
    }
    this.handRefunds();
    this.sweep = setInterval(() => this.sweepExpired(), this.opts.expirySweepMs ?? 200);
    this.sweep.unref();
  }

  stop(): void {
    if (this.sweep) clearInterval(this.sweep);
    this.chain.stop();
    if (this.queue.length > 0) this.flush();
    this.publishCommitted();
  }

  /** Applies a command now; resolves after it is durable, rejects with EngineRejection if refused. */
  submit(cmd: Command): Promise<CommandResult> {
    if (this.broken !== undefined) {
      return Promise.reject(new EngineRejection(503, 'STORAGE_FAILED', 'the exchange cannot write to its journal'));
    }
    this.publishCommitted();
    let applied: { result: CommandResult; events: EngineEvents };
    try {
      applied = this.engine.apply(cmd);
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ cmd, ...applied, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.flushScheduled = false;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    try {
      this.journal.appendAll(batch.map((p) => p.cmd));
    } catch (err) {
      // Memory is now ahead of disk: refuse everything until an operator restarts (replay restores the truth).
      this.broken = err;
      for (const p of batch) p.reject(new EngineRejection(503, 'STORAGE_FAILED', 'the exchange cannot write to its journal'));
      this.opts.onFatal(err);
      return;
    }
    const merged = Engine.noEvents();
    for (const p of batch) {
      p.resolve(p.result);
      for (const k of ['orders', 'trades', 'books', 'accounts', 'refunds'] as const) for (const x of p.events[k]) merged[k].add(x);
      merged.submittedFills.push(...p.events.submittedFills);
    }
    for (const fillHash of merged.submittedFills) this.chain.submit(fillHash, this.engine.fills.get(fillHash)!.acceptedAt);
    this.handRefunds();
    // Reply first, fan out after: the callers' replies are written in the microtasks that follow this flush; the
    // realtime rendering waits for the next turn, so however many subscribers a book has, it never delays them.
    this.unpublished = merged;
    setImmediate(() => this.publishCommitted());
  }

  /**
   * Hands the last commit's changes to afterCommit, once. Runs on the turn after the commit, or earlier, just
   * before the next command is applied, so what is rendered is exactly the committed state.
   */
  private publishCommitted(): void {
    const events = this.unpublished;
    if (!events) return;
    this.unpublished = undefined;
    this.opts.afterCommit(events);
  }

  private handRefunds(): void {
    const refunds = this.engine.refunds;
    if (this.refundsHanded === refunds.length) return;
    this.chain.refundsPaid(refunds.slice(this.refundsHanded));
    this.refundsHanded = refunds.length;
  }

  private sweepExpired(): void {
    const next = this.engine.nextExpiryAt();
    const now = this.opts.now();
    if (next !== undefined && next <= now) {
      this.submit({ kind: 'expire', at: now }).catch((err) => this.opts.onFatal(err));
    }
  }
}
