// The catalogue's markets in memory: those not settled by hash and by fixture, open parlays by their legs, the ACTIVE
// ones in listing order, and a bounded cache of settled markets read lately (settled records never change again, and
// a month of trading leaves tens of thousands of them, so the catalogue reads them from disk when asked for).
import { LRUCache } from 'lru-cache';
import { PARLAY_MARKET_TYPE, type MarketRecord, type ParlayTerms } from './model.js';
import { byGameTimeThenHash } from './market-records.js';

/** Settled markets kept in memory after a read, unless told otherwise: about 1.3 KB each. */
export const SETTLED_MARKETS_CACHED = 10_000;

export class MarketIndex {
  /** Markets not SETTLED, whose status may still change. */
  private readonly openByHash = new Map<string, MarketRecord>();
  private readonly openByEvent = new Map<string, MarketRecord[]>();
  /** Settled markets read lately (records are immutable once settled). */
  private readonly settled: LRUCache<string, MarketRecord>;
  /** Which open parlays each leg market is part of. */
  private readonly parlaysByLeg = new Map<string, Set<string>>();
  /** ACTIVE markets by (gameTime, marketHash); rebuilt lazily after a change. */
  private activeSorted: MarketRecord[] | undefined;

  /**
   * `openParlays`: the terms of the parlays not settled (shared with the catalogue, which adds to it);
   * `settledCached`: how many settled markets are kept after a read.
   */
  constructor(
    readonly openParlays: Map<string, ParlayTerms>,
    settledCached = SETTLED_MARKETS_CACHED,
  ) {
    this.settled = new LRUCache<string, MarketRecord>({ max: settledCached });
  }

  /** A market not settled. */
  open(marketHash: string): MarketRecord | undefined {
    return this.openByHash.get(marketHash);
  }

  /** Hashes of the markets not settled. */
  openHashes(): string[] {
    return [...this.openByHash.keys()];
  }

  /** A settled market read lately. */
  settledCached(marketHash: string): MarketRecord | undefined {
    return this.settled.get(marketHash);
  }

  /** The event's markets that are not settled (parlays are none of its markets). */
  openOfEvent(exchangeEventId: string): readonly MarketRecord[] {
    return this.openByEvent.get(exchangeEventId) ?? [];
  }

  get sizes(): { open: number; settled: number } {
    return { open: this.openByHash.size, settled: this.settled.size };
  }

  /** ACTIVE markets ordered by (gameTime, marketHash), parlays left out. */
  active(): readonly MarketRecord[] {
    this.activeSorted ??= [...this.openByHash.values()]
      .filter((m) => m.status === 'ACTIVE' && m.type !== PARLAY_MARKET_TYPE)
      .sort(byGameTimeThenHash);
    return this.activeSorted;
  }

  /** Open parlays with a leg among these markets. */
  parlaysWithLegs(legHashes: Iterable<string>): MarketRecord[] {
    const found = new Set<string>();
    for (const h of legHashes) for (const p of this.parlaysByLeg.get(h) ?? []) found.add(p);
    return [...found].flatMap((h) => this.openByHash.get(h) ?? []);
  }

  /** Puts a new or changed record in memory; a settled one leaves the open markets for the settled cache. */
  put(m: MarketRecord): MarketRecord {
    if (m.parlay) return this.putParlay(m);
    const previous = this.openByHash.get(m.marketHash);
    const ofEvent = this.openByEvent.get(m.exchangeEventId) ?? [];
    const at = previous ? ofEvent.indexOf(previous) : -1;
    this.activeSorted = undefined;
    if (m.status === 'SETTLED') {
      this.openByHash.delete(m.marketHash);
      if (at >= 0) ofEvent.splice(at, 1);
      if (ofEvent.length === 0) this.openByEvent.delete(m.exchangeEventId);
      return this.rememberSettled(m);
    }
    this.openByHash.set(m.marketHash, m);
    if (at >= 0) ofEvent[at] = m;
    else ofEvent.push(m);
    this.openByEvent.set(m.exchangeEventId, ofEvent);
    return m;
  }

  /** Keeps a settled record read from disk in the bounded cache. */
  rememberSettled(m: MarketRecord): MarketRecord {
    this.settled.set(m.marketHash, m);
    return m;
  }

  /** Parlays are indexed by their legs, not by the fixture they are filed under (they are none of its markets). */
  private putParlay(m: MarketRecord): MarketRecord {
    this.activeSorted = undefined;
    const legs = m.parlay!.legs;
    if (m.status === 'SETTLED') {
      this.openByHash.delete(m.marketHash);
      this.openParlays.delete(m.marketHash);
      for (const leg of legs) {
        const of = this.parlaysByLeg.get(leg.marketHash);
        if (of?.delete(m.marketHash) && of.size === 0) this.parlaysByLeg.delete(leg.marketHash);
      }
      return this.rememberSettled(m);
    }
    this.openByHash.set(m.marketHash, m);
    for (const leg of legs) {
      let of = this.parlaysByLeg.get(leg.marketHash);
      if (!of) this.parlaysByLeg.set(leg.marketHash, (of = new Set()));
      of.add(m.marketHash);
    }
    return m;
  }
}
