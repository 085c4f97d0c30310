// A bettor's positions per market (GET /positions): one page of markets, then their trades, refunds and cash outs,
// summed as the PostgreSQL reader sums them (store/position-sums.ts).
import type { Statement } from 'better-sqlite3';
import type { Db } from './db.js';
import type { Position } from '../ports.js';
import { sumPositions, type PositionCashOutRow, type PositionRefundRow, type PositionTradeRow } from '../position-sums.js';

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
    const list = JSON.stringify(markets);
    const positions = sumPositions(
      markets,
      this.s.trades.all(bettor, list) as PositionTradeRow[],
      this.s.refunds.all(bettor, list) as PositionRefundRow[],
      this.s.cashOuts.all(bettor, list) as PositionCashOutRow[],
    );
    return { positions, count };
  }
}
