// The read model behind GET /trades/consolidated: one row per listed entry (its fill executed or failed on chain)
// with its filter and sort values, so a listing
// counts, sorts and pages in SQL (through the bettor index) and renders only its page. Rows are rewritten from a
// fill's trades, inside the journal's transaction, whenever a change record touches one of them.
import type { Db } from './db.js';
import type { Change } from '../../engine/changes.js';
import type { Trade } from '../../engine/types.js';
import { TradeIndex } from '../trade-index.js';
import { ChangedTrades } from '../changed-trades.js';
import { ENTRY_SORT_COLUMNS, entryFigures, entryOrder } from '../consolidated-figures.js';
import { StatementCache } from './statement-cache.js';
import { CountDeltas } from './count-deltas.js';
import type { EntryQuery, PageEntry, StoredSortField } from '../ports.js';
import { T_BETTOR_REFUNDED, T_TRADE_COLUMNS, TRADE_ROW_LENGTH, tradeOf, type TradeRow } from './trade-rows.js';




/** A page row: the trade's columns, then the entry's ord, kind and market, and the refund flag. */
type PageExtras = [ord: number, kind: PageEntry['kind'], market: string, refunded: 0 | 1];
type PageRow = [...TradeRow, ...PageExtras];

const DIGITS = 40;
const OFFSET = 10n ** BigInt(DIGITS);
/** Text that sorts like the number: "p" + digits for x >= 0, "n" + digits of 10^40 + x below (|x| < 10^40). */
export const sortableAmount = (x: bigint): string =>
  x >= 0n ? 'p' + x.toString().padStart(DIGITS, '0') : 'n' + (OFFSET + x).toString().padStart(DIGITS, '0');

export class ConsolidatedEntries {
  /** Lists a new entry; a fill's entries are written when the chain has spoken, so nearly every one is new. */
  private readonly insert;
  private readonly upsert;
  /** The listing totals the transaction under way changes by listing new entries (rm_consolidated_counts). */
  private readonly counts: CountDeltas;
  private readonly fillOfTrade;
  private readonly tradesOfFill: (fillHash: string) => Trade[];
  /** Statements of listings, whose SQL follows the filters and sort sent. */
  private readonly filtered: StatementCache;

  constructor(
    private readonly db: Db,
    tradesOfFill: (fillHash: string) => Trade[],
  ) {
    this.tradesOfFill = tradesOfFill;
    // An entry already listed is updated, not replaced: the listing totals' trigger sees a changed entry as an update.
    const updated = ['quarter_market_hash', 'exchange_event_id', 'maker', 'status', 'settled', 'ord', 'bet_time', 'settle_date',
      'outcome', 'betting_outcome', 'total_stake', 'weighted_odds', 'net_return', 'settle_net_return', 'total_return'];
    const insert = `INSERT INTO rm_consolidated VALUES (@fill_hash, @bettor, @market_hash, @kind,
      @quarter_market_hash, @exchange_event_id, @maker, @status, @settled, @ord, @bet_time, @settle_date, @outcome,
      @betting_outcome, @total_stake, @weighted_odds, @net_return, @settle_net_return, @total_return)
      ON CONFLICT (fill_hash, bettor, market_hash, kind)`;
    this.insert = db.prepare(`${insert} DO NOTHING`);
    this.upsert = db.prepare(`${insert} DO UPDATE SET ${updated.map((c) => `${c} = excluded.${c}`).join(', ')}`);
    this.counts = new CountDeltas(db, 'rm_consolidated_counts', 5);
    this.fillOfTrade = db.prepare('SELECT fill_hash FROM rm_trades WHERE id = ?').pluck();
    this.filtered = new StatementCache(db);
  }

  /**
   * Rewrites the entries of every fill whose trades changed status or settled (after the trade rows themselves were
   * written), and of `settledFills`: fills whose trades settled as part of a position (positionSettled names no
   * trade). A trade is recorded PENDING, and entries of pending fills are not listed: recording alone writes none.
   */
  apply(changes: readonly Change[], settledFills?: ReadonlySet<string>): void {
    let fills: Set<string> | undefined = settledFills && new Set(settledFills);
    let changed: ChangedTrades | undefined;
    for (const c of changes) {
      if (c.type !== 'tradeStatusChanged' && c.type !== 'tradeSettled') continue;
      changed ??= new ChangedTrades(changes);
      const fillHash =
        c.type === 'tradeStatusChanged'
          ? c.trade.fillHash
          : (changed.trade(c.tradeId)?.fillHash ?? (this.fillOfTrade.get(Number(c.tradeId)) as string | undefined));
      if (fillHash !== undefined) (fills ??= new Set()).add(fillHash);
    }
    for (const fillHash of fills ?? []) this.rewriteFill(fillHash, changed?.tradesOfFill(fillHash));
  }

  /** Writes the listing totals the transaction under way changed (just before it commits). */
  writeCounts(): void {
    this.counts.write();
  }

  /** Forgets the listing totals of a transaction that rolled back. */
  discardCounts(): void {
    this.counts.discard();
  }

  /** Fills the table from the trades (a data dir from before it existed), with its totals, in one transaction. */
  rebuildIfEmpty(): void {
    if (this.db.prepare('SELECT 1 FROM rm_consolidated LIMIT 1').get() !== undefined) return;
    const fills = this.db.prepare('SELECT DISTINCT fill_hash FROM rm_trades').pluck().all() as string[];
    this.db.transaction(() => {
      for (const fillHash of fills) this.rewriteFill(fillHash);
      this.counts.write();
    })();
  }

  /** `known`: the fill's trades as the commit left them, when its change records describe them all. */
  private rewriteFill(fillHash: string, known?: Trade[]): void {
    for (const g of new TradeIndex(known ?? this.tradesOfFill(fillHash)).groups()) {
      const f = entryFigures(g);
      // Fills waiting on the chain are not listed: their entries are written once the chain has spoken, so a
      // listing's count and page read the bettor index alone.
      if (f.status === 'PENDING') continue;
      const entry = {
        fill_hash: fillHash,
        bettor: f.first.bettor.toLowerCase(),
        market_hash: g.marketHash,
        kind: g.kind,
        quarter_market_hash: f.first.quarterLineParentMarketHash ?? null,
        exchange_event_id: f.first.exchangeEventId,
        maker: f.first.maker ? 1 : 0,
        status: f.status,
        settled: f.settled ? 1 : 0,
        ord: entryOrder(g),
        bet_time: f.betTime,
        settle_date: f.settleDate ?? null,
        outcome: f.outcome ?? null,
        betting_outcome: f.bettingOutcome,
        total_stake: sortableAmount(f.totalStake),
        weighted_odds: sortableAmount(f.weightedAverageOdds),
        net_return: sortableAmount(f.netReturn),
        settle_net_return: sortableAmount(f.settleNetReturn),
        total_return: sortableAmount(f.totalReturn),
      };
      if (this.insert.run(entry).changes === 1) this.counts.add([entry.bettor, entry.settled, entry.status, entry.maker, entry.kind], 1);
      else this.upsert.run(entry);
    }
  }

  /**
   * Matching entries, sorted by one field with creation order breaking ties, one page, and the count. The page is
   * read in one statement with each entry's trades (its bettor's trades of the fill on the entry's market, or on the
   * legs of a quarter-line parent) and whether the bettor was refunded on their markets.
   */
  page(q: EntryQuery, sortBy: StoredSortField, ascending: boolean, offset: number, limit: number): { entries: PageEntry[]; count: number } {
    // A market's entries (or its legs') are found through the market indexes: '+settled' keeps SQLite from walking
    // every settled or unsettled entry of the exchange in the (settled, bet_time) index to spare the page's sort.
    const where = [q.marketHash !== undefined && q.bettor === undefined ? '+settled = ?' : 'settled = ?'];
    const args: (string | number)[] = [q.settled ? 1 : 0];
    if (q.bettor !== undefined) {
      where.push('bettor = ?');
      args.push(q.bettor.toLowerCase());
    }
    if (q.maker !== undefined) {
      where.push('maker = ?');
      args.push(q.maker ? 1 : 0);
    }
    if (q.exchangeEventId !== undefined) {
      where.push('exchange_event_id = ?');
      args.push(q.exchangeEventId);
    }
    if (q.tradeStatus !== undefined) {
      where.push('status = ?');
      args.push(q.tradeStatus);
    }
    if (q.marketHash !== undefined) {
      where.push('(market_hash = ? OR quarter_market_hash = ?)');
      args.push(q.marketHash, q.marketHash);
    }
    if (q.hideQuarterLineParents) where.push("kind <> 'parent'");
    if (q.hideQuarterLineLegs) where.push("kind <> 'leg'");
    const clause = where.join(' AND ');
    const dir = ascending ? 'ASC' : 'DESC';
    // Under the filters rm_consolidated_counts keeps, the total is a sum of its rows: a bettor's few, or at most one
    // per counted combination for everyone (never more rows than the entries themselves).
    const counted = q.exchangeEventId === undefined && q.marketHash === undefined;
    const count = counted
      ? (this.filtered.get(`SELECT COALESCE(SUM(n), 0) FROM rm_consolidated_counts WHERE ${clause}`).pluck().get(...args) as number)
      : (this.filtered.get(`SELECT COUNT(*) FROM rm_consolidated WHERE ${clause}`).pluck().get(...args) as number);
    // The outer ORDER BY repeats the page's: (sort value, ord) is unique, since ord is unique per entry.
    const rows = this.filtered
      .get(
        `WITH page AS (SELECT fill_hash, bettor, market_hash, kind, ${ENTRY_SORT_COLUMNS[sortBy]} AS sort_value, ord
           FROM rm_consolidated WHERE ${clause} ORDER BY sort_value ${dir}, ord ${dir} LIMIT ? OFFSET ?)
         SELECT ${T_TRADE_COLUMNS}, page.ord, page.kind, page.market_hash, ${T_BETTOR_REFUNDED}
         FROM page JOIN rm_trades t ON t.fill_hash = page.fill_hash AND t.bettor = page.bettor
           AND (CASE page.kind WHEN 'parent' THEN t.parent_market_hash ELSE t.market_hash END) = page.market_hash
         ORDER BY page.sort_value ${dir}, page.ord ${dir}, t.id`,
      )
      .raw()
      .all(...args, limit, offset) as PageRow[];
    const entries: PageEntry[] = [];
    let last: PageEntry | undefined;
    let lastOrd = NaN;
    for (const row of rows) {
      const [ord, kind, market, refunded] = row.slice(TRADE_ROW_LENGTH) as PageExtras;
      if (ord !== lastOrd) {
        last = { kind, marketHash: market, trades: [], refunded: false };
        entries.push(last);
        lastOrd = ord;
      }
      last!.trades.push(tradeOf(row));
      if (refunded === 1) last!.refunded = true;
    }
    return { entries, count };
  }
}
