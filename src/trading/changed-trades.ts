// The trades that change records describe completely, as they stand after those records: what a commit's read-model
// writes and publications need of the trades it touched, without reading back the rows it has just written.
// Trades the records describe only in part (one settled without its facts, or paid on chain) are left to the store.
import type { Change } from '../engine/changes.js';
import type { Trade } from '../engine/types.js';

export class ChangedTrades {
  private readonly trades = new Map<string, Trade>();
  /** All trades of each fill that executed in these records (its trades' status changes follow its fillExecuted). */
  private readonly fills = new Map<string, Trade[]>();

  constructor(changes: readonly Change[]) {
    for (const c of changes) {
      switch (c.type) {
        case 'tradeRecorded':
          this.trades.set(c.trade.id, { ...c.trade, status: 'PENDING', updatedAt: c.trade.betTime, settled: false });
          break;
        case 'fillExecuted':
          this.fills.set(c.fillHash, []);
          break;
        case 'tradeStatusChanged': {
          this.trades.set(c.tradeId, c.trade);
          this.fills.get(c.trade.fillHash)?.push(c.trade);
          break;
        }
        case 'tradeSettled': {
          const t = this.trades.get(c.tradeId);
          if (!t) break;
          const settled: Trade = { ...t, settled: true, settleDate: c.settleDate, outcome: c.outcome, payout: c.payout, credit: c.credit, updatedAt: c.settleDate };
          this.replace(settled);
          break;
        }
        case 'positionPaidOnChain':
          // The store sets the transaction on every settled, unpaid trade of the position: let it answer for them.
          for (const t of [...this.trades.values()]) {
            if (t.marketHash === c.marketHash && t.bettor === c.bettor && t.settled) this.forget(t);
          }
          break;
        default:
          break;
      }
    }
  }

  /** The trade, if these records describe all of it. */
  trade(id: string): Trade | undefined {
    return this.trades.get(id);
  }

  /** All trades of the fill, oldest first, if it executed in these records. */
  tradesOfFill(fillHash: string): Trade[] | undefined {
    const trades = this.fills.get(fillHash);
    return trades && trades.map((t) => this.trades.get(t.id)!).sort((a, b) => Number(a.id) - Number(b.id));
  }

  private replace(t: Trade): void {
    this.trades.set(t.id, t);
  }

  private forget(t: Trade): void {
    this.trades.delete(t.id);
    this.fills.delete(t.fillHash);
  }
}
