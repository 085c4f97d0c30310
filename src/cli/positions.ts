// A bettor's positions per market from its trades: what is settled, and the profit or loss of the open
// trades for each outcome. Exact bigint wei; a trade's payout if it wins is stake * 10^20 / odds.
import { payoutFor, parseUnits, type Trade } from '@oddex/sdk';

export interface Position {
  marketHash: string;
  trades: number;
  /** Stake of trades that did not fail. */
  staked: bigint;
  /** Sum of netReturn over settled trades. */
  settledPnl: bigint;
  /** Profit or loss of the unsettled trades if outcome one wins, and if outcome two wins. */
  openPnlIfOne: bigint;
  openPnlIfTwo: bigint;
  /** Trades still waiting for the chain. */
  pending: number;
}

export function positionsOf(trades: readonly Trade[], decimals: number): Position[] {
  const byMarket = new Map<string, Position>();
  for (const t of trades) {
    if (t.tradeStatus === 'FAILED') continue;
    let p = byMarket.get(t.marketHash);
    if (!p) byMarket.set(t.marketHash, (p = { marketHash: t.marketHash, trades: 0, staked: 0n, settledPnl: 0n, openPnlIfOne: 0n, openPnlIfTwo: 0n, pending: 0 }));
    p.trades++;
    p.staked += t.stake;
    if (t.tradeStatus === 'PENDING') p.pending++;
    if (t.settled) {
      p.settledPnl += parseUnits(t.netReturn, decimals);
      continue;
    }
    const win = payoutFor(t.stake, t.odds) - t.stake;
    p.openPnlIfOne += t.bettingOutcomeOne ? win : -t.stake;
    p.openPnlIfTwo += t.bettingOutcomeOne ? -t.stake : win;
  }
  return [...byMarket.values()];
}
