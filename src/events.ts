// In-process bus from the writers (catalogue, engine) to the fan-out (realtime). Payloads are REST shapes.
import { EventEmitter } from 'node:events';

/** Payload objects are exactly what the matching REST endpoint returns for one item. */
export type RestObject = Record<string, unknown>;

export interface ExchangeEvents {
  /** Markets created, suspended, settled (items as on /markets/active, settled ones as on /markets/find). */
  markets: [markets: RestObject[]];
  /** Main line of a spread/total group moved (market objects of the new main lines). */
  mainLine: [markets: RestObject[]];
  /** Fixtures created or changed (Fixture objects). */
  fixtures: [fixtures: RestObject[]];
  /** Live score updates (Live score objects). */
  liveScores: [scores: RestObject[]];
  /** Orders that changed on one market (as on GET /orders plus `status` and `updateTime`), with the market's event id. */
  orders: [update: { marketHash: string; exchangeEventId: string; orders: RestObject[] }];
  /** Best odds moved to a price ({marketHash, baseToken, isMakerBettingOutcomeOne, percentageOdds, updatedAt, sportId, leagueId}). */
  bestOdds: [entries: RestObject[]];
  /** New or changed trades (items as on GET /trades); published one trade per publication. */
  trades: [trades: RestObject[]];
  /** New or changed consolidated trades (items as on GET /trades/consolidated); published one per publication. */
  consolidatedTrades: [trades: RestObject[]];
  /** Capital-efficiency refund groups for one bettor ({marketHash, baseToken, totalRefunded, events}). */
  refunds: [update: { bettor: string; groups: RestObject[] }];
  /** Parlay markets (none are offered yet; the channel exists). */
  parlayMarkets: [markets: RestObject[]];
}

export class EventBus extends EventEmitter<ExchangeEvents> {}
