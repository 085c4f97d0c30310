// Keeps a maker's heartbeat alive: refreshes well before it expires, so the exchange cancels the maker's
// orders only when this process really stops (crash, network loss), never between two healthy refreshes.

export interface HeartbeatKeeperOptions {
  /** The heartbeat timeout the exchange enforces (seconds, at least 1). */
  timeoutSeconds: number;
  /** Refresh period; default a third of the timeout, so two refreshes may fail before orders go. */
  intervalMs?: number;
  /** Told of each failed refresh (the keeper goes on trying). */
  onError?: (err: unknown) => void;
}

export class HeartbeatKeeper {
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly intervalMs: number;
  /** Expiry the exchange last confirmed (ISO 8601). */
  lastExpiresAt: string | undefined;

  constructor(
    private readonly send: (timeoutSeconds: number) => Promise<{ expiresAt: string }>,
    private readonly opts: HeartbeatKeeperOptions,
  ) {
    if (!Number.isInteger(opts.timeoutSeconds) || opts.timeoutSeconds < 1) throw new RangeError('timeoutSeconds must be an integer >= 1');
    this.intervalMs = opts.intervalMs ?? Math.max(100, (opts.timeoutSeconds * 1000) / 3);
  }

  get running(): boolean {
    return this.timer !== undefined;
  }

  start(): void {
    if (this.timer) return;
    void this.beat();
    this.timer = setInterval(() => void this.beat(), this.intervalMs);
    // A keeper alone does not keep a Node process alive.
    (this.timer as { unref?: () => void }).unref?.();
  }

  /** The first refresh, for callers that want to know the heartbeat is registered. */
  async beat(): Promise<void> {
    try {
      this.lastExpiresAt = (await this.send(this.opts.timeoutSeconds)).expiresAt;
    } catch (err) {
      this.opts.onError?.(err);
    }
  }

  /**
   * Stops refreshing. With `deactivate`, tells the exchange (timeout 0): the orders then stay in the book.
   * Without it the heartbeat runs out and the exchange cancels the orders, as if the process had died.
   */
  async stop(opts: { deactivate?: boolean } = {}): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    if (opts.deactivate) await this.send(0);
  }
}
