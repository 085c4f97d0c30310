// Candles of a market's traded odds (rm_candles, projected by ../projection/price-history.ts).
import { CANDLE_INTERVALS, type AsyncQueries, type Candle, type CandleInterval, type HistoryQueries } from '../../ports.js';
import { bound, int, type Queryable } from '../trade-state.js';

interface CandleRow {
  start_s: string;
  open: string;
  high: string;
  low: string;
  close: string;
  volume: string;
  best_one: string | null;
  best_two: string | null;
}

export class PostgresCandles implements AsyncQueries<HistoryQueries> {
  constructor(private readonly db: Queryable) {}

  /** The newest `limit` candles of a market and interval starting within [fromS, toS], oldest first. */
  async candles(market: string, interval: CandleInterval, fromS: number, toS: number, limit: number): Promise<Candle[]> {
    const { rows } = await this.db.query<CandleRow>(
      `SELECT * FROM (SELECT start_s, open, high, low, close, volume, best_one, best_two FROM rm_candles
         WHERE market_hash = $1 AND interval_s = $2 AND start_s BETWEEN $3 AND $4 ORDER BY start_s DESC LIMIT $5) c ORDER BY start_s`,
      [market, CANDLE_INTERVALS[interval].seconds, bound(fromS), toS === Infinity ? Number.MAX_SAFE_INTEGER : Math.floor(toS), limit],
    );
    return rows.map((r) => ({
      time: int(r.start_s),
      open: r.open,
      high: r.high,
      low: r.low,
      close: r.close,
      volume: r.volume,
      bestMakerOddsOutcomeOne: r.best_one,
      bestMakerOddsOutcomeTwo: r.best_two,
    }));
  }
}
