// What rendering trades and consolidated entries needs besides the records and the read side's facts about them:
// the token's decimals, the chain's version and the catalogue's markets. Built once (server.ts) and shared by the
// read routes and the realtime publisher, so both render the same object for the same record; each listing or
// publication adds the facts it read with its trades (refund flags, the fills' chain records).
import type { Catalogue } from '../catalogue/catalogue.js';
import type { ConsolidatedContext } from './consolidated.js';
import type { TradeRenderContext } from './orders-and-trades.js';

/** A trade rendering's settings: the context without the facts read per listing. */
export type TradeRenderSettings = Omit<TradeRenderContext, 'hasRefunds' | 'fillOnChain'>;

/**
 * The settings of one rendering step: answering `withMarkets(hashes)`, a context whose market lookups also find these
 * markets for as long as the step needs them (a database server's settled markets are read for it, whatever the
 * catalogue's bounded cache keeps meanwhile).
 */
export interface ForMarkets<T> {
  withMarkets(marketHashes: Iterable<string>): Promise<T>;
}

export interface RenderContexts {
  trades: TradeRenderSettings & ForMarkets<TradeRenderSettings>;
  consolidated: ConsolidatedContext;
}

export function renderContexts(token: { decimals: number; chainVersion: string }, catalogue: Pick<Catalogue, 'getMarket' | 'marketsFor'>): RenderContexts {
  const trades: TradeRenderSettings = { decimals: token.decimals, chainVersion: token.chainVersion, marketType: (hash) => catalogue.getMarket(hash)?.type };
  const consolidated: ConsolidatedContext = {
    decimals: token.decimals,
    chainVersion: token.chainVersion,
    market: (hash) => catalogue.getMarket(hash),
    withMarkets: async (hashes) => {
      const found = await catalogue.marketsFor(hashes);
      return { ...consolidated, market: (hash) => found.get(hash) ?? catalogue.getMarket(hash) };
    },
  };
  return {
    trades: {
      ...trades,
      withMarkets: async (hashes) => {
        const found = await catalogue.marketsFor(hashes);
        return { ...trades, marketType: (hash) => (found.get(hash) ?? catalogue.getMarket(hash))?.type };
      },
    },
    consolidated,
  };
}
