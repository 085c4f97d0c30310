// Pages of GET /trades/consolidated from rm_consolidated (projected by ../projection/consolidated.ts): filtered,
// counted, sorted and paged in SQL through the bettor or time index, each entry read with its trades.
import type { AsyncQueries, ConsolidatedQueries, EntryQuery, PageEntry, StoredSortField } from '../../ports.js';
import { T_TRADE_COLUMNS, tradeOf, type Queryable, type TradeRow } from '../trade-state.js';

/** Columns the table orders each stored sort field by exactly. */
const SORT_COLUMNS = {
  totalStake: 'total_stake',
  totalBetTimeValue: 'total_stake',
  weightedAverageOdds: 'weighted_odds',
  netReturn: 'net_return',
  netReturnBetTimeValue: 'net_return',
  settleNetReturnValue: 'settle_net_return',
  totalReturn: 'total_return',
  outcome: 'outcome',
  bettingOutcome: 'betting_outcome',
  betTime: 'bet_time',
  settleDate: 'settle_date',
} as const satisfies Record<StoredSortField, string>;

/** The sort columns of rm_consolidated that may be NULL (unsettled entries have no settle date or outcome). */
const NULLABLE_SORT_COLUMNS: ReadonlySet<string> = new Set(['settle_date', 'outcome']);

interface PageRow extends TradeRow {
  page_ord: string;
  page_kind: PageEntry['kind'];
  page_market: string;
  refunded: boolean;
}

export class PostgresConsolidatedPages implements AsyncQueries<ConsolidatedQueries> {
  constructor(private readonly db: Queryable) {}

  /**
   * Matching entries sorted by one field, creation order (ord) breaking ties, one page, and the count. SQLite sorts
   * NULLs first ascending and last descending; PostgreSQL the other way round, so NULLS FIRST/LAST says it.
   */
  async page(q: EntryQuery, sortBy: StoredSortField, ascending: boolean, offset: number, limit: number): Promise<{ entries: PageEntry[]; count: number }> {
    const args: unknown[] = [];
    const arg = (v: unknown) => {
      args.push(v);
      return `$${args.length}`;
    };
    const where = [`settled = ${arg(q.settled)}`];
    if (q.bettor !== undefined) where.push(`bettor = ${arg(q.bettor)}`);
    if (q.maker !== undefined) where.push(`maker = ${arg(q.maker)}`);
    if (q.exchangeEventId !== undefined) where.push(`exchange_event_id = ${arg(q.exchangeEventId)}`);
    if (q.tradeStatus !== undefined) where.push(`status = ${arg(q.tradeStatus)}`);
    if (q.marketHash !== undefined) {
      const m = arg(q.marketHash);
      where.push(`(market_hash = ${m} OR quarter_market_hash = ${m})`);
    }
    if (q.hideQuarterLineParents) where.push("kind <> 'parent'");
    if (q.hideQuarterLineLegs) where.push("kind <> 'leg'");
    const clause = where.join(' AND ');
    // NULLS only where a column can hold one: the planner does not see that NOT NULL makes it moot, and an ORDER BY
    // with it cannot walk the (bettor, settled, bet_time, ord) index backwards (it sorted every entry of the bettor).
    const dir = (ascending ? 'ASC' : 'DESC') + (NULLABLE_SORT_COLUMNS.has(SORT_COLUMNS[sortBy]) ? (ascending ? ' NULLS FIRST' : ' NULLS LAST') : '');
    const ordDir = ascending ? 'ASC' : 'DESC';
    // Under the filters rm_consolidated_counts keeps, the total is a sum of its rows.
    const counted = q.exchangeEventId === undefined && q.marketHash === undefined;
    const countSql = counted
      ? `SELECT COALESCE(SUM(n), 0) AS n FROM rm_consolidated_counts WHERE ${clause}`
      : `SELECT COUNT(*) AS n FROM rm_consolidated WHERE ${clause}`;
    const countArgs = [...args];
    const pageSql = `WITH page AS (SELECT fill_hash, bettor, market_hash, kind, ${SORT_COLUMNS[sortBy]} AS sort_value, ord
        FROM rm_consolidated WHERE ${clause} ORDER BY sort_value ${dir}, ord ${ordDir} LIMIT ${arg(limit)} OFFSET ${arg(offset)})
      SELECT ${T_TRADE_COLUMNS}, page.ord AS page_ord, page.kind AS page_kind, page.market_hash AS page_market,
        EXISTS (SELECT 1 FROM rm_refunds r WHERE r.bettor = t.bettor AND r.market_hash = t.market_hash) AS refunded
      FROM page JOIN rm_trades t ON t.fill_hash = page.fill_hash AND t.bettor = page.bettor
        AND (CASE page.kind WHEN 'parent' THEN t.parent_market_hash ELSE t.market_hash END) = page.market_hash
      ORDER BY page.sort_value ${dir}, page.ord ${ordDir}, t.id`;
    // Two statements in parallel, not one: the count joined to the page, with the fills' cash outs, measured slower
    // than both plus fillsOnChain after them.
    const [countRows, pageRows] = await Promise.all([this.db.query<{ n: string }>(countSql, countArgs), this.db.query<PageRow>(pageSql, args)]);
    const entries: PageEntry[] = [];
    let last: PageEntry | undefined;
    let lastOrd: string | undefined;
    for (const row of pageRows.rows) {
      if (row.page_ord !== lastOrd) {
        last = { kind: row.page_kind, marketHash: row.page_market, trades: [], refunded: false };
        entries.push(last);
        lastOrd = row.page_ord;
      }
      last!.trades.push(tradeOf(row));
      if (row.refunded) last!.refunded = true;
    }
    return { entries, count: Number(countRows.rows[0]!.n) };
  }
}
