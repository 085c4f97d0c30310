// First-in first-out queue over an array with a moving head. The consumed prefix is dropped in bulk once it is
// half the array, so push and shift are O(1) amortized. It replaces "oldest entry of a Map" lookups: a Map whose
// oldest entries are deleted keeps their slots until it is rehashed, and iterating from its start walks them all.
export class Fifo<T> {
  private items: T[] = [];
  private head = 0;

  push(item: T): void {
    this.items.push(item);
  }

  peek(): T | undefined {
    return this.head < this.items.length ? this.items[this.head] : undefined;
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head++];
    if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  /** The items, oldest first (a copy). */
  toArray(): T[] {
    return this.items.slice(this.head);
  }

  get size(): number {
    return this.items.length - this.head;
  }
}
