// A parlay's book stays dark while makers quote it: what the book channels would publish during the quote window
// is held and published at once when the window closes (makers still see their own orders on active_orders).
import type { OrderItem } from '../events.js';

export interface QuoteWindows {
  /** UNIX ms at which a parlay's quote window closes; undefined for any other market. */
  quoteWindowEndsAt(marketHash: string): number | undefined;
}

type Release = (marketHash: string, exchangeEventId: string, orders: OrderItem[]) => void;

export class QuoteWindowHold {
  private readonly held = new Map<string, { exchangeEventId: string; orders: OrderItem[]; timer: NodeJS.Timeout }>();

  constructor(
    private readonly windows: QuoteWindows,
    private readonly now: () => number,
    private readonly release: Release,
  ) {}

  /** True when the market's window is open: the orders are kept for its close instead of being published now. */
  hold(marketHash: string, exchangeEventId: string, orders: readonly OrderItem[]): boolean {
    const endsAt = this.windows.quoteWindowEndsAt(marketHash);
    if (endsAt === undefined || this.now() >= endsAt) return false;
    let entry = this.held.get(marketHash);
    if (!entry) {
      const timer = setTimeout(() => this.flush(marketHash), endsAt - this.now());
      timer.unref();
      entry = { exchangeEventId, orders: [], timer };
      this.held.set(marketHash, entry);
    }
    entry.orders.push(...orders);
    return true;
  }

  /** Whether best odds of this market are still to be kept quiet. */
  quoting(marketHash: string): boolean {
    const endsAt = this.windows.quoteWindowEndsAt(marketHash);
    return endsAt !== undefined && this.now() < endsAt;
  }

  private flush(marketHash: string): void {
    const entry = this.held.get(marketHash);
    if (!entry) return;
    this.held.delete(marketHash);
    this.release(marketHash, entry.exchangeEventId, entry.orders);
  }

  /** Drops what is held (shutdown). */
  clear(): void {
    for (const { timer } of this.held.values()) clearTimeout(timer);
    this.held.clear();
  }
}
