// One channel's stream: a contiguous offset counter plus a history ring bounded by count, bytes and age.

interface Entry {
  offset: number;
  time: number;
  /** The encoded publication `{"data":...,"offset":n}`. */
  json: string;
  bytes: number;
}

export class ChannelStream {
  /** Offset of the last publication; 0 before the first. Offsets are contiguous: 1, 2, 3, ... */
  top = 0;
  private readonly ring: (Entry | undefined)[];
  private start = 0;
  private count = 0;
  /** UTF-8 bytes of the retained publications. */
  bytes = 0;
  /** When the stream was opened, last published to or last left by its subscribers: how long it has been idle. */
  lastActiveAt: number;

  constructor(
    /** Names this stream's numbering: a stream dropped and started again for the same channel gets another one. */
    readonly epoch: string,
    readonly capacity: number,
    private readonly ttlMs: number,
    /** Most bytes of publications kept; the oldest go first (a few large publications cannot pin memory). */
    readonly maxBytes = Infinity,
    openedAt = 0,
  ) {
    this.lastActiveAt = openedAt;
    // Grows as publications come (in order from slot 0): a stream opened by a subscription to a channel that never
    // publishes holds no slots.
    this.ring = [];
  }

  /** Counts idleness from `now` (the last subscriber left: a position was handed out until then). */
  touch(now: number): void {
    this.lastActiveAt = Math.max(this.lastActiveAt, now);
  }

  /** Appends a publication; `encode` receives its offset. Returns the entry's JSON and offset. */
  append(encode: (offset: number) => string, now: number): { offset: number; json: string } {
    const offset = ++this.top;
    const json = encode(offset);
    this.lastActiveAt = now;
    if (this.capacity > 0) {
      if (this.count === this.capacity) this.dropOldest();
      const entry = { offset, time: now, json, bytes: Buffer.byteLength(json) };
      this.ring[(this.start + this.count++) % this.capacity] = entry;
      this.bytes += entry.bytes;
      while (this.bytes > this.maxBytes) this.dropOldest();
    }
    return { offset, json };
  }

  private dropOldest(): void {
    this.bytes -= this.ring[this.start]!.bytes;
    this.ring[this.start] = undefined;
    this.start = (this.start + 1) % this.capacity;
    this.count--;
  }

  /** Drops entries older than the retention. */
  expire(now: number): void {
    while (this.count > 0 && now - this.ring[this.start]!.time >= this.ttlMs) this.dropOldest();
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
