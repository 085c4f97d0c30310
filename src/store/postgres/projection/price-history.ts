// Candles of each market's traded odds, projected as SQLite projects them (src/store/sqlite/price-history.ts): each
// taker trade joins its market's candles per interval, and each market whose book changed has its best maker odds
// noted once its minute or its group ends. Candles change in memory and are written once per batch (flush.ts); the
// newest candle of each series stays in memory between batches, so most batches read none back.
import { COARSEST, KEEP_SECONDS, WIDTHS, type CandleState } from '../../candle-state.js';
import type { Change, TradeFacts } from '../../../engine/changes.js';
import { ODDS_SCALE } from '../../../protocol/odds.js';
import { int, type Queryable } from '../trade-state.js';
import type { BestOdds, OddsAsk } from './book-odds.js';

const MINUTE = WIDTHS[0]!.seconds;

interface CandleRow {
  market_hash: string;
  interval_s: number;
  start_s: string;
  open: string;
  high: string;
  low: string;
  close: string;
  volume: string;
  open_id: string;
  close_id: string;
  best_one: string | null;
  best_two: string | null;
}

const stateOf = (r: CandleRow): CandleState => ({
  market: r.market_hash,
  seconds: r.interval_s,
  start: int(r.start_s),
  open: BigInt(r.open),
  high: BigInt(r.high),
  low: BigInt(r.low),
  close: BigInt(r.close),
  volume: BigInt(r.volume),
  openId: int(r.open_id),
  closeId: int(r.close_id),
  bestOne: r.best_one,
  bestTwo: r.best_two,
  fresh: false,
});

/** The odds of outcome one a taker's trade traded at: its own odds, or their complement if it bet outcome two. */
const outcomeOneOdds = (t: TradeFacts): bigint => (t.bettingOutcomeOne ? t.odds : ODDS_SCALE - t.odds);

const startOf = (atMs: number, seconds: number) => Math.floor(atMs / 1000 / seconds) * seconds;
const seriesKey = (market: string, seconds: number) => `${market}:${seconds}`;

/** When a command's changes happened (its first trade or order change), if they touch a book. */
function timeOf(changes: readonly Change[]): number | undefined {
  for (const c of changes) {
    if (c.type === 'tradeRecorded') return c.trade.betTime;
    if (c.type === 'orderAdded' || c.type === 'orderChanged') return c.state.updatedAt;
  }
  return undefined;
}

/** Reads the best maker odds of markets from the book as the batch has changed it so far. */
export type BookOddsReader = (asks: readonly OddsAsk[]) => Promise<BestOdds[]>;

export class PriceHistoryProjection {
  /** The newest committed candle per series (null: none in the database), as far as known. */
  private readonly newest = new Map<string, CandleState | null>();
  /** What the batch changed: candles by series and start, and the newest per series. */
  readonly dirty = new Map<string, CandleState>();
  private readonly stagedNewest = new Map<string, CandleState | null>();
  /** Markets whose book changed, with the time of the last change: their best odds are due. */
  private readonly pendingBest = new Map<string, number>();
  private db: Queryable | undefined;

  /** Starts a batch on `db`: reads in one query the newest candles of the series its records touch not known yet. */
  async load(db: Queryable, commands: readonly (readonly Change[])[]): Promise<void> {
    this.db = db;
    const markets = new Set<string>();
    for (const changes of commands) {
      for (const c of changes) {
        if (c.type === 'tradeRecorded') markets.add(c.trade.quarterLineParentMarketHash ?? c.trade.marketHash);
        else if (c.type === 'orderAdded') markets.add(c.order.marketHash);
        else if (c.type === 'orderChanged') markets.add(c.marketHash);
      }
    }
    const wanted = [...markets].flatMap((m) => WIDTHS.filter((w) => !this.newest.has(seriesKey(m, w.seconds))).map((w) => [m, w.seconds] as const));
    if (wanted.length === 0) return;
    const { rows } = await db.query<CandleRow>(
      `SELECT c.* FROM unnest($1::text[], $2::int[]) AS s(market, seconds)
       CROSS JOIN LATERAL (SELECT * FROM rm_candles WHERE market_hash = s.market AND interval_s = s.seconds ORDER BY start_s DESC LIMIT 1) c`,
      [wanted.map((w) => w[0]), wanted.map((w) => w[1])],
    );
    for (const [m, seconds] of wanted) this.stagedNewest.set(seriesKey(m, seconds), null);
    for (const r of rows) this.stagedNewest.set(seriesKey(r.market_hash, r.interval_s), stateOf(r));
  }

  /**
   * Before a command's changes are applied: the best odds of markets whose book changed in an earlier minute are
   * read now, while the book is as that minute left it.
   */
  async beginCommand(changes: readonly Change[], readOdds: BookOddsReader): Promise<void> {
    if (this.pendingBest.size === 0) return;
    const at = timeOf(changes);
    if (at === undefined) return;
    const minute = startOf(at, MINUTE);
    const due: OddsAsk[] = [];
    for (const [market, touchedAt] of this.pendingBest) {
      if (startOf(touchedAt, MINUTE) === minute) continue;
      due.push({ market, at: touchedAt });
      this.pendingBest.delete(market);
    }
    await this.noteBestOdds(due, readOdds);
  }

  /** One command's records: each taker trade joins its market's candles; book changes make best odds due. */
  async apply(changes: readonly Change[]): Promise<void> {
    for (const c of changes) {
      if (c.type === 'tradeRecorded') {
        const t = c.trade;
        const market = t.quarterLineParentMarketHash ?? t.marketHash;
        // The taker's trade sets the price; its stake and counter stake are both sides' stakes.
        if (!t.maker) await this.addTrade(market, Number(t.id), outcomeOneOdds(t), t.stake + t.counterStake, t.betTime);
        this.pendingBest.set(market, t.betTime);
      } else if (c.type === 'orderAdded') this.pendingBest.set(c.order.marketHash, c.state.updatedAt);
      else if (c.type === 'orderChanged') this.pendingBest.set(c.marketHash, c.state.updatedAt);
    }
  }

  /** A group of commands ended: the best odds still due are read from the book as the group left it. */
  async endGroup(readOdds: BookOddsReader): Promise<void> {
    const due = [...this.pendingBest].map(([market, at]) => ({ market, at }));
    this.pendingBest.clear();
    await this.noteBestOdds(due, readOdds);
  }

  /** Per series, the start below which fresh candles prune their series' older candles. */
  pruneCutoffs(): Map<string, { market: string; seconds: number; before: number }> {
    const cutoffs = new Map<string, { market: string; seconds: number; before: number }>();
    for (const c of this.dirty.values()) {
      if (!c.fresh) continue;
      const before = c.start - KEEP_SECONDS.get(c.seconds)!;
      const key = seriesKey(c.market, c.seconds);
      const known = cutoffs.get(key);
      if (!known || known.before < before) cutoffs.set(key, { market: c.market, seconds: c.seconds, before });
    }
    return cutoffs;
  }

  /** The batch ended: what it changed stays in memory only if it committed. */
  ended(committed: boolean): void {
    if (committed) for (const [key, c] of this.stagedNewest) this.newest.set(key, c && { ...c, fresh: false });
    this.dirty.clear();
    this.stagedNewest.clear();
    this.pendingBest.clear();
    this.db = undefined;
  }

  /** Forgets the newest candles held (another writer may have changed them). */
  forget(): void {
    this.newest.clear();
  }

  private async noteBestOdds(due: readonly OddsAsk[], readOdds: BookOddsReader): Promise<void> {
    const asks: OddsAsk[] = [];
    for (const ask of due) {
      // A trade in any interval of this moment is one in its day: without a day candle there is nothing to note.
      const day = await this.newestOf(ask.market, COARSEST);
      if (day && day.start === startOf(ask.at, COARSEST)) asks.push(ask);
    }
    if (asks.length === 0) return;
    const odds = await readOdds(asks);
    for (const [i, { market, at }] of asks.entries()) {
      const [one, two] = odds[i]!;
      for (const { seconds } of WIDTHS) {
        const start = startOf(at, seconds);
        const c = this.dirty.get(`${seriesKey(market, seconds)}:${start}`) ?? (await this.newestOf(market, seconds));
        // Unchanged best odds change no row.
        if (!c || c.start !== start || (c.bestOne === one && c.bestTwo === two)) continue;
        const target = (await this.candleAt(market, seconds, start))!;
        target.bestOne = one;
        target.bestTwo = two;
      }
    }
  }

  /** The newest candle of a series as this batch sees it. */
  private async newestOf(market: string, seconds: number): Promise<CandleState | null> {
    const key = seriesKey(market, seconds);
    const staged = this.stagedNewest.get(key);
    if (staged !== undefined) return staged;
    let committed = this.newest.get(key);
    if (committed === undefined) {
      const { rows } = await this.query<CandleRow>('SELECT * FROM rm_candles WHERE market_hash = $1 AND interval_s = $2 ORDER BY start_s DESC LIMIT 1', [market, seconds]);
      committed = rows[0] ? stateOf(rows[0]) : null;
      this.stagedNewest.set(key, committed);
    }
    return committed;
  }

  /** The candle of a series starting at `start` to change in this batch, or undefined if there is none. */
  private async candleAt(market: string, seconds: number, start: number): Promise<CandleState | undefined> {
    const key = `${seriesKey(market, seconds)}:${start}`;
    const dirty = this.dirty.get(key);
    if (dirty) return dirty;
    const newest = await this.newestOf(market, seconds);
    let found: CandleState | undefined;
    if (newest && newest.start === start) found = { ...newest };
    // Only a clock set back reaches behind the newest candle.
    else if (newest && newest.start > start) {
      const { rows } = await this.query<CandleRow>('SELECT * FROM rm_candles WHERE market_hash = $1 AND interval_s = $2 AND start_s = $3', [market, seconds, start]);
      found = rows[0] && stateOf(rows[0]);
    }
    if (!found) return undefined;
    this.dirty.set(key, found);
    if (newest && newest.start === start) this.stagedNewest.set(seriesKey(market, seconds), found);
    return found;
  }

  private async addTrade(market: string, tradeId: number, odds: bigint, stakes: bigint, atMs: number): Promise<void> {
    for (const { seconds } of WIDTHS) {
      const start = startOf(atMs, seconds);
      const c = await this.candleAt(market, seconds, start);
      if (!c) {
        const fresh: CandleState = { market, seconds, start, open: odds, high: odds, low: odds, close: odds, volume: stakes, openId: tradeId, closeId: tradeId, bestOne: null, bestTwo: null, fresh: true };
        this.dirty.set(`${seriesKey(market, seconds)}:${start}`, fresh);
        const newest = await this.newestOf(market, seconds);
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

  private query<R extends object>(sql: string, values: unknown[]) {
    if (!this.db) throw new Error('price history: no batch under way');
    return this.db.query<R>(sql, values);
  }
}
