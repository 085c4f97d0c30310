// Many small lookups asked at once, answered by one query. A guard the writer awaits before every fill or post
// (was this fill's salt used, was this order posted) costs a round trip and a statement per command on a database
// server; under load the asks pile up while one query is out, so the next query takes them all. At most one query is
// in flight: with none out an ask goes at once (no added latency when idle), otherwise it joins the next batch.

/** Answers a batch of distinct keys: which of them are found. */
export type FoundIn<K> = (keys: readonly K[]) => Promise<(key: K) => boolean>;

interface Ask<K> {
  keys: readonly K[];
  resolve: (found: (key: K) => boolean) => void;
  reject: (err: unknown) => void;
}

export class CoalescedLookup<K> {
  private waiting: Ask<K>[] = [];
  private inFlight = false;

  constructor(private readonly lookup: FoundIn<K>) {}

  /** Which of these keys are found, answered together with the keys others asked meanwhile. */
  find(keys: readonly K[]): Promise<(key: K) => boolean> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ keys, resolve, reject });
      if (!this.inFlight) void this.next();
    });
  }

  private async next(): Promise<void> {
    const batch = this.waiting;
    if (batch.length === 0) return;
    this.waiting = [];
    this.inFlight = true;
    try {
      const found = await this.lookup([...new Set(batch.flatMap((a) => a.keys))]);
      for (const a of batch) a.resolve(found);
    } catch (err) {
      for (const a of batch) a.reject(err);
    } finally {
      this.inFlight = false;
      void this.next();
    }
  }
}
