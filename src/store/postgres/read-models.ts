// The read side on PostgreSQL (the ReadModels port), as the projector (projector.ts) leaves it: the trade, fill and
// settlement queries here, orders, refunds, balances, fees, consolidated pages, candles, the funds statement and
// positions through their modules under read/. Every query answers through an index, so its cost follows the page
// asked for, not the history; wei come back as numeric text and become bigint exactly.
import type pg from 'pg';
import type { ListedTrades, ReadModels, TradeFilter } from '../ports.js';
import type { FillOnChain } from '../fill-on-chain.js';
import type { Outcome, Trade } from '../../engine/types.js';
import { CoalescedLookup } from './coalesced-lookup.js';
import { PostgresOrderReads } from './read/order-reads.js';
import { PostgresRefundReads } from './read/refund-reads.js';
import { PostgresBalanceReads } from './read/balance-reads.js';
import { PostgresRestrictionReads } from './read/restriction-reads.js';
import { PostgresFeeRevenue } from './read/fee-revenue.js';
import { sqlBoolean, sqlTradeStatus, type StatementRunner } from './prepared-listings.js';
import { PostgresConsolidatedPages } from './read/consolidated-page.js';
import { PostgresCandles } from './read/candles.js';
import { PostgresStatementPages } from './read/statement-page.js';
import { PostgresPositions } from './read/positions.js';
import { FILL_CHAIN_COLUMNS, T_TRADE_COLUMNS, TRADE_COLUMNS, bound, fillOnChainOf, int, tradeOf, type FillChainRow, type TradeRow } from './trade-state.js';

/** Filters that rm_trade_counts keeps a bettor's totals by (its columns have the trade columns' names). */
const COUNTED_TRADE_FILTERS = new Set<keyof TradeFilter>(['bettor', 'settled', 'baseToken', 'maker', 'affiliate', 'tradeStatus']);
const isCounted = (f: TradeFilter): boolean =>
  (Object.keys(f) as (keyof TradeFilter)[]).every((k) => f[k] === undefined || COUNTED_TRADE_FILTERS.has(k));

/** A listed trade row: the trade, whether its bettor was refunded in its market, its fill's chain record if any. */
interface ListedTradeRow extends TradeRow {
  has_refunds: boolean;
  fill_recorded: boolean;
  f_attempts: string[] | null;
  f_last_attempt_at: string | null;
  f_tx_hash: string | null;
  f_failure_reason: string | null;
  f_cash_out_amount: string | null;
  f_cash_out_fee: string | null;
}

const LISTED_TRADES = `SELECT ${T_TRADE_COLUMNS},
    EXISTS (SELECT 1 FROM rm_refunds r WHERE r.bettor = t.bettor AND r.market_hash = t.market_hash) AS has_refunds,
    f.fill_hash IS NOT NULL AS fill_recorded, f.attempts AS f_attempts, f.last_attempt_at AS f_last_attempt_at, f.tx_hash AS f_tx_hash,
    f.failure_reason AS f_failure_reason, f.cash_out_amount AS f_cash_out_amount, f.cash_out_fee AS f_cash_out_fee
  FROM rm_trades t LEFT JOIN rm_fills f ON f.fill_hash = t.fill_hash`;

const refundKey = (marketHash: string, bettor: string) => `${marketHash}|${bettor.toLowerCase()}`;

/**
 * The trades of listed rows with what rendering them reads. Its lookups answer from the rows read (they cannot wait
 * for a server): a pair or fill outside the listing reads as not refunded / not recorded.
 */
function listed(rows: readonly ListedTradeRow[]): ListedTrades {
  const refunded = new Map<string, boolean>();
  const fills = new Map<string, FillOnChain | undefined>();
  const trades = rows.map((row) => {
    const t = tradeOf(row);
    refunded.set(refundKey(t.marketHash, t.bettor), row.has_refunds);
    const fill: FillChainRow | undefined = row.fill_recorded
      ? {
          fill_hash: t.fillHash, attempts: row.f_attempts, last_attempt_at: row.f_last_attempt_at, tx_hash: row.f_tx_hash,
          failure_reason: row.f_failure_reason, cash_out_amount: row.f_cash_out_amount, cash_out_fee: row.f_cash_out_fee,
        }
      : undefined;
    fills.set(t.fillHash, fill && fillOnChainOf(fill));
    return t;
  });
  return {
    trades,
    versions: rows.map((r) => r.rev),
    hasRefunds: (marketHash, bettor) => refunded.get(refundKey(marketHash, bettor)) ?? false,
    fillOnChain: (fillHash) => fills.get(fillHash),
  };
}

export class PostgresReadModels implements ReadModels {
  readonly orders: PostgresOrderReads;
  readonly refunds: PostgresRefundReads;
  readonly balances: PostgresBalanceReads;
  readonly restrictions: PostgresRestrictionReads;
  readonly fees: PostgresFeeRevenue;
  readonly entries: PostgresConsolidatedPages;
  readonly history: PostgresCandles;
  readonly statement: PostgresStatementPages;
  readonly positions: PostgresPositions;

  /**
   * `listings` runs a bettor's pages of trades and consolidated entries (prepared once, planned once: see
   * prepared-listings.ts); without it they run on `db` as every other read.
   */
  constructor(
    private readonly db: pg.Pool,
    private readonly listings: StatementRunner = db,
  ) {
    this.orders = new PostgresOrderReads(db);
    this.refunds = new PostgresRefundReads(db);
    this.balances = new PostgresBalanceReads(db);
    this.restrictions = new PostgresRestrictionReads(db);
    this.fees = new PostgresFeeRevenue(db);
    this.entries = new PostgresConsolidatedPages(db, listings);
    this.history = new PostgresCandles(db);
    this.statement = new PostgresStatementPages(db);
    this.positions = new PostgresPositions(db);
  }

  private async trades(where: string, values: unknown[] = []): Promise<Trade[]> {
    const { rows } = await this.db.query<TradeRow>(`SELECT ${TRADE_COLUMNS} FROM rm_trades ${where}`, values);
    return rows.map(tradeOf);
  }

  async trade(id: string): Promise<Trade | undefined> {
    // As SQLite's Number(id): an id that is no integer names no trade.
    const n = Number(id);
    if (!Number.isSafeInteger(n)) return undefined;
    return (await this.trades('WHERE id = $1', [n]))[0];
  }

  tradesOfFill(fillHash: string): Promise<Trade[]> {
    return this.trades('WHERE fill_hash = $1 ORDER BY id', [fillHash]);
  }

  /** Trades of the given orders, oldest first, read in one query. */
  async tradesOfOrders(orderHashes: readonly string[]): Promise<ListedTrades> {
    const { rows } = await this.db.query<ListedTradeRow>(`${LISTED_TRADES} WHERE t.order_hash = ANY($1::text[]) ORDER BY t.id`, [orderHashes]);
    return listed(rows);
  }

  /**
   * Trades of one bettor (or everyone's), oldest first. With `inFillsWith`, only the bettor's fills holding at least
   * one trade in that settlement state (all of those fills' trades of the bettor, so groups stay whole).
   */
  tradesOf(bettor?: string, inFillsWith?: { settled: boolean }): Promise<Trade[]> {
    if (bettor === undefined) return this.trades('ORDER BY id');
    if (inFillsWith) {
      return this.trades('WHERE bettor = $1 AND fill_hash IN (SELECT fill_hash FROM rm_trades WHERE bettor = $1 AND settled = $2) ORDER BY id', [bettor, inFillsWith.settled]);
    }
    return this.trades('WHERE bettor = $1 ORDER BY id', [bettor]);
  }

  /** A bettor's trades on one market (a leg market for quarter-line bets), oldest first. */
  tradesOfBettorIn(bettor: string, marketHash: string): Promise<Trade[]> {
    return this.trades('WHERE bettor = $1 AND market_hash = $2 ORDER BY id', [bettor, marketHash]);
  }

  /** One page of GET /trades (newest first, below the cursor id) with the count of every match. */
  async tradesPage(f: TradeFilter, belowId: number, pageSize: number): Promise<ListedTrades & { count: number; more: boolean }> {
    const { ids, count, more } = await this.tradeVersionsPage(f, belowId, pageSize);
    return { ...(await this.listedTrades(ids)), count, more };
  }

  /**
   * The trades under the filters below `belowId`, newest first, as ids and versions, with the total, whether more
   * follow and each trade's refund flag (its bettor refunded in its market): one statement, one round trip.
   */
  async tradeVersionsPage(
    f: TradeFilter,
    belowId: number,
    pageSize: number,
  ): Promise<{ ids: number[]; versions: number[]; count: number; more: boolean; refunded: boolean[] }> {
    const where: string[] = [];
    const args: unknown[] = [];
    const arg = (v: unknown) => {
      args.push(v);
      return `$${args.length}`;
    };
    if (f.startMs !== undefined) where.push(`t.bet_time >= ${arg(bound(f.startMs))}`);
    if (f.endMs !== undefined) where.push(`t.bet_time < ${arg(bound(f.endMs))}`);
    if (f.bettor !== undefined) where.push(`t.bettor = ${arg(f.bettor)}`);
    // Flags and statuses are written into the text, as in PostgresConsolidatedPages.page.
    if (f.settled !== undefined) where.push(`t.settled = ${sqlBoolean(f.settled)}`);
    if (f.marketHashes !== undefined) {
      const m = arg(f.marketHashes);
      where.push(`(t.market_hash = ANY(${m}::text[]) OR t.parent_market_hash = ANY(${m}::text[]))`);
    }
    if (f.baseToken !== undefined) where.push(`t.base_token = ${arg(f.baseToken)}`);
    if (f.maker !== undefined) where.push(`t.maker = ${sqlBoolean(f.maker)}`);
    if (f.affiliate !== undefined) where.push(`t.affiliate = ${arg(f.affiliate)}`);
    if (f.tradeStatus !== undefined) where.push(`t.status = ${sqlTradeStatus(f.tradeStatus)}`);
    if (f.exchangeEventId !== undefined) where.push(`t.exchange_event_id = ${arg(f.exchangeEventId)}`);
    const clause = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
    const countSql = isCounted(f)
      ? `SELECT COALESCE(SUM(n), 0) AS n FROM rm_trade_counts t ${clause}`
      : `SELECT COUNT(*) AS n FROM rm_trades t ${clause}`;
    // As the SQLite read models: a cursor that is no finite number reads from the newest trade.
    const below = arg(Number.isFinite(belowId) ? Math.ceil(belowId) : Number.MAX_SAFE_INTEGER);
    const pageSql = `SELECT t.id, t.rev, t.bettor, t.market_hash FROM rm_trades t ${clause ? `${clause} AND` : 'WHERE'} t.id < ${below}
      ORDER BY t.id DESC LIMIT ${arg(pageSize + 1)}`;
    // The count, the page and its refund flags in one statement (the count on every row; one row of NULLs for an
    // empty page): each statement costs this process a write and a read of the socket and the server a parse and a
    // plan, which at 1M trades weighed more than the statements' own work (bench/history.ts). Refund flags are read
    // once per bettor and market of the page, not per trade.
    // A bettor's listing with no range, list or event filter runs prepared (its plan the same for every bettor); one
    // with those may want another index for some values, and is planned for its own.
    const prepared = f.bettor !== undefined && f.startMs === undefined && f.endMs === undefined && f.marketHashes === undefined && f.exchangeEventId === undefined;
    const { rows } = await (prepared ? this.listings : this.db).query<{ n: string; id: string | null; rev: number | null; refunded: boolean | null }>(
      `WITH counted AS (${countSql}), page AS (${pageSql}),
        flags AS MATERIALIZED (SELECT p.bettor, p.market_hash, EXISTS (SELECT 1 FROM rm_refunds r WHERE r.bettor = p.bettor AND r.market_hash = p.market_hash) AS refunded
          FROM (SELECT DISTINCT bettor, market_hash FROM page) p)
      SELECT counted.n, listed.id, listed.rev, listed.refunded FROM counted LEFT JOIN (
        SELECT page.id, page.rev, flags.refunded FROM page JOIN flags ON flags.bettor = page.bettor AND flags.market_hash = page.market_hash
      ) listed ON true ORDER BY listed.id DESC`,
      args,
    );
    const page = rows.filter((r) => r.id !== null).slice(0, pageSize);
    return {
      ids: page.map((r) => int(r.id!)),
      versions: page.map((r) => r.rev!),
      count: Number(rows[0]!.n),
      more: rows.filter((r) => r.id !== null).length > pageSize,
      refunded: page.map((r) => r.refunded!),
    };
  }

  /** These trades (ids that are not trades are left out), in the order given, with what rendering them reads. */
  async listedTrades(ids: readonly number[]): Promise<ListedTrades> {
    const { rows } = await this.db.query<ListedTradeRow>(`${LISTED_TRADES} WHERE t.id = ANY($1::bigint[])`, [ids]);
    const position = new Map(ids.map((id, i) => [id, i]));
    rows.sort((a, b) => position.get(int(a.id))! - position.get(int(b.id))!);
    return listed(rows);
  }

  /** The transactions that carried a fill on chain; undefined for an unknown fill. */
  async fillOnChain(fillHash: string): Promise<FillOnChain | undefined> {
    const { rows } = await this.db.query<FillChainRow>(`SELECT ${FILL_CHAIN_COLUMNS} FROM rm_fills WHERE fill_hash = $1`, [fillHash]);
    return rows[0] && fillOnChainOf(rows[0]);
  }

  /** `fillOnChain` for many fills, read in one query; the answer knows those fills only (others: undefined). */
  async fillsOnChain(fillHashes: readonly string[]): Promise<(fillHash: string) => FillOnChain | undefined> {
    const { rows } = await this.db.query<FillChainRow>(`SELECT ${FILL_CHAIN_COLUMNS} FROM rm_fills WHERE fill_hash = ANY($1::text[])`, [[...new Set(fillHashes)]]);
    const found = new Map(rows.map((r) => [r.fill_hash, fillOnChainOf(r)]));
    return (fillHash) => found.get(fillHash);
  }

  /** A fill with this salt or hash was accepted before. */
  async fillUsed(fillSalt: string, fillHash: string): Promise<boolean> {
    const key = `${fillSalt} ${fillHash}`;
    return (await this.usedFills.find([key]))(key);
  }

  /** `fillUsed` for the fills asked at once, in one query (the writer awaits it before every fill). */
  private readonly usedFills = new CoalescedLookup<string>(async (keys) => {
    const asked = keys.map((k) => k.split(' ') as [string, string]);
    // Not a named statement: see PostgresOrderReads.postedOrders.
    const { rows } = await this.db.query<{ fill_salt: string; fill_hash: string }>(
      'SELECT fill_salt, fill_hash FROM rm_fills WHERE fill_salt = ANY($1::text[]) OR fill_hash = ANY($2::text[])',
      [asked.map(([salt]) => salt), asked.map(([, hash]) => hash)],
    );
    const salts = new Set(rows.map((r) => r.fill_salt));
    const hashes = new Set(rows.map((r) => r.fill_hash));
    return (key) => {
      const [salt, hash] = key.split(' ') as [string, string];
      return salts.has(salt) || hashes.has(hash);
    };
  });

  /**
   * Matched volume in base-token wei per market, as committed: one small row per market, read at each ask (another
   * process projects; nothing here would tell this one when to read again).
   */
  async matchedVolume(): Promise<ReadonlyMap<string, bigint>> {
    const { rows } = await this.db.query<{ market_hash: string; volume: string }>('SELECT market_hash, volume FROM rm_volume');
    return new Map(rows.map((r) => [r.market_hash, BigInt(r.volume)]));
  }

  /** Ids of the trades a report settled in a market at `settleDate`. */
  async tradesSettledIn(marketHash: string, settleDate: number): Promise<string[]> {
    const { rows } = await this.db.query<{ id: string }>('SELECT id FROM rm_trades WHERE market_hash = $1 AND settled AND settle_date = $2 ORDER BY id', [marketHash, settleDate]);
    return rows.map((r) => r.id);
  }

  /** Trade ids of a bettor in a market that an on-chain escrow paid in transaction `txHash`. */
  async tradesPaidIn(marketHash: string, bettor: string, txHash: string): Promise<string[]> {
    const { rows } = await this.db.query<{ id: string }>('SELECT id FROM rm_trades WHERE market_hash = $1 AND bettor = $2 AND settle_tx_hash = $3 ORDER BY id', [marketHash, bettor, txHash]);
    return rows.map((r) => r.id);
  }

  /**
   * Market results the engine journaled that the catalogue does not show as SETTLED (`unsettled`), oldest first;
   * with `among`, only those markets' reports are read (through the primary key), not every report.
   */
  async reportsBehindCatalogue(
    unsettled: (marketHash: string) => boolean,
    among?: readonly string[],
  ): Promise<{ marketHash: string; outcome: Outcome; at: number; teamOneScore?: number; teamTwoScore?: number }[]> {
    const { rows } = await this.db.query<{ market_hash: string; outcome: number; reported_at: string; team_one_score: number | null; team_two_score: number | null }>(
      among
        ? 'SELECT * FROM rm_market_reports WHERE market_hash = ANY($1::text[]) ORDER BY reported_at, market_hash'
        : 'SELECT * FROM rm_market_reports ORDER BY reported_at, market_hash',
      among ? [among] : [],
    );
    return rows.filter((r) => unsettled(r.market_hash)).map((r) => ({
      marketHash: r.market_hash,
      outcome: r.outcome as Outcome,
      at: int(r.reported_at),
      ...(r.team_one_score !== null && r.team_two_score !== null ? { teamOneScore: r.team_one_score, teamTwoScore: r.team_two_score } : {}),
    }));
  }

  /** Settled positions an on-chain escrow has not reported paying yet, per market (markets and bettors in byte order). */
  async positionsUnpaidOnChain(): Promise<{ marketHash: string; outcome: Outcome; bettors: string[] }[]> {
    const { rows } = await this.db.query<{ market_hash: string; bettor: string; outcome: number }>(
      `SELECT DISTINCT t.market_hash, t.bettor, r.outcome FROM rm_trades t JOIN rm_market_reports r ON r.market_hash = t.market_hash
       WHERE t.settled AND t.settle_tx_hash IS NULL ORDER BY t.market_hash, t.bettor`,
    );
    const byMarket = new Map<string, { marketHash: string; outcome: Outcome; bettors: string[] }>();
    for (const r of rows) {
      const m = byMarket.get(r.market_hash) ?? { marketHash: r.market_hash, outcome: r.outcome as Outcome, bettors: [] };
      m.bettors.push(r.bettor);
      byMarket.set(r.market_hash, m);
    }
    return [...byMarket.values()];
  }
}
