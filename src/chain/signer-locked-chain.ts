// The chain of a sequencer that keeps the settlement role on a database server, behind the settlement lock that
// settlement processes take (store/postgres/settlement-lock.ts): an exchange's one signer holds that lock, whichever
// process it runs in, so a settlement process started beside this sequencer by mistake stands by instead of signing
// with the same keys. Until this process holds the lock (that process runs, or a superseded writer has not stopped
// yet) its chain is not started: submits wait for it (the fill stays PENDING; past ChainSubmitter's timeout it is tried
// again) and escrow payouts are kept, then handed over. Start-up never waits for it.
import type { RefundPaid } from '../engine/changes.js';
import type { FillTerms, ReportedMarket, SettlementChain } from './settlement-chain.js';

/** A session lock as the store holds it: lost with its connection, released on stop. */
export interface SignerLock {
  readonly lost: Promise<Error>;
  release(): Promise<void>;
}

/** How the lock is waited for (store/postgres/settlement-lock.ts takeSettlementLock). */
export type TakeSignerLock = (wait: { signal: AbortSignal; waiting: () => void; onRetry: (err: unknown) => void }) => Promise<SignerLock>;

export interface SignerLockLog {
  info(msg: string): void;
  warn(obj: object | string, msg?: string): void;
}

export class SignerLockedChain implements SettlementChain {
  readonly marketsReported?: (markets: ReportedMarket[]) => void;
  readonly refundsPaid?: (refunds: readonly RefundPaid[]) => void;
  private held = false;
  private stopped = false;
  private lock: SignerLock | undefined;
  private readonly stopWaiting = new AbortController();
  /** Escrow payouts asked for before the lock was held, in order. */
  private kept: (() => void)[] = [];
  private nowHeld: () => void = () => {};
  /** Resolves once this process holds the lock and its chain has started. */
  private readonly lockHeld = new Promise<void>((resolve) => (this.nowHeld = resolve));
  /** Per fill, its submit waiting for the lock. */
  private readonly waiting = new Map<string, Promise<void>>();

  constructor(
    private readonly inner: SettlementChain,
    private readonly take: TakeSignerLock,
    private readonly log: SignerLockLog,
  ) {
    // Only a chain that pays on chain has these: ChainSubmitter tells the two apart by them.
    if (inner.marketsReported) this.marketsReported = (markets) => this.whenHeld(() => inner.marketsReported!(markets));
    if (inner.refundsPaid) this.refundsPaid = (refunds) => this.whenHeld(() => inner.refundsPaid!(refunds));
  }

  get needsFillTerms(): boolean | undefined {
    return this.inner.needsFillTerms;
  }

  get inFlight(): number | undefined {
    return this.inner.inFlight;
  }

  start(): void {
    void this.hold(true);
  }

  submit(fillHash: string, acceptedAt: number, terms?: FillTerms): void | Promise<void> {
    if (this.held) return this.inner.submit(fillHash, acceptedAt, terms);
    // Taken once the lock is held. ChainSubmitter counts the wait against its timeout and tries again after it: a
    // repeat joins the fill's waiting submit, so however long the lock is held elsewhere, one waits per fill.
    let waiting = this.waiting.get(fillHash);
    if (!waiting) {
      waiting = this.lockHeld.then(() => {
        this.waiting.delete(fillHash);
        return this.inner.submit(fillHash, acceptedAt, terms);
      });
      this.waiting.set(fillHash, waiting);
    }
    return waiting;
  }

  stop(): void {
    this.stopped = true;
    this.waiting.clear();
    this.stopWaiting.abort();
    this.inner.stop();
    void this.lock?.release();
  }

  /** Takes the lock; the first time, then starts the chain and hands over what was kept. A lost lock is taken again. */
  private async hold(first: boolean): Promise<void> {
    let lock: SignerLock;
    try {
      lock = await this.take({
        signal: this.stopWaiting.signal,
        waiting: () => this.log.warn('another process holds the settlement lock (a settlement process beside a sequencer that settles itself?): fills stay PENDING until it is released'),
        onRetry: (err) => this.log.warn({ err }, 'the settlement lock was not reached; tried again shortly'),
      });
    } catch {
      return; // stopped while waiting
    }
    if (this.stopped) return void lock.release();
    this.lock = lock;
    void lock.lost.then((err) => {
      if (this.stopped) return;
      // Still the fenced writer's chain: it goes on settling, and holds the lock again once the database is back.
      this.log.warn({ err }, 'the settlement lock was lost; settling goes on and the lock is taken again');
      void this.hold(false);
    });
    if (!first) return;
    this.log.info('holding the settlement lock: this process is the chain\'s one signer');
    this.inner.start?.();
    this.held = true;
    this.nowHeld();
    const kept = this.kept;
    this.kept = [];
    for (const hand of kept) hand();
  }

  private whenHeld(hand: () => void): void {
    if (this.held) hand();
    else this.kept.push(hand);
  }
}
