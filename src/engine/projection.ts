// The naive projection of change records: folds every record into plain maps, with no indexes and no SQL.
// Tests use it as the reference the engine's read models and its own views must agree with.
import type { Change, ChangeOf, FillMatch, RefundPaid } from './changes.js';
import { settleTrades } from './settlement-credit.js';
import type { OrderView, Outcome, Trade, TradeStatus } from './types.js';

export interface ProjectedFill {
  fillHash: string;
  taker: string;
  marketHash: string;
  status: TradeStatus;
  acceptedAt: number;
  matches: readonly FillMatch[];
}

export class NaiveProjection {
  readonly orders = new Map<string, OrderView>();
  readonly fills = new Map<string, ProjectedFill>();
  readonly trades = new Map<string, Trade>();
  readonly refunds: RefundPaid[] = [];
  /** Every cash out paid, in order. */
  readonly cashOuts: ChangeOf<'cashedOut'>[] = [];
  readonly reported = new Map<string, Outcome>();
  readonly heartbeats = new Map<string, number | null>();

  apply(changes: readonly Change[]): void {
    for (const c of changes) {
      switch (c.type) {
        case 'orderAdded':
          this.orders.set(c.order.orderHash, { ...c.order, ...c.state });
          break;
        case 'orderChanged':
          this.orders.set(c.orderHash, { ...this.orders.get(c.orderHash)!, ...c.state });
          break;
        case 'fillAccepted':
          this.fills.set(c.fillHash, { fillHash: c.fillHash, taker: c.taker, marketHash: c.marketHash, status: 'PENDING', acceptedAt: c.acceptedAt, matches: c.matches });
          break;
        case 'fillExecuted':
          this.fills.get(c.fillHash)!.status = c.status;
          break;
        case 'tradeRecorded':
          this.trades.set(c.trade.id, { ...c.trade, status: 'PENDING', updatedAt: c.trade.betTime, settled: false });
          break;
        case 'tradeStatusChanged':
          Object.assign(this.trades.get(c.tradeId)!, { status: c.status, updatedAt: c.at });
          break;
        case 'tradeSettled':
          Object.assign(this.trades.get(c.tradeId)!, {
            settled: true,
            outcome: c.outcome,
            payout: c.payout,
            credit: c.credit,
            fee: c.fee,
            settleDate: c.settleDate,
            updatedAt: c.settleDate,
          });
          break;
        case 'positionSettled': {
          const trades = [...this.trades.values()]
            .filter((t) => t.marketHash === c.marketHash && t.bettor === c.bettor && t.status === 'SUCCESS' && !t.settled)
            .sort((x, y) => Number(x.id) - Number(y.id));
          const split = settleTrades(trades, c.outcome, c.payout - c.credit - c.fee, c.fee);
          trades.forEach((t, i) =>
            Object.assign(t, {
              settled: true,
              outcome: c.outcome,
              payout: split[i]!.payout,
              credit: split[i]!.credit,
              fee: split[i]!.fee,
              settleDate: c.settleDate,
              updatedAt: c.settleDate,
            }),
          );
          break;
        }
        case 'positionPaidOnChain':
          for (const t of this.trades.values()) {
            if (t.marketHash === c.marketHash && t.bettor === c.bettor && t.settled && t.settleTxHash === undefined) {
              Object.assign(t, { settleTxHash: c.txHash, updatedAt: c.at });
            }
          }
          break;
        case 'refundPaid':
          this.refunds.push(c.refund);
          break;
        case 'cashedOut':
          this.cashOuts.push(c);
          break;
        case 'marketReported':
          this.reported.set(c.marketHash, c.outcome);
          break;
        case 'heartbeatSet':
          if (c.expiresAt === null) this.heartbeats.delete(c.requestor);
          else this.heartbeats.set(c.requestor, c.expiresAt);
          break;
        case 'heartbeatExpired':
          this.heartbeats.delete(c.requestor);
          break;
        default:
          break;
      }
    }
  }
}
