// Listing items kept as rendered, so a listing read again (a bot polling its own trades) renders only the trades that
// changed since. Each item is kept with the version its trade was read at (T_TRADE_VERSION in store/sqlite/trade-rows.ts,
// read again with every page), and is used only while the version read now is the same. Items are shared by replies
// and never changed after they are kept; their JSON text is kept too, so a reply does not encode them again.
import { LRUCache } from 'lru-cache';

export class RenderedTrades<T extends object> {
  private readonly kept: LRUCache<number, { version: number; item: T }>;
  private readonly texts = new WeakMap<T, string>();

  /** At most `max` items; the least recently listed go first. */
  constructor(max: number) {
    this.kept = new LRUCache({ max });
  }

  /** The item of trade `id` rendered at this version, if it is kept. */
  get(id: number, version: number): T | undefined {
    const kept = this.kept.get(id);
    return kept !== undefined && kept.version === version ? kept.item : undefined;
  }

  set(id: number, version: number, item: T): void {
    this.kept.set(id, { version, item });
    this.texts.set(item, JSON.stringify(item));
  }

  /** JSON.stringify(items), reusing the text of each kept item. */
  json(items: readonly T[]): string {
    return `[${items.map((item) => this.texts.get(item) ?? JSON.stringify(item)).join(',')}]`;
  }

  get size(): number {
    return this.kept.size;
  }
}
