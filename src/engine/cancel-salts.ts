// The salts of cancels whose signed timestamps could still pass the skew check, oldest first: a replay of one of
// them is refused. Held per maker, so a lookup hashes the salt string the request already carries instead of a
// "maker:salt" string built (and kept for the whole window) per cancel. Timestamps only grow old in arrival order,
// so three parallel queues say what to forget next without a walk of the maps.
import { Fifo } from './fifo.js';

export class CancelSalts {
  private readonly byMaker = new Map<string, Map<string, number>>();
  private readonly makers = new Fifo<string>();
  private readonly salts = new Fifo<string>();
  private readonly times = new Fifo<number>();

  get size(): number {
    return this.times.size;
  }

  has(maker: string, salt: string): boolean {
    return this.byMaker.get(maker)?.has(salt) ?? false;
  }

  /** Records a cancel's salt with its signed time (ms); the caller refused it first if it was already known. */
  add(maker: string, salt: string, signedMs: number): void {
    let salts = this.byMaker.get(maker);
    if (!salts) this.byMaker.set(maker, (salts = new Map()));
    salts.set(salt, signedMs);
    this.makers.push(maker);
    this.salts.push(salt);
    this.times.push(signedMs);
  }

  /** Signed time (ms) of the oldest salt held, or undefined when none is. */
  oldestTime(): number | undefined {
    return this.times.peek();
  }

  /** Forgets the oldest salt. */
  forgetOldest(): void {
    const maker = this.makers.shift();
    const salt = this.salts.shift()!;
    this.times.shift();
    if (maker === undefined) return;
    const salts = this.byMaker.get(maker);
    if (salts?.delete(salt) && salts.size === 0) this.byMaker.delete(maker);
  }

  /** Oldest first, keyed "maker:salt" (the snapshot format, which held one flat map). */
  entries(): [string, number][] {
    const makers = this.makers.toArray();
    const salts = this.salts.toArray();
    return this.times.toArray().map((time, i) => [`${makers[i]!}:${salts[i]!}`, time]);
  }

  /** From entries(); a maker (an address) holds no ':', so the key splits at its first one. */
  static from(entries: readonly (readonly [string, number])[]): CancelSalts {
    const set = new CancelSalts();
    for (const [key, time] of entries) {
      const colon = key.indexOf(':');
      set.add(key.slice(0, colon), key.slice(colon + 1), time);
    }
    return set;
  }
}
