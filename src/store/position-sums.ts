// A bettor's positions per market summed from the rows either read side stores: the confirmed stakes on each
// outcome, what each outcome (or a void) would pay, the escrow still held, the refunds and cash outs paid and, once
// settled, what the position paid and its profit. Amounts are summed as bigints, exact for any token. The stores
// select the same columns under these names; SQLite gives its flags as 0/1 and PostgreSQL its bigints as text.
import type { Position } from './ports.js';
import type { Outcome } from '../engine/types.js';

/** A trade of the bettor on one of the page's markets (failed fills left out: they never held funds). */
export interface PositionTradeRow {
  market_hash: string;
  exchange_event_id: string;
  base_token: string;
  outcome_one: boolean | number;
  stake: string;
  counter_stake: string;
  status: string;
  settled: boolean | number;
  outcome: number | null;
  payout: string | null;
  fee: string | null;
  bet_time: number | string;
}

export interface PositionRefundRow {
  market_hash: string;
  amount: string;
}

export interface PositionCashOutRow extends PositionRefundRow {
  fee: string;
}

const emptyPosition = (t: PositionTradeRow): Position => ({
  marketHash: t.market_hash,
  exchangeEventId: t.exchange_event_id,
  baseToken: t.base_token,
  stakeOutcomeOne: 0n,
  stakeOutcomeTwo: 0n,
  pendingStake: 0n,
  payoutIfOutcomeOne: 0n,
  payoutIfOutcomeTwo: 0n,
  payoutIfVoid: 0n,
  escrow: 0n,
  refunds: 0n,
  cashedOut: 0n,
  cashOutFees: 0n,
  settled: false,
  lastTradeTime: Number(t.bet_time),
});

/** The positions of `markets`, in that order, from their trades (oldest first), refunds and cash outs. */
export function sumPositions(
  markets: readonly string[],
  trades: readonly PositionTradeRow[],
  refunds: readonly PositionRefundRow[],
  cashOuts: readonly PositionCashOutRow[],
): Position[] {
  const byMarket = new Map<string, Position>();
  const unsettled = new Set<string>();
  for (const t of trades) {
    let p = byMarket.get(t.market_hash);
    if (!p) byMarket.set(t.market_hash, (p = emptyPosition(t)));
    p.lastTradeTime = Math.max(p.lastTradeTime, Number(t.bet_time));
    const stake = BigInt(t.stake);
    if (t.status !== 'SUCCESS') {
      p.pendingStake += stake;
      continue;
    }
    const wins = stake + BigInt(t.counter_stake);
    if (t.outcome_one) {
      p.stakeOutcomeOne += stake;
      p.payoutIfOutcomeOne += wins;
    } else {
      p.stakeOutcomeTwo += stake;
      p.payoutIfOutcomeTwo += wins;
    }
    p.payoutIfVoid += stake;
    if (t.settled) {
      p.outcome = t.outcome as Outcome;
      p.payout = (p.payout ?? 0n) + BigInt(t.payout ?? '0');
      p.fees = (p.fees ?? 0n) + BigInt(t.fee ?? '0');
    } else {
      unsettled.add(t.market_hash);
    }
  }
  for (const r of refunds) {
    const p = byMarket.get(r.market_hash);
    if (p) p.refunds += BigInt(r.amount);
  }
  for (const r of cashOuts) {
    const p = byMarket.get(r.market_hash);
    if (!p) continue;
    p.cashedOut += BigInt(r.amount);
    p.cashOutFees += BigInt(r.fee);
  }
  for (const p of byMarket.values()) {
    const stakes = p.stakeOutcomeOne + p.stakeOutcomeTwo;
    p.settled = p.payout !== undefined && !unsettled.has(p.marketHash);
    if (p.settled) {
      p.settledProfit = p.payout! - p.fees! - p.cashOutFees - stakes;
    } else {
      p.escrow = stakes - p.refunds - p.cashedOut;
      delete p.outcome;
      delete p.payout;
      delete p.fees;
    }
  }
  return markets.flatMap((m) => byMarket.get(m) ?? []);
}
