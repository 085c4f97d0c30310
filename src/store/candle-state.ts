// A candle of price history as the projections of both stores build it in memory before writing it (SQLite's
// sqlite/price-history.ts, PostgreSQL's postgres/projection/price-history.ts), and the interval widths they share.
import { CANDLE_INTERVALS } from './ports.js';

export const WIDTHS = Object.values(CANDLE_INTERVALS);
/** The widest interval (a day): candle series are all aligned to it. */
export const COARSEST = 86_400;
/** How long each width's candles are kept, by width in seconds. */
export const KEEP_SECONDS = new Map<number, number>(WIDTHS.map((w) => [w.seconds, w.keepSeconds]));

/** A candle being written: its row's values, the amounts as bigints. */
export interface CandleState {
  market: string;
  seconds: number;
  start: number;
  open: bigint;
  high: bigint;
  low: bigint;
  close: bigint;
  volume: bigint;
  openId: number;
  closeId: number;
  bestOne: string | null;
  bestTwo: string | null;
  /** Not stored before this batch: its series' candles past retention go when it is written. */
  fresh: boolean;
}
