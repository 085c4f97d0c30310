// Where accepted fills go to settle. The chain decides when a fill executes; the engine then applies it
// against the ledger (SUCCESS when both sides still hold their stakes, FAILED otherwise).
export interface SettlementChain {
  /**
   * A fill was accepted at `acceptedAt` (ms); the chain calls back once it has executed. May be async: it
   * resolves once the chain has taken the fill, and throwing or rejecting means "not taken, try again".
   * Must be idempotent per fill hash: a submit that timed out may be repeated while the first still runs.
   */
  submit(fillHash: string, acceptedAt: number): void | Promise<void>;
  stop(): void;
}

/** The default chain: in process, every fill executes a fixed delay after it was accepted. */
export class LocalChain implements SettlementChain {
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopped = false;

  constructor(
    private readonly confirmationDelayMs: number,
    private readonly now: () => number,
    private readonly onExecuted: (fillHash: string) => void,
  ) {}

  submit(fillHash: string, acceptedAt: number): void {
    if (this.stopped) return;
    // Wall-clock time can jump back (NTP, a restored VM): a fill accepted "in the future" still waits at most
    // one confirmation delay from now, so no clock change can strand it.
    const wait = Math.min(this.confirmationDelayMs, Math.max(0, acceptedAt + this.confirmationDelayMs - this.now()));
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.onExecuted(fillHash);
    }, wait);
    this.timers.add(timer);
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }
}
