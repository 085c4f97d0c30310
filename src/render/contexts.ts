// What rendering trades and consolidated entries asks besides the records: the token's decimals, the chain's
// version, the catalogue's markets and the read side's refund and chain facts. Built once (server.ts) and shared by
// the read routes and the realtime publisher, so both render the same object for the same record.
import type { Catalogue } from '../catalogue/catalogue.js';
import type { ReadModels } from '../store/ports.js';
import type { ConsolidatedContext } from './consolidated.js';
import type { TradeRenderContext } from './orders-and-trades.js';

export interface RenderContexts {
  trades: TradeRenderContext;
  consolidated: ConsolidatedContext;
}

export function renderContexts(
  token: { decimals: number; chainVersion: string },
  catalogue: Pick<Catalogue, 'getMarket'>,
  readModels: Pick<ReadModels, 'refunds' | 'fillOnChain'>,
): RenderContexts {
  const hasRefunds = (marketHash: string, bettor: string) => readModels.refunds.hasRefunds(marketHash, bettor);
  return {
    trades: {
      decimals: token.decimals,
      chainVersion: token.chainVersion,
      marketType: (hash) => catalogue.getMarket(hash)?.type,
      hasRefunds,
      fillOnChain: (fillHash) => readModels.fillOnChain(fillHash),
    },
    consolidated: {
      decimals: token.decimals,
      chainVersion: token.chainVersion,
      market: (hash) => catalogue.getMarket(hash),
      hasRefunds,
      cashOutOf: (fillHash) => readModels.fillOnChain(fillHash)?.cashOut,
    },
  };
}
