// A parlay's book stays dark while makers quote it: what the book channels would publish for orders journaled during
// the quote window is held and published at once when the window closes (makers still see their own orders on
// active_orders). An order belongs to the window by its journal time, not by when its publication comes: that
// follows projection, a few ms later or, under load, much more. So the release at the close first waits until
// publication has covered everything journaled by then, and orders journaled after the close that are published
// meanwhile wait behind it. Best odds that moved in the window are kept quiet too; the market's best odds as they
// stand at the close are published once, right after that release (so best_odds:global learns the offers the book
// channels and GET /orders/odds/best show from then on, without waiting for a later move).
import type { OrderItem } from '../events.js';

export interface QuoteWindows {
  /** UNIX ms at which a parlay's quote window closes; undefined for any other market. */
  quoteWindowEndsAt(marketHash: string): number | undefined;
}

/** How far the realtime publications have come along the journal (the projection loop). */
export interface PublicationProgress {
  /** Resolves once everything journaled so far has been published, however long projecting it takes. */
  publishedJournaled(): Promise<void>;
}

type Release = (marketHash: string, exchangeEventId: string, orders: OrderItem[]) => void;
type ReleaseBestOdds = (marketHash: string) => void;

interface Held {
  endsAt: number;
  exchangeEventId: string;
  /** Orders journaled before the close: the one release. */
  orders: OrderItem[];
  /** Publications of orders journaled after the close that came before the release: published after it, in order. */
  after: OrderItem[][];
  timer: NodeJS.Timeout;
}

export class QuoteWindowHold {
  private readonly held = new Map<string, Held>();
  /** Markets whose best odds moved in their quote window: the timer that publishes them at the close. */
  private readonly quietBestOdds = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly windows: QuoteWindows,
    private readonly progress: PublicationProgress,
    private readonly now: () => number,
    private readonly release: Release,
    private readonly releaseBestOdds: ReleaseBestOdds = () => {},
  ) {}

  /**
   * Takes the publication of orders changed on one market, with each order's journal time (by index): true when it
   * is published here (held for the window's release, or queued behind it), false when the caller publishes it now.
   * An order journaled before the close that comes after the release (its command reached the journal only after
   * the close) opens a release of its own, after the publications already queued.
   */
  hold(marketHash: string, exchangeEventId: string, orders: readonly OrderItem[], journaledAt: readonly number[]): boolean {
    let entry = this.held.get(marketHash);
    const endsAt = entry?.endsAt ?? this.windows.quoteWindowEndsAt(marketHash);
    if (endsAt === undefined) return false;
    const inWindow = orders.filter((_, i) => journaledAt[i]! < endsAt);
    if (!entry && inWindow.length === 0) return false;
    if (!entry) {
      const timer = setTimeout(() => this.close(marketHash), Math.max(0, endsAt - this.now()));
      timer.unref();
      entry = { endsAt, exchangeEventId, orders: [], after: [], timer };
      this.held.set(marketHash, entry);
    }
    entry.orders.push(...inWindow);
    if (inWindow.length < orders.length) entry.after.push(orders.filter((_, i) => journaledAt[i]! >= endsAt));
    return true;
  }

  /**
   * Best odds of this market moved: true when they are kept quiet (its quote window is open), and then the market's
   * best odds at the close are released once the window closes and publication covers what was journaled by then
   * (after the book's release, whose timer was set first or at the same time).
   */
  holdBestOdds(marketHash: string): boolean {
    const endsAt = this.windows.quoteWindowEndsAt(marketHash);
    if (endsAt === undefined || this.now() >= endsAt) return false;
    if (!this.quietBestOdds.has(marketHash)) {
      const timer = setTimeout(() => {
        const flush = () => {
          if (this.quietBestOdds.delete(marketHash)) this.releaseBestOdds(marketHash);
        };
        this.progress.publishedJournaled().then(flush, flush);
      }, endsAt - this.now());
      timer.unref();
      this.quietBestOdds.set(marketHash, timer);
    }
    return true;
  }

  /**
   * The window closed: once publication covers what was journaled by now (bounded by projection, not by a guess),
   * the orders held are published together, then what came after them.
   */
  private close(marketHash: string): void {
    const flush = () => this.flush(marketHash);
    this.progress.publishedJournaled().then(flush, flush);
  }

  private flush(marketHash: string): void {
    const entry = this.held.get(marketHash);
    if (!entry) return;
    this.held.delete(marketHash);
    if (entry.orders.length > 0) this.release(marketHash, entry.exchangeEventId, entry.orders);
    for (const orders of entry.after) this.release(marketHash, entry.exchangeEventId, orders);
  }

  /** Drops what is held (shutdown): a release still waiting for publication then publishes nothing. */
  clear(): void {
    for (const { timer } of this.held.values()) clearTimeout(timer);
    this.held.clear();
    for (const timer of this.quietBestOdds.values()) clearTimeout(timer);
    this.quietBestOdds.clear();
  }
}
