// The read models' position as a process that does not project them sees it (a gateway): read from the database's
// checkpoint, polled briefly while a read waits for a position and now and then otherwise, so the `Oddex-Position`
// of a read stays close to what the read side holds.
const WAIT_POLL_MS = 10;
const IDLE_POLL_MS = 250;

export class ProjectionFollower {
  private position_ = 0;
  private reading: Promise<number> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly read: () => Promise<number>) {}

  get position(): number {
    return this.position_;
  }

  /** Reads the position once, then keeps it fresh in the background until stopped. */
  async start(): Promise<void> {
    await this.refresh();
    const tick = () => {
      if (this.stopped) return;
      this.timer = setTimeout(() => void this.refresh().catch(() => {}).finally(tick), IDLE_POLL_MS);
      this.timer.unref();
    };
    tick();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  /** Whether the read models reach `seq` within `timeoutMs` (reads of the checkpoint are shared by waiters). */
  async waitFor(seq: number, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.position_ >= seq) return true;
      if (Date.now() >= deadline) return false;
      await this.refresh().catch(() => {});
      if (this.position_ >= seq) return true;
      await new Promise((r) => setTimeout(r, Math.min(WAIT_POLL_MS, Math.max(0, deadline - Date.now()))));
    }
  }

  private refresh(): Promise<number> {
    this.reading ??= this.read()
      .then((p) => (this.position_ = Math.max(this.position_, p)))
      .finally(() => (this.reading = undefined));
    return this.reading;
  }
}
