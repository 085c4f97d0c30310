// A set of keys that drops its oldest in O(1) amortized. A JS Set does this badly when keys leave from the front
// while new ones arrive: deleted slots stay in its table until it is rehashed, and every walk from the start (the
// only way to find the oldest) steps over them again. Here the insertion order is a FIFO of (key, serial) beside
// a Map of each live key's serial; an entry whose key was deleted or added again since is stale and skipped.
import { Fifo } from './fifo.js';

export class OrderedKeySet {
  private readonly serialOf = new Map<string, number>();
  private keys = new Fifo<string>();
  private serials = new Fifo<number>();
  private nextSerial = 0;

  get size(): number {
    return this.serialOf.size;
  }

  /** Entries in the insertion queue, stale ones included: what the bound on its growth is about. */
  get queued(): number {
    return this.keys.size;
  }

  has(key: string): boolean {
    return this.serialOf.has(key);
  }

  /** As Set.add: a key already present keeps its place. */
  add(key: string): void {
    if (this.serialOf.has(key)) return;
    const serial = this.nextSerial++;
    this.serialOf.set(key, serial);
    this.keys.push(key);
    this.serials.push(serial);
  }

  delete(key: string): boolean {
    if (!this.serialOf.delete(key)) return false;
    // Stale entries wait in the queues; once they outnumber the live ones the queues are rebuilt from the Map.
    if (this.keys.size > 2 * this.serialOf.size + 1024) this.rebuild();
    return true;
  }

  /** Removes and returns the oldest key, or undefined when empty. */
  deleteOldest(): string | undefined {
    for (let key = this.keys.shift(); key !== undefined; key = this.keys.shift()) {
      const serial = this.serials.shift();
      if (this.serialOf.get(key) !== serial) continue;
      this.serialOf.delete(key);
      return key;
    }
    return undefined;
  }

  /** Oldest first. */
  values(): IterableIterator<string> {
    return this.serialOf.keys();
  }

  private rebuild(): void {
    this.keys = new Fifo<string>();
    this.serials = new Fifo<number>();
    for (const [key, serial] of this.serialOf) {
      this.keys.push(key);
      this.serials.push(serial);
    }
  }
}
