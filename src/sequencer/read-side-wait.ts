// A settlement process that takes over on an on-chain escrow hands it what the read side says is unpaid, and that list
// is complete only once the read side (the projector's checkpoint) covers the journal as far as the replica does: so
// the takeover waits for it, however long (an incomplete list would leave a refund or a payout unpaid until the next
// takeover). Fills do not wait for this; only the escrow's hand-over does. The wait is made visible instead of cut
// short: a warning every `warnAfterMs` while it lasts, naming how far the read side is behind, and figures for
// /metrics (how long it has waited, how many journal positions the read side lacks).

export interface ReadSideWaitDeps {
  /** The journal position the read side covers (its checkpoint). */
  projectedPosition: () => Promise<number>;
  /** How often the read side is read while it is behind. */
  pollMs: number;
  /** How long a wait lasts before it is logged as a warning (and again each time as long again). */
  warnAfterMs: number;
  now: () => number;
  log: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
  sleep?: (ms: number) => Promise<void>;
}

export class ReadSideWait {
  /** When the wait under way began (undefined: none). */
  private since: number | undefined;
  private lacking = 0;

  constructor(private readonly deps: ReadSideWaitDeps) {}

  /**
   * Resolves true once the read side covers `through`, false if `cancelled` says so first (the session ended: its
   * successor waits for itself). Only one wait at a time per process: a session's, and sessions do not overlap.
   */
  async until(through: number, cancelled: () => boolean): Promise<boolean> {
    const { pollMs, warnAfterMs, now, log } = this.deps;
    const sleep = this.deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
    const since = now();
    let warned = 0;
    try {
      for (;;) {
        if (cancelled()) return false;
        const projected = await this.deps.projectedPosition();
        if (projected >= through) {
          if (warned > 0) log.info({ through, waitedMs: now() - since }, `the read side covers position ${through}: unpaid refunds and positions handed to the escrow after ${Math.round((now() - since) / 1000)} s`);
          return true;
        }
        // Counted only once behind: a read side that covers the replica at once was never waited for.
        this.since = since;
        this.lacking = through - projected;
        const waited = now() - since;
        if (waited >= (warned + 1) * warnAfterMs) {
          warned = Math.floor(waited / warnAfterMs);
          log.warn(
            { through, projected, behind: this.lacking, waitedMs: waited },
            `the escrow's unpaid refunds and positions wait for the read side: it covers position ${projected}, ${this.lacking} behind ${through}, after ${Math.round(waited / 1000)} s (is the projector running?); fills settle meanwhile`,
          );
        }
        await sleep(pollMs);
      }
    } finally {
      this.since = undefined;
      this.lacking = 0;
    }
  }

  /** Seconds the wait under way has lasted; 0 when none. */
  waitedSeconds(): number {
    return this.since === undefined ? 0 : (this.deps.now() - this.since) / 1000;
  }

  /** Journal positions the read side lacked at its last reading during a wait; 0 when none. */
  behind(): number {
    return this.lacking;
  }
}
