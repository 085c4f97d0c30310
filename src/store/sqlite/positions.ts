// A bettor's positions per market (GET /positions), read from the trades and refunds the read side recorded: the
// confirmed stakes on each outcome, what each outcome (or a void) would pay, the escrow still held, the refunds paid
// and, once settled, what the position paid and its profit. Amounts are summed as bigints, exact for any token.
import type { Statement } from 'better-sqlite3';
import type { Db } from './db.js';
import type { Position } from '../ports.js';
import type { Outcome } from '../../engine/types.js';


interface TradeRow {
  market_hash: string;
  exchange_event_id: string;
  base_token: string;
  outcome_one: number;
  stake: string;
  counter_stake: string;
  status: string;
  settled: number;
  outcome: number | null;
  payout: string | null;
  fee: string | null;
  bet_time: number;
}

const emptyPosition = (t: TradeRow): Position => ({
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
  lastTradeTime: t.bet_time,
});

export class PositionsReader {
  private readonly s: Record<'markets' | 'count' | 'trades' | 'refunds' | 'cashOuts', Statement>;

  constructor(db: Db) {
    // Failed fills never held funds: they are no part of a position.
    this.s = {
      markets: db.prepare(`SELECT market_hash FROM rm_trades WHERE bettor = ? AND status != 'FAILED'
        GROUP BY market_hash ORDER BY MAX(bet_time) DESC, market_hash LIMIT ? OFFSET ?`).pluck(),
      count: db.prepare(`SELECT COUNT(DISTINCT market_hash) FROM rm_trades WHERE bettor = ? AND status != 'FAILED'`).pluck(),
      trades: db.prepare(`SELECT market_hash, exchange_event_id, base_token, outcome_one, stake, counter_stake, status, settled, outcome,
        payout, fee, bet_time FROM rm_trades WHERE bettor = ? AND status != 'FAILED' AND market_hash IN (SELECT value FROM json_each(?)) ORDER BY id`),
      refunds: db.prepare(`SELECT market_hash, amount FROM rm_refunds WHERE bettor = ? AND market_hash IN (SELECT value FROM json_each(?))`),
      cashOuts: db.prepare(`SELECT market_hash, amount, fee FROM rm_cashouts WHERE bettor = ? AND market_hash IN (SELECT value FROM json_each(?))`),
    };
  }

  /** One page of a bettor's positions, the market traded last first, and how many markets it has traded. */
  page(bettor: string, page: { page: number; perPage: number }): { positions: Position[]; count: number } {
    const markets = this.s.markets.all(bettor, page.perPage, page.page * page.perPage) as string[];
    const count = this.s.count.get(bettor) as number;
    if (markets.length === 0) return { positions: [], count };
    const byMarket = new Map<string, Position>();
    const unsettled = new Set<string>();
    const list = JSON.stringify(markets);
    for (const t of this.s.trades.all(bettor, list) as TradeRow[]) {
      let p = byMarket.get(t.market_hash);
      if (!p) byMarket.set(t.market_hash, (p = emptyPosition(t)));
      if (t.bet_time > p.lastTradeTime) p.lastTradeTime = t.bet_time;
      const stake = BigInt(t.stake);
      if (t.status !== 'SUCCESS') {
        p.pendingStake += stake;
        continue;
      }
      const wins = stake + BigInt(t.counter_stake);
      if (t.outcome_one === 1) {
        p.stakeOutcomeOne += stake;
        p.payoutIfOutcomeOne += wins;
      } else {
        p.stakeOutcomeTwo += stake;
        p.payoutIfOutcomeTwo += wins;
      }
      p.payoutIfVoid += stake;
      if (t.settled === 1) {
        p.outcome = t.outcome as Outcome;
        p.payout = (p.payout ?? 0n) + BigInt(t.payout ?? '0');
        p.fees = (p.fees ?? 0n) + BigInt(t.fee ?? '0');
      } else {
        unsettled.add(t.market_hash);
      }
    }
    for (const r of this.s.refunds.all(bettor, list) as { market_hash: string; amount: string }[]) {
      const p = byMarket.get(r.market_hash);
      if (p) p.refunds += BigInt(r.amount);
    }
    for (const r of this.s.cashOuts.all(bettor, list) as { market_hash: string; amount: string; fee: string }[]) {
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
    return { positions: markets.flatMap((m) => byMarket.get(m) ?? []), count };
  }
}
