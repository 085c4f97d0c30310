// One command's change records applied to the batch in memory (batch.ts), as the SQLite read models apply them
// (src/store/sqlite/read-models.ts, applyCommand): orders, fills, trades and their settlement, refunds, fees, cash
// outs, reports, balance records, matched volume and the trades' listing totals. Nothing here waits for the
// database: what the records change and do not describe was read when the batch began.
import { restrictionOfChange } from '../../restriction-record.js';
import type { Change } from '../../../engine/changes.js';
import type { Outcome } from '../../../engine/types.js';
import { settleTrades } from '../../../engine/settlement-credit.js';
import type { TradeState } from '../trade-state.js';
import type { BatchRows, TradeCountKey } from './batch.js';

const countKey = (t: TradeState): TradeCountKey => [t.bettor, t.settled, t.status, t.maker, t.baseToken, t.affiliate];

/** Settles a trade; a trade turning settled moves between listing totals (what SQLite's trigger does). */
function settle(batch: BatchRows, t: TradeState, s: { outcome: Outcome; payout: bigint; credit: bigint; fee: bigint; settleDate: number }): void {
  if (!t.settled) batch.countTrade(countKey(t), -1);
  const wasSettled = t.settled;
  t.settled = true;
  t.outcome = s.outcome;
  t.payout = s.payout;
  t.credit = s.credit;
  t.fee = s.fee;
  t.settleDate = s.settleDate;
  t.updatedAt = s.settleDate;
  batch.touch(t);
  if (!wasSettled) batch.countTrade(countKey(t), 1);
}

/**
 * Applies one command's records. `committedVolume` answers a market's matched volume as committed. Returns the
 * fills whose trades settled as part of a position (positionSettled names no trade), for the consolidated entries.
 */
export function applyCommand(batch: BatchRows, changes: readonly Change[], committedVolume: (market: string) => bigint): Set<string> | undefined {
  /** Per market this command settles: its open positions' trades by bettor, as the command found them. */
  let settling: Map<string, Map<string, TradeState[]>> | undefined;
  let settledFills: Set<string> | undefined;
  for (const c of changes) {
    switch (c.type) {
      case 'orderAdded': {
        const o = c.order;
        batch.newOrders.set(o.orderHash, {
          order_hash: o.orderHash,
          market_hash: o.marketHash,
          exchange_event_id: o.exchangeEventId,
          maker: o.maker,
          base_token: o.baseToken,
          executor: o.executor,
          total_bet_size: o.totalBetSize,
          percentage_odds: o.percentageOdds,
          fill_amount: c.state.fillAmount,
          pending_fill_amount: c.state.pendingFillAmount,
          expiry: o.expiry,
          api_expiry: o.apiExpiry,
          salt: o.salt,
          maker_outcome_one: o.isMakerBettingOutcomeOne,
          signature: o.signature,
          status: c.state.status,
          seq: o.seq,
          created_at: o.createdAt,
          updated_at: c.state.updatedAt,
          persistence: o.persistence,
          cancel_reason: null,
        });
        break;
      }
      case 'orderChanged': {
        const update = {
          order_hash: c.orderHash,
          fill_amount: c.state.fillAmount,
          pending_fill_amount: c.state.pendingFillAmount,
          status: c.state.status,
          updated_at: c.state.updatedAt,
          cancel_reason: c.state.cancelReason ?? null,
        };
        const posted = batch.newOrders.get(c.orderHash);
        if (posted) Object.assign(posted, update);
        else batch.orderUpdates.set(c.orderHash, update);
        break;
      }
      case 'fillAccepted':
        batch.fills.set(c.fillHash, {
          fillHash: c.fillHash, fillSalt: c.fillSalt, taker: c.taker, marketHash: c.marketHash, totalTakerStake: c.totalTakerStake,
          status: 'PENDING', acceptedAt: c.acceptedAt, attempts: null, lastAttemptAt: null, txHash: null, failureReason: null,
          cashOutAmount: null, cashOutFee: null,
        });
        batch.dirtyFills.add(c.fillHash);
        break;
      case 'fillExecuted': {
        const fill = batch.fills.get(c.fillHash);
        if (fill) {
          fill.status = c.status;
          fill.txHash = c.txHash ?? null;
          fill.failureReason = c.failureReason ?? null;
          batch.dirtyFills.add(c.fillHash);
        }
        // Trades are recorded PENDING and a fill is executed once: its pending trades take its status together.
        const traded = batch.tradesOfFill(c.fillHash).filter((t) => t.status === 'PENDING');
        for (const t of traded) {
          batch.countTrade(countKey(t), -1);
          t.status = c.status;
          t.updatedAt = c.at;
          batch.touch(t);
          batch.countTrade(countKey(t), 1);
        }
        if (c.status === 'SUCCESS' && traded.length > 0) {
          const market = traded[0]!.parentMarketHash ?? traded[0]!.marketHash;
          const before = batch.volume.get(market) ?? committedVolume(market);
          batch.volume.set(market, traded.reduce((sum, t) => sum + t.stake, before));
        }
        break;
      }
      case 'fillAttempted': {
        const fill = batch.fills.get(c.fillHash);
        if (fill) {
          fill.attempts = [...(fill.attempts ?? []), c.txHash];
          fill.lastAttemptAt = c.at;
          batch.dirtyFills.add(c.fillHash);
        }
        for (const t of batch.tradesOfFill(c.fillHash)) batch.touch(t);
        break;
      }
      case 'tradeRecorded': {
        const t = c.trade;
        const state: TradeState = {
          id: Number(t.id), fillHash: t.fillHash, orderHash: t.orderHash, marketHash: t.marketHash,
          parentMarketHash: t.quarterLineParentMarketHash ?? null, exchangeEventId: t.exchangeEventId, baseToken: t.baseToken,
          bettor: t.bettor, counterparty: t.counterparty, maker: t.maker, outcomeOne: t.bettingOutcomeOne, stake: t.stake,
          counterStake: t.counterStake, odds: t.odds, status: 'PENDING', betTime: t.betTime, updatedAt: t.betTime,
          affiliate: t.affiliate, settled: false, settleDate: null, settleTxHash: null, outcome: null, payout: null, credit: null,
          fee: null, rev: 0,
        };
        batch.addTrade(state, true);
        batch.countTrade(countKey(state), 1);
        break;
      }
      case 'tradeStatusChanged':
        // Written with its fill's fillExecuted, which precedes it.
        break;
      case 'tradeSettled': {
        const t = batch.trades.get(Number(c.tradeId));
        if (t) settle(batch, t, c);
        break;
      }
      case 'positionSettled': {
        settling ??= new Map();
        let byBettor = settling.get(c.marketHash);
        if (!byBettor) settling.set(c.marketHash, (byBettor = openPositionsIn(batch, c.marketHash)));
        const rows = byBettor.get(c.bettor) ?? [];
        const split = settleTrades(
          rows.map((r) => ({ stake: r.stake, counterStake: r.counterStake, bettingOutcomeOne: r.outcomeOne })),
          c.outcome,
          c.payout - c.credit - c.fee,
          c.fee,
        );
        const payout = split.reduce((sum, t) => sum + t.payout, 0n);
        // The engine's sums and the recorded trades must agree to the wei, or the split would record a fiction.
        if (payout !== c.payout) throw new Error(`settling ${c.bettor} in ${c.marketHash}: recorded trades pay ${payout}, the engine ${c.payout}`);
        rows.forEach((r, i) => {
          const t = split[i]!;
          settle(batch, r, { outcome: c.outcome, payout: t.payout, credit: t.credit, fee: t.fee, settleDate: c.settleDate });
          (settledFills ??= new Set()).add(r.fillHash);
        });
        byBettor.delete(c.bettor);
        break;
      }
      case 'positionPaidOnChain': {
        const bettor = c.bettor.toLowerCase();
        for (const t of batch.tradesOfMarket(c.marketHash)) {
          if (t.bettor.toLowerCase() !== bettor || !t.settled || t.settleTxHash !== null) continue;
          t.settleTxHash = c.txHash;
          t.updatedAt = c.at;
          batch.touch(t);
        }
        break;
      }
      case 'refundPaidOnChain':
        batch.refundsPaidOnChain.set(c.refundId, c.txHash);
        break;
      case 'refundPaid':
        batch.addRefund(c.refund);
        break;
      case 'feeCharged':
        batch.fees.push({ market_hash: c.marketHash, bettor: c.bettor, fee: c.fee, fee_account: c.feeAccount, affiliate: c.affiliate, affiliate_fee: c.affiliateFee, charged_at: c.at });
        break;
      case 'cashedOut': {
        batch.cashOuts.push({
          fill_hash: c.fillHash, market_hash: c.marketHash, bettor: c.bettor, hedge_stake: c.hedgeStake, value: c.value, amount: c.amount,
          fee: c.fee, affiliate_fee: c.affiliateFee, paid_at: c.at,
        });
        const fill = batch.fills.get(c.fillHash);
        if (fill) {
          fill.cashOutAmount = c.amount;
          fill.cashOutFee = c.fee;
          batch.dirtyFills.add(c.fillHash);
        }
        for (const t of batch.tradesOfFill(c.fillHash)) batch.touch(t);
        // The cash-out fee is revenue as settlement's fees are (GET /admin/fees).
        if (c.fee > 0n) {
          batch.fees.push({ market_hash: c.marketHash, bettor: c.bettor, fee: c.fee, fee_account: c.feeAccount, affiliate: c.affiliate, affiliate_fee: c.affiliateFee, charged_at: c.at });
        }
        break;
      }
      case 'marketReported':
        batch.reports.push({ market_hash: c.marketHash, outcome: c.outcome, reported_at: c.at, team_one_score: c.teamOneScore ?? null, team_two_score: c.teamTwoScore ?? null });
        break;
      case 'balanceChanged': {
        const key = c.address.toLowerCase();
        const address = batch.balances.get(key)?.address ?? c.address;
        batch.balances.set(key, { address, balance: c.balance, escrowed: c.escrowed, openExposure: c.openExposure, pendingTakerStake: c.pendingTakerStake });
        break;
      }
      case 'restrictionChanged':
        batch.restrictions.set(c.address.toLowerCase(), restrictionOfChange(c));
        break;
      default:
        // Heartbeats and market or fixture statuses are live engine state, read from the engine.
        break;
    }
  }
  return settledFills;
}

/** A market's confirmed, unsettled trades by bettor, oldest first: the positions a report settles. */
function openPositionsIn(batch: BatchRows, marketHash: string): Map<string, TradeState[]> {
  const byBettor = new Map<string, TradeState[]>();
  for (const t of batch.tradesOfMarket(marketHash)) {
    if (t.status !== 'SUCCESS' || t.settled) continue;
    const rows = byBettor.get(t.bettor);
    if (rows) rows.push(t);
    else byBettor.set(t.bettor, [t]);
  }
  return byBettor;
}
