// What a trading command carries of its market: the facts the engine checks it against, taken from the catalogue
// when the command is built (by the route, in whichever process receives it).
import type { MarketRef } from '../engine/types.js';
import type { Catalogue, MarketRecord } from './catalogue.js';

type MarketFacts = Pick<Catalogue, 'getMarket' | 'isClosedInPlay'>;

const isOpen = (catalogue: MarketFacts, market: MarketRecord): boolean => market.status === 'ACTIVE' && !catalogue.isClosedInPlay(market);

/**
 * A parlay trades only while every leg would still be taken as a leg: once one is reported its result is partly
 * known, and once one not enabled in play is live its pre-game prices are stale (a leg memory no longer holds is
 * settled: open markets are always held). The first leg that is not open, or undefined when all are.
 */
export function closedLeg(catalogue: MarketFacts, market: MarketRecord): { marketHash: string; market: MarketRecord | undefined } | undefined {
  for (const leg of market.parlay?.legs ?? []) {
    const m = catalogue.getMarket(leg.marketHash.toLowerCase());
    if (m === undefined || !isOpen(catalogue, m)) return { marketHash: leg.marketHash, market: m };
  }
  return undefined;
}

export function marketRefOf(catalogue: MarketFacts, market: MarketRecord): MarketRef {
  return {
    marketHash: market.marketHash,
    exchangeEventId: market.exchangeEventId,
    tradeable: isOpen(catalogue, market) && closedLeg(catalogue, market) === undefined,
    liveEnabled: market.liveEnabled,
    ...(market.isQuarterLineMarket && market.legMarketHashes ? { legs: market.legMarketHashes } : {}),
  };
}
