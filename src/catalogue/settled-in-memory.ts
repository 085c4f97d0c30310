// Settled markets held in memory, for a store that cannot answer synchronously (a database server): loaded with the
// catalogue and added to as markets settle. Stored rows, not full records: the catalogue builds a record when one
// is asked for and keeps the recent ones (market-index.ts).
import type { ParlayTerms, SettledMarketReads, StoredMarket } from '../store/catalogue-records.js';
import { PARLAY_MARKET_TYPE } from './model.js';

export class SettledInMemory implements SettledMarketReads {
  private readonly byHash = new Map<string, StoredMarket>();
  private readonly byEvent = new Map<string, StoredMarket[]>();
  private readonly parlays = new Map<string, ParlayTerms>();

  /** Adds a settled market, or replaces it (only its main-line flag changes once settled). */
  put(m: StoredMarket, parlay: ParlayTerms | undefined): void {
    const previous = this.byHash.get(m.marketHash);
    this.byHash.set(m.marketHash, m);
    if (parlay) this.parlays.set(m.marketHash, parlay);
    if (m.type === PARLAY_MARKET_TYPE) return;
    const ofEvent = this.byEvent.get(m.exchangeEventId) ?? [];
    const at = previous ? ofEvent.indexOf(previous) : -1;
    if (at >= 0) ofEvent[at] = m;
    else ofEvent.push(m);
    this.byEvent.set(m.exchangeEventId, ofEvent);
  }

  market(marketHash: string): StoredMarket | undefined {
    return this.byHash.get(marketHash);
  }

  ofEvent(exchangeEventId: string): StoredMarket[] {
    return [...(this.byEvent.get(exchangeEventId) ?? [])];
  }

  parlay(marketHash: string): ParlayTerms | undefined {
    return this.parlays.get(marketHash);
  }
}
