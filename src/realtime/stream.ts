// One channel's stream: a contiguous offset counter plus a bounded, time-limited history ring.

interface Entry {
  offset: number;
  time: number;
  /** The encoded publication `{"data":...,"offset":n}`. */
  json: string;
}

export class ChannelStream {
  /** Offset of the last publication; 0 before the first. Offsets are contiguous: 1, 2, 3, ... */
  top = 0;
  private readonly ring: (Entry | undefined)[];
  private start = 0;
  private count = 0;

  constructor(
    readonly capacity: number,
    private readonly ttlMs: number,
  ) {
    this.ring = new Array<Entry | undefined>(capacity);
  }

  /** Appends a publication; `encode` receives its offset. Returns the entry's JSON and offset. */
  append(encode: (offset: number) => string, now: number): { offset: number; json: string } {
    const offset = ++this.top;
    const json = encode(offset);
    if (this.capacity > 0) {
      const entry = { offset, time: now, json };
      if (this.count < this.capacity) {
        this.ring[(this.start + this.count++) % this.capacity] = entry;
      } else {
        this.ring[this.start] = entry;
        this.start = (this.start + 1) % this.capacity;
      }
    }
    return { offset, json };
  }

  /** Drops entries older than the retention. */
  expire(now: number): void {
    while (this.count > 0) {
      const first = this.ring[this.start]!;
      if (now - first.time < this.ttlMs) break;
      this.ring[this.start] = undefined;
      this.start = (this.start + 1) % this.capacity;
      this.count--;
    }
  }

  /** Offset of the oldest retained publication, or top + 1 when none is retained. */
  oldest(now: number): number {
    this.expire(now);
    return this.count > 0 ? this.ring[this.start]!.offset : this.top + 1;
  }

  /**
   * The retained publications with offset > `after`, oldest first, or undefined when history no longer
   * holds all of them (a partial answer would hide a gap).
   */
  after(after: number, now: number): string[] | undefined {
    if (after > this.top || after < 0) return undefined;
    if (after === this.top) return [];
    if (this.oldest(now) > after + 1) return undefined;
    const out: string[] = [];
    const skip = after + 1 - this.ring[this.start]!.offset;
    for (let i = skip; i < this.count; i++) out.push(this.ring[(this.start + i) % this.capacity]!.json);
    return out;
  }

  /** All retained publications, oldest first. */
  all(now: number): string[] {
    this.expire(now);
    const out: string[] = [];
    for (let i = 0; i < this.count; i++) out.push(this.ring[(this.start + i) % this.capacity]!.json);
    return out;
  }
}
