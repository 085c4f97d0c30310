// Market records as values: a report's result applied to one, the stored row of one, and the order markets are listed in.
import type { MarketRecord, Outcome } from './model.js';
import type { StoredMarket } from './store.js';

export interface Settlement {
  marketHash: string;
  outcome: Outcome;
  teamOneScore?: number;
  teamTwoScore?: number;
}

/** (gameTime, marketHash): the order /markets/active pages through, and the earliest leg of a parlay. */
export const byGameTimeThenHash = (a: MarketRecord, b: MarketRecord) =>
  a.gameTime - b.gameTime || (a.marketHash < b.marketHash ? -1 : a.marketHash > b.marketHash ? 1 : 0);

/** The record SETTLED with the report's outcome, scores (when both are given) and date. */
export function settledRecord(m: MarketRecord, s: Omit<Settlement, 'marketHash'>, reportedDate: string): MarketRecord {
  const settled: MarketRecord = { ...m, status: 'SETTLED', outcome: s.outcome, reportedDate };
  if (s.teamOneScore !== undefined && s.teamTwoScore !== undefined) {
    settled.teamOneScore = s.teamOneScore;
    settled.teamTwoScore = s.teamTwoScore;
  }
  return settled;
}

/** The row the catalogue store keeps of a record (the fixture's names and places are joined back when loaded). */
export function storedOf(m: MarketRecord): StoredMarket {
  const s: StoredMarket = {
    marketHash: m.marketHash,
    exchangeEventId: m.exchangeEventId,
    type: m.type,
    status: m.status,
    liveEnabled: m.liveEnabled,
  };
  const optional = ['line', 'selection', 'mainLine', 'legMarketHashes', 'outcome', 'reportedDate', 'teamOneScore', 'teamTwoScore'] as const;
  for (const k of optional) if (m[k] !== undefined) Object.assign(s, { [k]: m[k] });
  return s;
}
