// Min-heap of (time, key): the engine's next expiry without scanning every order.
// Entries are never removed early; stale ones (order closed, heartbeat refreshed) are skipped when they surface.
export class ExpiryQueue {
  private readonly heap: { at: number; key: string }[] = [];

  push(at: number, key: string): void {
    const h = this.heap;
    h.push({ at, key });
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (h[parent]!.at <= h[i]!.at) break;
      swap(h, parent, i);
      i = parent;
    }
  }

  peek(): { at: number; key: string } | undefined {
    return this.heap[0];
  }

  pop(): { at: number; key: string } | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (h.length > 0 && last) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && h[l]!.at < h[m]!.at) m = l;
        if (r < h.length && h[r]!.at < h[m]!.at) m = r;
        if (m === i) break;
        swap(h, m, i);
        i = m;
      }
    }
    return top;
  }

  get size(): number {
    return this.heap.length;
  }

  /** The heap as stored, for snapshots: restoring it gives back the same queue, entry for entry. */
  entries(): { at: number; key: string }[] {
    return this.heap.map((e) => ({ ...e }));
  }

  static from(entries: readonly { at: number; key: string }[]): ExpiryQueue {
    const q = new ExpiryQueue();
    for (const e of entries) q.heap.push({ ...e });
    return q;
  }
}

/** Through a temporary: a destructuring swap may build an array per step. */
function swap<T>(h: T[], a: number, b: number): void {
  const t = h[a]!;
  h[a] = h[b]!;
  h[b] = t;
}
