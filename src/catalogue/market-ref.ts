// What a trading command carries of its market: the facts the engine checks it against, taken from the catalogue
// when the command is built (by the route, in whichever process receives it).
import type { MarketRef } from '../engine/types.js';
import type { Catalogue, MarketRecord } from './catalogue.js';

export function marketRefOf(catalogue: Pick<Catalogue, 'isClosedInPlay'>, market: MarketRecord): MarketRef {
  return {
    marketHash: market.marketHash,
    exchangeEventId: market.exchangeEventId,
    tradeable: market.status === 'ACTIVE' && !catalogue.isClosedInPlay(market),
    liveEnabled: market.liveEnabled,
    ...(market.isQuarterLineMarket && market.legMarketHashes ? { legs: market.legMarketHashes } : {}),
  };
}
