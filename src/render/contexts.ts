// What rendering trades and consolidated entries needs besides the records and the read side's facts about them:
// the token's decimals, the chain's version and the catalogue's markets. Built once (server.ts) and shared by the
// read routes and the realtime publisher, so both render the same object for the same record; each listing or
// publication adds the facts it read with its trades (refund flags, the fills' chain records).
import type { Catalogue } from '../catalogue/catalogue.js';
import type { ConsolidatedContext } from './consolidated.js';
import type { TradeRenderContext } from './orders-and-trades.js';

/**
 * A trade rendering's settings: the context without the facts read per listing, and how to load the settled markets
 * of the trades to render first (a database server's catalogue answers for them only once loaded).
 */
export type TradeRenderSettings = Omit<TradeRenderContext, 'hasRefunds' | 'fillOnChain'> & Pick<ConsolidatedContext, 'loadMarkets'>;

export interface RenderContexts {
  trades: TradeRenderSettings;
  consolidated: ConsolidatedContext;
}

export function renderContexts(token: { decimals: number; chainVersion: string }, catalogue: Pick<Catalogue, 'getMarket' | 'loadMarkets'>): RenderContexts {
  const loadMarkets = (hashes: Iterable<string>) => catalogue.loadMarkets(hashes);
  return {
    trades: {
      decimals: token.decimals,
      chainVersion: token.chainVersion,
      marketType: (hash) => catalogue.getMarket(hash)?.type,
      loadMarkets,
    },
    consolidated: {
      decimals: token.decimals,
      chainVersion: token.chainVersion,
      market: (hash) => catalogue.getMarket(hash),
      loadMarkets,
    },
  };
}
