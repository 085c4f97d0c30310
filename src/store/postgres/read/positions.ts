// A bettor's positions per market (GET /positions): one page of markets, then their trades, refunds and cash outs,
// summed as the SQLite reader sums them (store/position-sums.ts).
import type { AsyncQueries, Position, PositionQueries } from '../../ports.js';
import type { Queryable } from '../trade-state.js';
import { sumPositions, type PositionCashOutRow, type PositionRefundRow, type PositionTradeRow } from '../../position-sums.js';

export class PostgresPositions implements AsyncQueries<PositionQueries> {
  constructor(private readonly db: Queryable) {}

  /** One page of a bettor's positions, the market traded last first, and how many markets it has traded. */
  async page(bettor: string, page: { page: number; perPage: number }): Promise<{ positions: Position[]; count: number }> {
    // Failed fills never held funds: they are no part of a position.
    const [marketRows, countRows] = await Promise.all([
      this.db.query<{ market_hash: string }>(
        `SELECT market_hash FROM rm_trades WHERE bettor = $1 AND status <> 'FAILED'
         GROUP BY market_hash ORDER BY MAX(bet_time) DESC, market_hash LIMIT $2 OFFSET $3`,
        [bettor, page.perPage, page.page * page.perPage],
      ),
      this.db.query<{ n: string }>(`SELECT COUNT(DISTINCT market_hash) AS n FROM rm_trades WHERE bettor = $1 AND status <> 'FAILED'`, [bettor]),
    ]);
    const markets = marketRows.rows.map((r) => r.market_hash);
    const count = Number(countRows.rows[0]!.n);
    if (markets.length === 0) return { positions: [], count };
    const [trades, refunds, cashOuts] = await Promise.all([
      this.db.query<PositionTradeRow>(
        `SELECT market_hash, exchange_event_id, base_token, outcome_one, stake, counter_stake, status, settled, outcome, payout, fee, bet_time
         FROM rm_trades WHERE bettor = $1 AND status <> 'FAILED' AND market_hash = ANY($2::text[]) ORDER BY id`,
        [bettor, markets],
      ),
      this.db.query<PositionRefundRow>('SELECT market_hash, amount FROM rm_refunds WHERE bettor = $1 AND market_hash = ANY($2::text[])', [bettor, markets]),
      this.db.query<PositionCashOutRow>(
        'SELECT market_hash, amount, fee FROM rm_cashouts WHERE bettor = $1 AND market_hash = ANY($2::text[])',
        [bettor, markets],
      ),
    ]);
    return { positions: sumPositions(markets, trades.rows, refunds.rows, cashOuts.rows), count };
  }
}
