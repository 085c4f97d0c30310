// What one command's change records move in each wallet's balance, as the funds statement enters it (GET
// /account/statement): stakes leave the balance when their trade is confirmed; refunds, cash outs and payouts return
// to it, each fee entered apart (and entered again, as income, on the fee account's and the affiliate's statements).
// Shared by the SQLite and PostgreSQL projections of the statement, which add the
// deposit or withdrawal that explains the rest of the balance's change.
import type { Change, TradeFacts } from '../engine/changes.js';
import type { StatementKind } from './ports.js';

export interface Movement {
  kind: StatementKind;
  amount: bigint;
  marketHash?: string;
  tradeId?: string;
  refundId?: number;
  at: number;
}

/**
 * Calls `enter` at each balance record of the command with the balance it left and the movements of that address
 * the records before it explain.
 */
export function forEachStatedBalance(changes: readonly Change[], enter: (address: string, balance: bigint, movements: readonly Movement[]) => void): void {
  let moved: Map<string, Movement[]> | undefined;
  /** Trades confirmed by this command: a late trade's settlement names only its id. */
  let confirmed: Map<string, TradeFacts> | undefined;
  const add = (address: string, m: Movement) => {
    moved ??= new Map();
    const list = moved.get(address);
    if (list) list.push(m);
    else moved.set(address, [m]);
  };
  /** A fee's shares as what the fee account and the affiliate earned in the market (entered as fees, positive). */
  const feeIncome = (c: { fee: bigint; affiliateFee: bigint; feeAccount: string; affiliate: string; marketHash: string }, at: number) => {
    if (c.fee - c.affiliateFee !== 0n) add(c.feeAccount, { kind: 'fee', amount: c.fee - c.affiliateFee, marketHash: c.marketHash, at });
    if (c.affiliateFee !== 0n) add(c.affiliate, { kind: 'fee', amount: c.affiliateFee, marketHash: c.marketHash, at });
  };
  for (const c of changes) {
    switch (c.type) {
      case 'tradeStatusChanged':
        if (c.status !== 'SUCCESS') break;
        (confirmed ??= new Map()).set(c.tradeId, c.trade);
        add(c.trade.bettor, { kind: 'stake', amount: -c.trade.stake, marketHash: c.trade.marketHash, tradeId: c.tradeId, at: c.at });
        break;
      case 'refundPaid':
        add(c.refund.bettor, { kind: 'refund', amount: c.refund.amount, marketHash: c.refund.marketHash, refundId: c.refund.id, at: c.refund.createdAt });
        break;
      case 'cashedOut':
        // What the cash out paid at once before its fee, then the fee: their sum is what reached the wallet.
        if (c.amount !== 0n) add(c.bettor, { kind: 'cashout', amount: c.amount, marketHash: c.marketHash, at: c.at });
        if (c.fee !== 0n) add(c.bettor, { kind: 'fee', amount: -c.fee, marketHash: c.marketHash, at: c.at });
        feeIncome(c, c.at);
        break;
      case 'feeCharged':
        feeIncome(c, c.at);
        break;
      case 'positionSettled':
        // The payout before the commission, then the commission: their sum is what settlement credited.
        if (c.credit + c.fee !== 0n) add(c.bettor, { kind: 'payout', amount: c.credit + c.fee, marketHash: c.marketHash, at: c.settleDate });
        if (c.fee !== 0n) add(c.bettor, { kind: 'fee', amount: -c.fee, marketHash: c.marketHash, at: c.settleDate });
        break;
      case 'tradeSettled': {
        const t = confirmed?.get(c.tradeId);
        if (t && c.credit + c.fee !== 0n) add(t.bettor, { kind: 'payout', amount: c.credit + c.fee, marketHash: t.marketHash, tradeId: c.tradeId, at: c.settleDate });
        if (t && c.fee !== 0n) add(t.bettor, { kind: 'fee', amount: -c.fee, marketHash: t.marketHash, tradeId: c.tradeId, at: c.settleDate });
        break;
      }
      case 'balanceChanged':
        enter(c.address, c.balance, moved?.get(c.address) ?? []);
        break;
      default:
        break;
    }
  }
}
