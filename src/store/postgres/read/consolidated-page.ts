// Pages of GET /trades/consolidated from rm_consolidated (projected by ../projection/consolidated.ts): filtered,
// counted, sorted and paged in SQL through the bettor or time index, each entry read with its trades.
import type { AsyncQueries, ConsolidatedQueries, EntryQuery, PageEntry, StoredSortField } from '../../ports.js';
import { T_TRADE_COLUMNS, tradeOf, type Queryable, type TradeRow } from '../trade-state.js';
import { ENTRY_SORT_COLUMNS } from '../../consolidated-figures.js';
import { sqlBoolean, sqlTradeStatus, type StatementRunner } from '../prepared-listings.js';

/** The sort columns of rm_consolidated that may be NULL (unsettled entries have no settle date or outcome). */
const NULLABLE_SORT_COLUMNS: ReadonlySet<string> = new Set(['settle_date', 'outcome']);

interface PageRow extends TradeRow {
  page_count: string;
  page_ord: string | null;
  page_kind: PageEntry['kind'];
  page_market: string;
  refunded: boolean;
  cash_out_amount: string | null;
  cash_out_fee: string | null;
}

export class PostgresConsolidatedPages implements AsyncQueries<ConsolidatedQueries> {
  /** `listings` runs a bettor's pages (prepared-listings.ts); other pages run on `db`. */
  constructor(
    private readonly db: Queryable,
    private readonly listings: StatementRunner = db,
  ) {}

  /**
   * Matching entries sorted by one field, creation order (ord) breaking ties, one page, the count and the page's
   * cash outs, in one statement. SQLite sorts NULLs first ascending and last descending; PostgreSQL the other way
   * round, so NULLS FIRST/LAST says it.
   */
  async page(
    q: EntryQuery,
    sortBy: StoredSortField,
    ascending: boolean,
    offset: number,
    limit: number,
  ): Promise<{ entries: PageEntry[]; count: number; cashOutOf: (fillHash: string) => { amount: bigint; fee: bigint } | undefined }> {
    const args: unknown[] = [];
    const arg = (v: unknown) => {
      args.push(v);
      return `$${args.length}`;
    };
    // Flags and statuses are written into the text (a few shapes each), so that a plan made once for every bettor
    // (prepared-listings.ts) still knows how selective they are; values of many kinds are parameters.
    const where = [`settled = ${sqlBoolean(q.settled)}`];
    if (q.bettor !== undefined) where.push(`bettor = ${arg(q.bettor)}`);
    if (q.maker !== undefined) where.push(`maker = ${sqlBoolean(q.maker)}`);
    if (q.exchangeEventId !== undefined) where.push(`exchange_event_id = ${arg(q.exchangeEventId)}`);
    if (q.tradeStatus !== undefined) where.push(`status = ${sqlTradeStatus(q.tradeStatus)}`);
    if (q.marketHash !== undefined) {
      const m = arg(q.marketHash);
      where.push(`(market_hash = ${m} OR quarter_market_hash = ${m})`);
    }
    if (q.hideQuarterLineParents) where.push("kind <> 'parent'");
    if (q.hideQuarterLineLegs) where.push("kind <> 'leg'");
    const clause = where.join(' AND ');
    // NULLS only where a column can hold one: the planner does not see that NOT NULL makes it moot, and an ORDER BY
    // with it cannot walk the (bettor, settled, bet_time, ord) index backwards (it sorted every entry of the bettor).
    const dir = (ascending ? 'ASC' : 'DESC') + (NULLABLE_SORT_COLUMNS.has(ENTRY_SORT_COLUMNS[sortBy]) ? (ascending ? ' NULLS FIRST' : ' NULLS LAST') : '');
    const ordDir = ascending ? 'ASC' : 'DESC';
    // Under the filters rm_consolidated_counts keeps, the total is a sum of its rows.
    const counted = q.exchangeEventId === undefined && q.marketHash === undefined;
    const countSql = counted
      ? `SELECT COALESCE(SUM(n), 0) AS n FROM rm_consolidated_counts WHERE ${clause}`
      : `SELECT COUNT(*) AS n FROM rm_consolidated WHERE ${clause}`;
    // The count, the page's entries with their trades, refund flags and fills' cash outs in one statement (the count
    // on every row; one row of NULLs for an empty page): each statement costs this process a write and a read of the
    // socket and the server a parse and a plan, which at 1M trades weighed more than the statements' own work. Refund
    // flags are read once per bettor and market of the page's trades, not per trade.
    const pageSql = `WITH page AS (SELECT fill_hash, bettor, market_hash, kind, ${ENTRY_SORT_COLUMNS[sortBy]} AS sort_value, ord
        FROM rm_consolidated WHERE ${clause} ORDER BY sort_value ${dir}, ord ${ordDir} LIMIT ${arg(limit)} OFFSET ${arg(offset)}),
      counted AS (${countSql}),
      listed AS (SELECT ${T_TRADE_COLUMNS}, page.sort_value AS page_sort, page.ord AS page_ord, page.kind AS page_kind, page.market_hash AS page_market
        FROM page JOIN rm_trades t ON t.fill_hash = page.fill_hash AND t.bettor = page.bettor
          AND (CASE page.kind WHEN 'parent' THEN t.parent_market_hash ELSE t.market_hash END) = page.market_hash),
      flags AS MATERIALIZED (SELECT p.bettor, p.market_hash, EXISTS (SELECT 1 FROM rm_refunds r WHERE r.bettor = p.bettor AND r.market_hash = p.market_hash) AS refunded
        FROM (SELECT DISTINCT bettor, market_hash FROM listed) p)
      SELECT counted.n AS page_count, entry.* FROM counted LEFT JOIN (
        SELECT listed.*, flags.refunded, f.cash_out_amount, f.cash_out_fee
        FROM listed JOIN flags ON flags.bettor = listed.bettor AND flags.market_hash = listed.market_hash
          LEFT JOIN rm_fills f ON f.fill_hash = listed.fill_hash
      ) entry ON true
      ORDER BY entry.page_sort ${dir}, entry.page_ord ${ordDir}, entry.id`;
    // A bettor's page with no event or market filter runs prepared (its plan the same for every bettor); one with
    // them may want another index for some values, and is planned for its own.
    const prepared = q.bettor !== undefined && q.exchangeEventId === undefined && q.marketHash === undefined;
    const { rows } = await (prepared ? this.listings : this.db).query<PageRow>(pageSql, args);
    const entries: PageEntry[] = [];
    const cashOuts = new Map<string, { amount: bigint; fee: bigint }>();
    let last: PageEntry | undefined;
    let lastOrd: string | undefined;
    for (const row of rows) {
      if (row.page_ord === null) continue;
      if (row.page_ord !== lastOrd) {
        last = { kind: row.page_kind, marketHash: row.page_market, trades: [], refunded: false };
        entries.push(last);
        lastOrd = row.page_ord;
      }
      last!.trades.push(tradeOf(row));
      if (row.refunded) last!.refunded = true;
      // As fillOnChainOf: a fill with a cash-out amount was a cash out's (its fee 0 when none was recorded).
      if (row.cash_out_amount !== null) cashOuts.set(row.fill_hash, { amount: BigInt(row.cash_out_amount), fee: BigInt(row.cash_out_fee ?? '0') });
    }
    return { entries, count: Number(rows[0]!.page_count), cashOutOf: (fillHash) => cashOuts.get(fillHash) };
  }
}
