// The trades and fills that change records describe completely, as they stand after those records: what a commit's
// read-model writes and publications need of what it touched, without reading back the rows it has just written.
// Trades the records describe only in part (one settled without its facts, or paid on chain) are left to the store,
// and so are fills neither accepted nor executed in them.
import type { Change, TradeFacts } from '../engine/changes.js';
import type { Trade, TradeStatus } from '../engine/types.js';
import type { FillOnChain } from './fill-on-chain.js';

/** A trade not settled yet, built field by field: one object shape for all of them (a spread builds slow ones). */
function unsettledTrade(f: TradeFacts, status: TradeStatus, updatedAt: number): Trade {
  const t: Trade = {
    id: f.id,
    fillHash: f.fillHash,
    orderHash: f.orderHash,
    marketHash: f.marketHash,
    exchangeEventId: f.exchangeEventId,
    baseToken: f.baseToken,
    bettor: f.bettor,
    counterparty: f.counterparty,
    maker: f.maker,
    bettingOutcomeOne: f.bettingOutcomeOne,
    stake: f.stake,
    counterStake: f.counterStake,
    odds: f.odds,
    status,
    betTime: f.betTime,
    updatedAt,
    affiliate: f.affiliate,
    settled: false,
  };
  if (f.quarterLineParentMarketHash !== undefined) t.quarterLineParentMarketHash = f.quarterLineParentMarketHash;
  return t;
}

export class ChangedTrades {
  private readonly trades = new Map<string, Trade>();
  /** All trades of each fill that executed in these records (its trades' status changes follow its fillExecuted). */
  private readonly fills = new Map<string, Trade[]>();
  /** What the chain did with each fill accepted or executed in these records. */
  private readonly onChain = new Map<string, FillOnChain>();

  constructor(changes: readonly Change[]) {
    for (const c of changes) {
      switch (c.type) {
        case 'tradeRecorded':
          this.trades.set(c.trade.id, unsettledTrade(c.trade, 'PENDING', c.trade.betTime));
          break;
        case 'fillAccepted':
          this.onChain.set(c.fillHash, { attempts: [] });
          break;
        case 'fillAttempted': {
          const fill = this.onChain.get(c.fillHash);
          if (fill) this.onChain.set(c.fillHash, { ...fill, attempts: [...fill.attempts, c.txHash], lastAttemptAt: c.at });
          break;
        }
        case 'fillExecuted':
          this.fills.set(c.fillHash, []);
          this.onChain.set(c.fillHash, {
            attempts: c.attempts ? [...c.attempts] : [],
            ...(c.lastAttemptAt !== undefined ? { lastAttemptAt: c.lastAttemptAt } : {}),
            ...(c.txHash !== undefined ? { txHash: c.txHash } : {}),
            ...(c.failureReason !== undefined ? { failureReason: c.failureReason } : {}),
          });
          break;
        case 'cashedOut': {
          // Follows its fill's fillExecuted in the same records.
          const fill = this.onChain.get(c.fillHash);
          if (fill) this.onChain.set(c.fillHash, { ...fill, cashOut: { amount: c.amount, fee: c.fee } });
          break;
        }
        case 'tradeStatusChanged': {
          const t = unsettledTrade(c.trade, c.status, c.at);
          this.trades.set(c.tradeId, t);
          this.fills.get(t.fillHash)?.push(t);
          break;
        }
        case 'tradeSettled': {
          const t = this.trades.get(c.tradeId);
          if (!t) break;
          this.trades.set(t.id, { ...t, settled: true, settleDate: c.settleDate, outcome: c.outcome, payout: c.payout, credit: c.credit, fee: c.fee, updatedAt: c.settleDate });
          break;
        }
        case 'positionSettled': {
          // It names no trade: the store settles the position's trades, and answers for them.
          const bettor = c.bettor.toLowerCase();
          for (const t of [...this.trades.values()]) {
            if (t.marketHash === c.marketHash && t.bettor.toLowerCase() === bettor) this.forget(t);
          }
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

  /** What the chain did with the fill, if it was accepted or executed in these records. */
  fillOnChain(fillHash: string): FillOnChain | undefined {
    return this.onChain.get(fillHash);
  }

  private forget(t: Trade): void {
    this.trades.delete(t.id);
    this.fills.delete(t.fillHash);
  }
}
