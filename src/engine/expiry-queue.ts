// Min-heap of (time, key): the engine's next expiry without scanning every order.
// Entries are never removed early; stale ones (order closed, heartbeat refreshed) are skipped when they surface.
// Ties of time are ordered by key, so what pops first depends only on the entries, never on the order they were
// pushed in: a queue restored from a snapshot (sorted by time, then key) expires equal times in the live order.
// Times and keys sit in two parallel arrays: a queued entry allocates nothing (an {at, key} object per entry, with
// its millisecond time boxed as a heap number, was two objects per posted order that lived until compaction).
/** Whether entry (a, ka) comes out before (b, kb): earlier time, then the smaller key. */
const earlier = (a: number, ka: string, b: number, kb: string) => a < b || (a === b && ka < kb);

export class ExpiryQueue {
  /** Milliseconds: an array of doubles, stored unboxed. */
  private readonly times: number[] = [];
  private readonly keys: string[] = [];

  push(at: number, key: string): void {
    const times = this.times;
    const keys = this.keys;
    let i = times.length;
    times.push(at);
    keys.push(key);
    // Sift up: parents that come out after the entry move down until its place is found.
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!earlier(at, key, times[parent]!, keys[parent]!)) break;
      times[i] = times[parent]!;
      keys[i] = keys[parent]!;
      i = parent;
    }
    times[i] = at;
    keys[i] = key;
  }

  /** Time of the earliest entry, or undefined when empty. */
  nextAt(): number | undefined {
    return this.times.length > 0 ? this.times[0] : undefined;
  }

  /** Key of the earliest entry (the queue must not be empty). */
  nextKey(): string {
    return this.keys[0]!;
  }

  /** Drops the earliest entry. */
  pop(): void {
    const times = this.times;
    const keys = this.keys;
    const lastAt = times.pop();
    const lastKey = keys.pop();
    if (times.length === 0 || lastAt === undefined || lastKey === undefined) return;
    this.siftDown(0, lastAt, lastKey);
  }

  /** Places (at, key) at hole `i` or below it, moving children that come out earlier up. */
  private siftDown(i: number, at: number, key: string): void {
    const times = this.times;
    const keys = this.keys;
    const n = times.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const child = r < n && earlier(times[r]!, keys[r]!, times[l]!, keys[l]!) ? r : l;
      if (!earlier(times[child]!, keys[child]!, at, key)) break;
      times[i] = times[child]!;
      keys[i] = keys[child]!;
      i = child;
    }
    times[i] = at;
    keys[i] = key;
  }

  /** Keeps only the entries `keep` accepts, in place, and restores the heap order (linear time, no sort). */
  retain(keep: (at: number, key: string) => boolean): void {
    const times = this.times;
    const keys = this.keys;
    let kept = 0;
    for (let i = 0; i < times.length; i++) {
      if (!keep(times[i]!, keys[i]!)) continue;
      times[kept] = times[i]!;
      keys[kept] = keys[i]!;
      kept++;
    }
    times.length = kept;
    keys.length = kept;
    for (let i = (kept >> 1) - 1; i >= 0; i--) this.siftDown(i, times[i]!, keys[i]!);
  }

  get size(): number {
    return this.times.length;
  }

  /** The heap as stored, for snapshots: restoring it gives back the same queue, entry for entry. */
  entries(): { at: number; key: string }[] {
    return this.times.map((at, i) => ({ at, key: this.keys[i]! }));
  }

  /** From entries already in heap order (as entries() or a sorted list gives them). */
  static from(entries: readonly { at: number; key: string }[]): ExpiryQueue {
    const q = new ExpiryQueue();
    for (const e of entries) {
      q.times.push(e.at);
      q.keys.push(e.key);
    }
    return q;
  }
}
