// A set of strings for the few keys one command collects (the accounts it touched), in insertion order. Most
// commands touch one to three accounts: a linear scan of an array beats hashing, and emptying it is a length
// reset, where a JS Set's clear() goes to the runtime. Past a few keys an index Set takes over the lookups, so a
// command touching thousands of accounts (a market report) stays linear.
const SCAN_LIMIT = 8;

export class SmallSet {
  private readonly items: string[] = [];
  private index: Set<string> | undefined;

  /** Keys in use: items past it are left from before the last clear (shrinking the array is a runtime call). */
  private count = 0;

  add(key: string): this {
    if (this.has(key)) return this;
    this.items[this.count++] = key;
    if (this.index) this.index.add(key);
    else if (this.count > SCAN_LIMIT) this.index = new Set(this.items.slice(0, this.count));
    return this;
  }

  has(key: string): boolean {
    if (this.index) return this.index.has(key);
    const items = this.items;
    for (let i = 0; i < this.count; i++) if (items[i] === key) return true;
    return false;
  }

  get size(): number {
    return this.count;
  }

  /** The i-th key added (0 first). */
  at(i: number): string {
    return this.items[i]!;
  }

  clear(): void {
    this.count = 0;
    this.index = undefined;
  }
}
