// A command from another process carries market facts (tradeable, in play) from that process's catalogue, which may
// be older than the sequencer's: a suspension or kick-off journaled since. The sequencer's own catalogue is the truth
// about what it has journaled, so the facts are taken from it again before the command is applied.
import type { Catalogue } from '../catalogue/catalogue.js';
import { marketRefOf } from '../catalogue/market-ref.js';
import type { Command, MarketRef } from '../engine/types.js';

export function withCurrentMarkets<C extends Command>(cmd: C, catalogue: Pick<Catalogue, 'getMarket' | 'isClosedInPlay'>): C {
  const current = (ref: MarketRef): MarketRef => {
    const market = catalogue.getMarket(ref.marketHash);
    return market ? marketRefOf(catalogue, market) : ref;
  };
  if (cmd.kind === 'fill') return { ...cmd, market: current(cmd.market) };
  if (cmd.kind === 'postOrders' || cmd.kind === 'replaceOrders') return { ...cmd, markets: cmd.markets.map(current) };
  return cmd;
}
