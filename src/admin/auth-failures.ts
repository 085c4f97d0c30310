// Failed operator authentications per client address, in fixed windows: guessing the admin token costs a
// window per few tries. Memory stays bounded under an address flood: past `maxClients` the oldest are dropped.

export class AuthFailures {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly maxClients = 10_000,
  ) {}

  /** Milliseconds until `client` may try again, or 0 when it may try now. */
  blockedFor(client: string, nowMs: number): number {
    const w = this.windows.get(client);
    if (!w || nowMs >= w.resetAt) return 0;
    return w.count >= this.limit ? w.resetAt - nowMs : 0;
  }

  record(client: string, nowMs: number): void {
    let w = this.windows.get(client);
    if (!w || nowMs >= w.resetAt) {
      this.windows.delete(client); // re-inserted last: Map order stays oldest window first
      if (this.windows.size >= this.maxClients) this.dropOldest(nowMs);
      w = { count: 0, resetAt: nowMs + this.windowMs };
      this.windows.set(client, w);
    }
    w.count++;
  }

  private dropOldest(nowMs: number): void {
    for (const [client, w] of this.windows) {
      if (this.windows.size < this.maxClients && nowMs < w.resetAt) break;
      this.windows.delete(client);
    }
  }
}
