// Price history of each market (GET /markets/:marketHash/history): candles of the odds takers traded outcome one
// at, per interval, projected from the committed change records like the other read models, so a replay of the
// journal writes the same candles. Each candle also keeps the best maker odds per side as of the last book change
// in its interval (its interval's end, once the interval is over).
import type { Statement } from 'better-sqlite3';
import type { Db } from './db.js';
import { CANDLE_INTERVALS, type Candle, type CandleInterval } from '../ports.js';
import { COARSEST, KEEP_SECONDS, WIDTHS, type CandleState } from '../candle-state.js';
import type { Change, TradeFacts } from '../../engine/changes.js';
import { ODDS_SCALE } from '../../protocol/odds.js';
import { isExpired, hasFillableSpace } from '../../engine/order-space.js';



interface CandleRow {
  market_hash: string;
  interval_s: number;
  start_s: number;
  open: string;
  high: string;
  low: string;
  close: string;
  volume: string;
  open_id: number;
  close_id: number;
  best_one: string | null;
  best_two: string | null;
}

const stateOf = (r: CandleRow): CandleState => ({
  market: r.market_hash,
  seconds: r.interval_s,
  start: r.start_s,
  open: BigInt(r.open),
  high: BigInt(r.high),
  low: BigInt(r.low),
  close: BigInt(r.close),
  volume: BigInt(r.volume),
  openId: r.open_id,
  closeId: r.close_id,
  bestOne: r.best_one,
  bestTwo: r.best_two,
  fresh: false,
});

interface BookRow {
  total_bet_size: string;
  fill_amount: string;
  pending_fill_amount: string;
  percentage_odds: string;
  expiry: number;
  api_expiry: number;
}

/** The odds of outcome one a taker's trade traded at: its own odds, or their complement if it bet outcome two. */
export const outcomeOneOdds = (t: Pick<TradeFacts, 'odds' | 'bettingOutcomeOne'>): bigint => (t.bettingOutcomeOne ? t.odds : ODDS_SCALE - t.odds);

const startOf = (atMs: number, seconds: number) => Math.floor(atMs / 1000 / seconds) * seconds;

/** When a command's changes happened (the time of its first trade or order change), if they touch a book. */
function timeOf(changes: readonly Change[]): number | undefined {
  for (const c of changes) {
    if (c.type === 'tradeRecorded') return c.trade.betTime;
    if (c.type === 'orderAdded' || c.type === 'orderChanged') return c.state.updatedAt;
  }
  return undefined;
}

const seriesKey = (market: string, seconds: number) => `${market}:${seconds}`;

/**
 * Candles change in memory while a group of commands is projected and are written once per group, one row per
 * candle touched. The newest candle of each market and interval stays in memory (four small objects per market that
 * traded or changed its book), so most commands read no candle back.
 */
export class PriceHistory {
  private readonly s: Record<string, Statement>;
  /** The newest committed candle per market and interval (null: none on disk), loaded on first use. */
  private readonly newest = new Map<string, CandleState | null>();
  /** What the transaction under way changed: candles by series and start, and the newest per series. */
  private readonly dirty = new Map<string, CandleState>();
  private readonly stagedNewest = new Map<string, CandleState | null>();
  /** Markets of this group whose book changed, with the time of the last change: their best odds are due. */
  private readonly pendingBest = new Map<string, number>();

  constructor(db: Db) {
    const p = (sql: string) => db.prepare(sql);
    this.s = {
      candle: p('SELECT * FROM rm_candles WHERE market_hash = ? AND interval_s = ? AND start_s = ?'),
      newest: p('SELECT * FROM rm_candles WHERE market_hash = ? AND interval_s = ? ORDER BY start_s DESC LIMIT 1'),
      insert: p(`INSERT INTO rm_candles VALUES (@market, @seconds, @start, @open, @high, @low, @close, @volume, @openId, @closeId,
        @bestOne, @bestTwo)`),
      // In place: a candle's row keeps its key, so an update rewrites one record instead of deleting and inserting it.
      update: p(`UPDATE rm_candles SET open = @open, high = @high, low = @low, close = @close, volume = @volume, open_id = @openId,
        close_id = @closeId, best_one = @bestOne, best_two = @bestTwo WHERE market_hash = @market AND interval_s = @seconds
        AND start_s = @start`),
      prune: p('DELETE FROM rm_candles WHERE market_hash = ? AND interval_s = ? AND start_s < ?'),
      side: p(`SELECT total_bet_size, fill_amount, pending_fill_amount, percentage_odds, expiry, api_expiry FROM rm_orders
        WHERE market_hash = ? AND maker_outcome_one = ? AND status = 'ACTIVE' ORDER BY length(percentage_odds), percentage_odds`),
      page: p(`SELECT * FROM (SELECT * FROM rm_candles WHERE market_hash = ? AND interval_s = ? AND start_s BETWEEN ? AND ?
        ORDER BY start_s DESC LIMIT ?) ORDER BY start_s`),
    };
  }

  /**
   * Before a command's changes are written: the best odds of markets whose book changed in an earlier minute of this
   * group are read now, while the book is as that minute left it (the group's later minutes have not touched it).
   */
  beginCommand(changes: readonly Change[]): void {
    if (this.pendingBest.size === 0) return;
    const at = timeOf(changes);
    if (at === undefined) return;
    const minute = startOf(at, WIDTHS[0]!.seconds);
    for (const [market, touchedAt] of this.pendingBest) {
      if (startOf(touchedAt, WIDTHS[0]!.seconds) === minute) continue;
      this.noteBestOdds(market, touchedAt);
      this.pendingBest.delete(market);
    }
  }

  /**
   * Projects one command's change records (inside the journal's transaction, after its other read models): each
   * taker trade joins its market's candles, and each market whose book changed has its best odds read once, when
   * its minute or the group ends (beginCommand, write): the book as the interval's last change left it.
   */
  apply(changes: readonly Change[]): void {
    for (const c of changes) {
      if (c.type === 'tradeRecorded') {
        const t = c.trade;
        const market = t.quarterLineParentMarketHash ?? t.marketHash;
        // Each match records the maker's trade, then the taker's: the taker's sets the price, and its stake and
        // counter stake (the maker's) are both sides' stakes, the volume matched volume counts.
        if (!t.maker) this.addTrade(market, Number(t.id), outcomeOneOdds(t), t.stake + t.counterStake, t.betTime);
        this.pendingBest.set(market, t.betTime);
      } else if (c.type === 'orderAdded') this.pendingBest.set(c.order.marketHash, c.state.updatedAt);
      else if (c.type === 'orderChanged') this.pendingBest.set(c.marketHash, c.state.updatedAt);
    }
  }

  /** Writes the candles the group changed (one row each), in the transaction that projected it. */
  write(): void {
    for (const [market, at] of this.pendingBest) this.noteBestOdds(market, at);
    this.pendingBest.clear();
    for (const c of this.dirty.values()) {
      const row = {
        market: c.market,
        seconds: c.seconds,
        start: c.start,
        open: c.open.toString(),
        high: c.high.toString(),
        low: c.low.toString(),
        close: c.close.toString(),
        volume: c.volume.toString(),
        openId: c.openId,
        closeId: c.closeId,
        bestOne: c.bestOne,
        bestTwo: c.bestTwo,
      };
      if (c.fresh) {
        this.s.prune!.run(c.market, c.seconds, c.start - KEEP_SECONDS.get(c.seconds)!);
        this.s.insert!.run(row);
        c.fresh = false;
      } else {
        this.s.update!.run(row);
      }
    }
  }

  /** The transaction ended: what it changed stays in memory only if it committed. */
  transactionEnded(committed: boolean): void {
    if (committed) {
      for (const [key, c] of this.stagedNewest) this.newest.set(key, c && { ...c, fresh: false });
    }
    this.dirty.clear();
    this.stagedNewest.clear();
    this.pendingBest.clear();
  }

  /** The newest candle of a series as this transaction sees it. */
  private newestOf(market: string, seconds: number): CandleState | null {
    const key = seriesKey(market, seconds);
    const staged = this.stagedNewest.get(key);
    if (staged !== undefined) return staged;
    let committed = this.newest.get(key);
    if (committed === undefined) {
      const row = this.s.newest!.get(market, seconds) as CandleRow | undefined;
      committed = row ? stateOf(row) : null;
      this.stagedNewest.set(key, committed);
    }
    return committed;
  }

  /** The candle of a series starting at `start` to change in this transaction, or undefined if there is none. */
  private candleAt(market: string, seconds: number, start: number): CandleState | undefined {
    const key = `${seriesKey(market, seconds)}:${start}`;
    const dirty = this.dirty.get(key);
    if (dirty) return dirty;
    const newest = this.newestOf(market, seconds);
    let found: CandleState | undefined;
    if (newest && newest.start === start) found = { ...newest };
    // Only a clock set back reaches behind the newest candle.
    else if (newest && newest.start > start) {
      const row = this.s.candle!.get(market, seconds, start) as CandleRow | undefined;
      found = row && stateOf(row);
    }
    if (!found) return undefined;
    this.dirty.set(key, found);
    if (newest && newest.start === start) this.stagedNewest.set(seriesKey(market, seconds), found);
    return found;
  }

  private addTrade(market: string, tradeId: number, odds: bigint, stakes: bigint, atMs: number): void {
    for (const { seconds } of WIDTHS) {
      const start = startOf(atMs, seconds);
      const c = this.candleAt(market, seconds, start);
      if (!c) {
        const fresh: CandleState = { market, seconds, start, open: odds, high: odds, low: odds, close: odds, volume: stakes, openId: tradeId, closeId: tradeId, bestOne: null, bestTwo: null, fresh: true };
        this.dirty.set(`${seriesKey(market, seconds)}:${start}`, fresh);
        const newest = this.newestOf(market, seconds);
        if (!newest || newest.start < start) this.stagedNewest.set(seriesKey(market, seconds), fresh);
        continue;
      }
      // Trade ids follow the order fills were accepted in: the lowest opens the interval, the highest closes it.
      if (tradeId < c.openId) [c.open, c.openId] = [odds, tradeId];
      if (tradeId > c.closeId) [c.close, c.closeId] = [odds, tradeId];
      if (odds > c.high) c.high = odds;
      if (odds < c.low) c.low = odds;
      c.volume += stakes;
    }
  }

  /** The market's best maker odds per side now, into its candles of this moment (if it traded in them). */
  private noteBestOdds(market: string, atMs: number): void {
    // A trade in any interval of this moment is one in its day: without a day candle there is nothing to note.
    const day = this.newestOf(market, COARSEST);
    if (!day || day.start !== startOf(atMs, COARSEST)) return;
    const one = this.bestMakerOdds(market, true, atMs);
    const two = this.bestMakerOdds(market, false, atMs);
    for (const { seconds } of WIDTHS) {
      const start = startOf(atMs, seconds);
      const key = `${seriesKey(market, seconds)}:${start}`;
      const c = this.dirty.get(key) ?? this.newestOf(market, seconds);
      // Unchanged best odds change no row.
      if (!c || c.start !== start || (c.bestOne === one && c.bestTwo === two)) continue;
      const target = this.candleAt(market, seconds, start)!;
      target.bestOne = one;
      target.bestTwo = two;
    }
  }

  /** Lowest maker odds of a side that a taker could match at `atMs` (as the engine's best odds), or null. */
  private bestMakerOdds(market: string, makerOutcomeOne: boolean, atMs: number): string | null {
    for (const r of this.s.side!.iterate(market, makerOutcomeOne ? 1 : 0) as Iterable<BookRow>) {
      const order = {
        totalBetSize: BigInt(r.total_bet_size),
        fillAmount: BigInt(r.fill_amount),
        pendingFillAmount: BigInt(r.pending_fill_amount),
        percentageOdds: BigInt(r.percentage_odds),
      };
      if (!isExpired({ expiry: r.expiry, apiExpiry: r.api_expiry }, atMs) && hasFillableSpace(order)) return r.percentage_odds;
    }
    return null;
  }

  /** The newest `limit` candles of a market and interval starting within [fromS, toS], oldest first. */
  candles(market: string, interval: CandleInterval, fromS: number, toS: number, limit: number): Candle[] {
    const rows = this.s.page!.all(market, CANDLE_INTERVALS[interval].seconds, fromS, toS, limit) as CandleRow[];
    return rows.map((r) => ({
      time: r.start_s,
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
