// SQL read models of the trading side, projected from the engine's change records by the projector (projector.ts),
// in one transaction per batch with its checkpoint: orders, fills, trades, refunds, balances, fees, matched volume,
// and through their own modules consolidated entries, price history, the funds statement and positions. The trade,
// fill and settlement queries are here; orders and refunds are read through order-reads.ts and refund-reads.ts. Every
// query answers through indexes, so its cost follows the page asked for, not the history.
import type { Statement } from 'better-sqlite3';
import type { Db } from './db.js';
import type { ListedTrades, ReadModelQueries, TradeFilter } from '../ports.js';
import type { FillOnChain } from '../fill-on-chain.js';
import type { Change, RefundPaid } from '../../engine/changes.js';
import type { Outcome, Trade } from '../../engine/types.js';
import { ConsolidatedEntries } from './consolidated-entries.js';
import { FundsStatement } from './funds-statement.js';
import { PositionsReader } from './positions.js';
import { StatementCache } from './statement-cache.js';
import { CountDeltas } from './count-deltas.js';
import { PriceHistory } from './price-history.js';
import { settleTrades } from '../../engine/settlement-credit.js';
import { OrderReads } from './order-reads.js';
import { BalanceRecords } from './balance-records.js';
import { RestrictionRecords } from './restriction-records.js';
import { FeeRevenueReads } from './fee-revenue.js';
import { RefundReads, refundOf, type RefundRow } from './refund-reads.js';
import { fillOnChainOf, type FillChainRow } from './trade-rows.js';
import { LISTED_TRADE_COLUMNS, LISTED_TRADES_FROM, T_TRADE_VERSION, TRADE_COLUMNS, TRADE_ROW_LENGTH, tradeOf, type ListedExtras, type ListedTradeRow, type TradeRow } from './trade-rows.js';

interface ExecutedTradeRow {
  market: string;
  stake: string;
  bettor: string;
  settled: 0 | 1;
  maker: 0 | 1;
  base_token: string;
  affiliate: string;
}

/** A confirmed, unsettled trade as settling a position reads it. */
interface OpenPositionRow {
  id: number;
  fill_hash: string;
  bettor: string;
  stake: string;
  counter_stake: string;
  outcome_one: number;
}

/** Filters that rm_trade_counts keeps a bettor's totals by (its columns have the trade columns' names). */
const COUNTED_TRADE_FILTERS = new Set<keyof TradeFilter>(['bettor', 'settled', 'baseToken', 'maker', 'affiliate', 'tradeStatus']);

/**
 * The total under these filters is a sum of rm_trade_counts rows (a bettor's few, or at most one per counted
 * combination for everyone): never more rows than counting the trades themselves.
 */
const isCounted = (f: TradeFilter): boolean =>
  (Object.keys(f) as (keyof TradeFilter)[]).every((k) => f[k] === undefined || COUNTED_TRADE_FILTERS.has(k));

export class TradingReadModels implements ReadModelQueries {
  private readonly s: Record<string, Statement>;
  /** Matched volume per market: one small row per market, kept in memory for /markets/popular (committed totals). */
  private readonly volume = new Map<string, bigint>();
  /** Set when another connection changed the totals: read again on the next ask. */
  private volumeStale = false;
  /** Totals the transaction under way wrote: they join `volume` only if it commits (see `transactionEnded`). */
  private readonly stagedVolume = new Map<string, bigint>();
  readonly orders: OrderReads;
  readonly refunds: RefundReads;
  /** Consolidated entries with their sort values (GET /trades/consolidated). */
  readonly entries: ConsolidatedEntries;
  /** Candles of traded odds per market (GET /markets/:marketHash/history). */
  readonly history: PriceHistory;
  /** The listing totals the transaction under way changes by recording trades and their fills' outcomes. */
  private readonly tradeCounts: CountDeltas;
  /** Every movement of each wallet's balance (GET /account/statement), projected by the store with each command's time. */
  readonly statement: FundsStatement;
  /** Each bettor's positions per market (GET /positions). */
  readonly positions: PositionsReader;
  /** Statements of GET /trades, whose SQL follows the filters sent. */
  private readonly filtered: StatementCache;
  /** Each address's last balance record (GET /balances/:address). */
  readonly balances: BalanceRecords;
  /** Each account's shortfalls and restriction (the operator's account view). */
  readonly restrictions: RestrictionRecords;
  /** Fee revenue per day and market (GET /admin/fees). */
  readonly fees: FeeRevenueReads;

  constructor(private readonly db: Db) {
    const p = (sql: string) => db.prepare(sql);
    const trades = (where: string) => db.prepare(`SELECT ${TRADE_COLUMNS} FROM rm_trades ${where}`).raw();
    this.s = {
      insertOrder: p(`INSERT INTO rm_orders VALUES (@order_hash, @market_hash, @exchange_event_id, @maker, @base_token, @executor,
        @total_bet_size, @percentage_odds, @fill_amount, @pending_fill_amount, @expiry, @api_expiry, @salt, @maker_outcome_one,
        @signature, @status, @seq, @created_at, @updated_at, @persistence, NULL)`),
      updateOrder: p('UPDATE rm_orders SET fill_amount = ?, pending_fill_amount = ?, status = ?, updated_at = ?, cancel_reason = ? WHERE order_hash = ?'),
      insertFill: p(`INSERT INTO rm_fills (fill_hash, fill_salt, taker, market_hash, total_taker_stake, status, accepted_at)
        VALUES (?, ?, ?, ?, ?, ?, ?)`),
      updateFill: p('UPDATE rm_fills SET status = ?, tx_hash = ?, failure_reason = ? WHERE fill_hash = ?'),
      // A fill's trades take its status together: one statement per fill, returning what matched volume and the
      // listing totals count. Trades are recorded PENDING and a fill is executed once, so each row was PENDING.
      // Every UPDATE of rm_trades increments its rev (T_TRADE_VERSION), and so does a change of a trade's fill record.
      fillTradesStatus: p(`UPDATE rm_trades SET status = ?, updated_at = ?, rev = rev + 1 WHERE fill_hash = ? AND status = 'PENDING'
        RETURNING COALESCE(parent_market_hash, market_hash) AS market, stake, bettor, settled, maker, base_token, affiliate`),
      fillAttempted: p(`UPDATE rm_fills SET attempts = json_insert(COALESCE(attempts, '[]'), '$[#]', ?), last_attempt_at = ?
        WHERE fill_hash = ?`),
      fillTradesRevised: p('UPDATE rm_trades SET rev = rev + 1 WHERE fill_hash = ?'),
      fillOnChain: p('SELECT fill_hash, attempts, last_attempt_at, tx_hash, failure_reason, cash_out_amount, cash_out_fee FROM rm_fills WHERE fill_hash = ?'),
      fillsOnChain: p(`SELECT fill_hash, attempts, last_attempt_at, tx_hash, failure_reason, cash_out_amount, cash_out_fee FROM rm_fills
        WHERE fill_hash IN (SELECT value FROM json_each(?))`),
      insertTrade: p(`INSERT INTO rm_trades VALUES (@id, @fill_hash, @order_hash, @market_hash, @parent_market_hash, @exchange_event_id,
        @base_token, @bettor, @counterparty, @maker, @outcome_one, @stake, @counter_stake, @odds, @status, @bet_time, @updated_at,
        @affiliate, 0, NULL, NULL, NULL, NULL, NULL, 0, NULL)`),
      settleTrade: p(
        'UPDATE rm_trades SET settled = 1, outcome = ?, payout = ?, credit = ?, fee = ?, settle_date = ?, updated_at = ?, rev = rev + 1 WHERE id = ?',
      ),
      insertFee: p(`INSERT INTO rm_fees (market_hash, bettor, fee, fee_account, affiliate, affiliate_fee, charged_at)
        VALUES (?, ?, ?, ?, ?, ?, ?)`),
      insertCashOut: p('INSERT INTO rm_cashouts VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)'),
      fillCashOut: p('UPDATE rm_fills SET cash_out_amount = ?, cash_out_fee = ? WHERE fill_hash = ?'),
      positionPaid: p(`UPDATE rm_trades SET settle_tx_hash = ?, updated_at = ?, rev = rev + 1
        WHERE market_hash = ? AND bettor = ? AND settled = 1 AND settle_tx_hash IS NULL`),
      // A market's confirmed, unsettled trades: the positions a report settles (read once per market and command).
      openPositionTrades: p(`SELECT id, fill_hash, bettor, stake, counter_stake, outcome_one FROM rm_trades
        WHERE market_hash = ? AND status = 'SUCCESS' AND settled = 0 ORDER BY id`),
      tradesSettledIn: p('SELECT id FROM rm_trades WHERE market_hash = ? AND settled = 1 AND settle_date = ? ORDER BY id'),
      tradesPaidIn: p('SELECT id FROM rm_trades WHERE market_hash = ? AND bettor = ? AND settle_tx_hash = ? ORDER BY id'),
      unpaidPositions: p(`SELECT DISTINCT t.market_hash, t.bettor, r.outcome FROM rm_trades t
        JOIN rm_market_reports r ON r.market_hash = t.market_hash WHERE t.settled = 1 AND t.settle_tx_hash IS NULL`),
      insertRefund: p(`INSERT INTO rm_refunds (id, market_hash, base_token, bettor, maker, fill_hash, amount, created_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
      refundPaidOnChain: p('UPDATE rm_refunds SET chain_tx_hash = ? WHERE id = ?'),
      putVolume: p('INSERT INTO rm_volume (market_hash, volume) VALUES (?, ?) ON CONFLICT(market_hash) DO UPDATE SET volume = excluded.volume'),
      position: p('SELECT journal_seq AS seq FROM rm_position WHERE id = 1'),
      setPosition: p('UPDATE rm_position SET journal_seq = ? WHERE id = 1'),
      tradeById: trades('WHERE id = ?'),
      tradesOfFill: trades('WHERE fill_hash = ? ORDER BY id'),
      listedTrades: p(`SELECT ${LISTED_TRADE_COLUMNS} FROM ${LISTED_TRADES_FROM}
        WHERE t.id IN (SELECT value FROM json_each(?))`).raw(),
      tradesOfOrders: p(`SELECT ${LISTED_TRADE_COLUMNS} FROM ${LISTED_TRADES_FROM}
        WHERE t.order_hash IN (SELECT value FROM json_each(?)) ORDER BY t.id`).raw(),
      tradesOfBettor: trades('WHERE bettor = ? ORDER BY id'),
      tradesOfBettorIn: trades('WHERE bettor = ? AND market_hash = ? ORDER BY id'),
      allTrades: trades('ORDER BY id'),
      // Whole fills (all their trades of the bettor) in which the bettor still has an unsettled or a settled trade.
      tradesOfBettorFills: trades(`WHERE bettor = ? AND fill_hash IN
        (SELECT fill_hash FROM rm_trades WHERE bettor = ? AND settled = ?) ORDER BY id`),
      // Of these [bettor, market] pairs, those with a refund (one index probe per pair).
      putRefundTotal: p(`INSERT INTO rm_refund_totals (bettor, market_hash, base_token, total) VALUES (?, ?, ?, ?)
        ON CONFLICT(bettor, market_hash, base_token) DO UPDATE SET total = excluded.total`),
      insertReport: p('INSERT INTO rm_market_reports VALUES (?, ?, ?, ?, ?)'),
      // The read models have their own database: the catalogue's statuses are asked of the catalogue.
      reports: p('SELECT * FROM rm_market_reports ORDER BY reported_at, market_hash'),
      reportsAmong: p('SELECT * FROM rm_market_reports WHERE market_hash IN (SELECT value FROM json_each(?)) ORDER BY reported_at, market_hash'),
      fillSaltUsed: p('SELECT 1 FROM rm_fills WHERE fill_salt = ? OR fill_hash = ? LIMIT 1'),
    };
    this.filtered = new StatementCache(db);
    this.orders = new OrderReads(db);
    this.balances = new BalanceRecords(db);
    this.restrictions = new RestrictionRecords(db);
    this.fees = new FeeRevenueReads(db);
    this.refunds = new RefundReads(db);
    this.tradeCounts = new CountDeltas(db, 'rm_trade_counts', 6);
    this.entries = new ConsolidatedEntries(db, (fillHash) => this.tradesOfFill(fillHash));
    this.statement = new FundsStatement(db);
    this.positions = new PositionsReader(db);
    this.entries.rebuildIfEmpty();
    this.history = new PriceHistory(db);
    this.loadVolume();
    this.fillRefundTotals();
  }

  /** A data dir from before the totals table: sum its refunds once (in bigint: SQL integers could overflow). */
  private fillRefundTotals(): void {
    const hasTotals = this.db.prepare('SELECT 1 FROM rm_refund_totals LIMIT 1').get() !== undefined;
    const hasRefunds = this.db.prepare('SELECT 1 FROM rm_refunds LIMIT 1').get() !== undefined;
    if (hasTotals || !hasRefunds) return;
    // In chunks: a connection cannot write while it iterates, and the whole table need not sit in memory at once.
    const chunk = this.db.prepare('SELECT * FROM rm_refunds WHERE id > ? ORDER BY id LIMIT 10000');
    this.db.transaction(() => {
      for (let rows = chunk.all(0) as RefundRow[]; rows.length > 0; rows = chunk.all(rows.at(-1)!.id) as RefundRow[]) {
        for (const r of rows) this.addRefund(refundOf(r));
      }
    })();
  }

  private addRefund(r: RefundPaid): void {
    const total = this.refunds.refundTotal(r.bettor, r.marketHash, r.baseToken) + r.amount;
    this.s.putRefundTotal!.run(r.bettor, r.marketHash, r.baseToken, total.toString());
  }

  /** The last journal seq whose changes are in the read models. */
  position(): number {
    return (this.s.position!.get() as { seq: number }).seq;
  }

  setPosition(seq: number): void {
    this.s.setPosition!.run(seq);
  }

  /** Projects change records. The caller runs this inside the transaction that appends their commands. */
  apply(changes: readonly Change[]): void {
    this.applyGroup([changes]);
  }

  /**
   * Projects the change records of several commands, in order, inside one transaction: the listing totals and the
   * candles they change are written once for all of them, at the end.
   */
  applyGroup(commands: readonly (readonly Change[])[]): void {
    for (const changes of commands) this.applyCommand(changes);
    this.balances.write();
    this.restrictions.write();
    this.tradeCounts.write();
    this.entries.writeCounts();
    this.history.write();
  }

  private applyCommand(changes: readonly Change[]): void {
    const s = this.s;
    /** Per market this command settles: its open positions' trades by bettor, and the fills they belong to. */
    let settling: Map<string, Map<string, OpenPositionRow[]>> | undefined;
    let settledFills: Set<string> | undefined;
    this.history.beginCommand(changes);
    for (const c of changes) {
      switch (c.type) {
        case 'orderAdded': {
          const o = c.order;
          s.insertOrder!.run({
            order_hash: o.orderHash,
            market_hash: o.marketHash,
            exchange_event_id: o.exchangeEventId,
            maker: o.maker,
            base_token: o.baseToken,
            executor: o.executor,
            total_bet_size: o.totalBetSize.toString(),
            percentage_odds: o.percentageOdds.toString(),
            fill_amount: c.state.fillAmount.toString(),
            pending_fill_amount: c.state.pendingFillAmount.toString(),
            expiry: o.expiry,
            api_expiry: o.apiExpiry,
            salt: o.salt,
            maker_outcome_one: o.isMakerBettingOutcomeOne ? 1 : 0,
            signature: o.signature,
            status: c.state.status,
            seq: o.seq,
            created_at: o.createdAt,
            updated_at: c.state.updatedAt,
            persistence: o.persistence,
          });
          break;
        }
        case 'orderChanged':
          s.updateOrder!.run(c.state.fillAmount.toString(), c.state.pendingFillAmount.toString(), c.state.status, c.state.updatedAt, c.state.cancelReason ?? null, c.orderHash);
          break;
        case 'fillAccepted':
          s.insertFill!.run(c.fillHash, c.fillSalt, c.taker, c.marketHash, c.totalTakerStake.toString(), 'PENDING', c.acceptedAt);
          break;
        case 'fillExecuted': {
          s.updateFill!.run(c.status, c.txHash ?? null, c.failureReason ?? null, c.fillHash);
          const traded = s.fillTradesStatus!.all(c.status, c.at, c.fillHash) as ExecutedTradeRow[];
          for (const t of traded) {
            this.tradeCounts.add([t.bettor, t.settled, 'PENDING', t.maker, t.base_token, t.affiliate], -1);
            this.tradeCounts.add([t.bettor, t.settled, c.status, t.maker, t.base_token, t.affiliate], 1);
          }
          if (c.status === 'SUCCESS') this.countVolume(traded);
          break;
        }
        case 'fillAttempted':
          s.fillAttempted!.run(c.txHash, c.at, c.fillHash);
          s.fillTradesRevised!.run(c.fillHash);
          break;
        case 'tradeRecorded': {
          const t = c.trade;
          s.insertTrade!.run({
            id: Number(t.id),
            fill_hash: t.fillHash,
            order_hash: t.orderHash,
            market_hash: t.marketHash,
            parent_market_hash: t.quarterLineParentMarketHash ?? null,
            exchange_event_id: t.exchangeEventId,
            base_token: t.baseToken,
            bettor: t.bettor,
            counterparty: t.counterparty,
            maker: t.maker ? 1 : 0,
            outcome_one: t.bettingOutcomeOne ? 1 : 0,
            stake: t.stake.toString(),
            counter_stake: t.counterStake.toString(),
            odds: t.odds.toString(),
            status: 'PENDING',
            bet_time: t.betTime,
            updated_at: t.betTime,
            affiliate: t.affiliate,
          });
          this.tradeCounts.add([t.bettor, 0, 'PENDING', t.maker ? 1 : 0, t.baseToken, t.affiliate], 1);
          break;
        }
        case 'tradeStatusChanged':
          // Written with its fill's fillExecuted, which precedes it.
          break;
        case 'tradeSettled':
          s.settleTrade!.run(c.outcome, c.payout.toString(), c.credit.toString(), c.fee.toString(), c.settleDate, c.settleDate, Number(c.tradeId));
          break;
        case 'positionSettled': {
          settling ??= new Map();
          let byBettor = settling.get(c.marketHash);
          if (!byBettor) settling.set(c.marketHash, (byBettor = this.openPositionsIn(c.marketHash)));
          const rows = byBettor.get(c.bettor) ?? [];
          const trades = rows.map((r) => ({ stake: BigInt(r.stake), counterStake: BigInt(r.counter_stake), bettingOutcomeOne: r.outcome_one === 1 }));
          const split = settleTrades(trades, c.outcome, c.payout - c.credit - c.fee, c.fee);
          const payout = split.reduce((sum, t) => sum + t.payout, 0n);
          // The engine's sums and the recorded trades must agree to the wei, or the split would record a fiction.
          if (payout !== c.payout) throw new Error(`settling ${c.bettor} in ${c.marketHash}: recorded trades pay ${payout}, the engine ${c.payout}`);
          rows.forEach((r, i) => {
            const t = split[i]!;
            s.settleTrade!.run(c.outcome, t.payout.toString(), t.credit.toString(), t.fee.toString(), c.settleDate, c.settleDate, r.id);
            (settledFills ??= new Set()).add(r.fill_hash);
          });
          byBettor.delete(c.bettor);
          break;
        }
        case 'positionPaidOnChain':
          s.positionPaid!.run(c.txHash, c.at, c.marketHash, c.bettor);
          break;
        case 'refundPaidOnChain':
          s.refundPaidOnChain!.run(c.txHash, c.refundId);
          break;
        case 'refundPaid': {
          const r = c.refund;
          s.insertRefund!.run(r.id, r.marketHash, r.baseToken, r.bettor, r.maker ? 1 : 0, r.fillOrderHash, r.amount.toString(), r.createdAt);
          this.addRefund(r);
          break;
        }
        case 'feeCharged':
          s.insertFee!.run(c.marketHash, c.bettor, c.fee.toString(), c.feeAccount, c.affiliate, c.affiliateFee.toString(), c.at);
          break;
        case 'cashedOut':
          s.insertCashOut!.run(c.fillHash, c.marketHash, c.bettor, c.hedgeStake.toString(), c.value.toString(), c.amount.toString(), c.fee.toString(), c.affiliateFee.toString(), c.at);
          s.fillCashOut!.run(c.amount.toString(), c.fee.toString(), c.fillHash);
          s.fillTradesRevised!.run(c.fillHash);
          // The cash-out fee is revenue as settlement's fees are (GET /admin/fees).
          if (c.fee > 0n) s.insertFee!.run(c.marketHash, c.bettor, c.fee.toString(), c.feeAccount, c.affiliate, c.affiliateFee.toString(), c.at);
          break;
        case 'marketReported':
          s.insertReport!.run(c.marketHash, c.outcome, c.at, c.teamOneScore ?? null, c.teamTwoScore ?? null);
          break;
        case 'balanceChanged':
          this.balances.stage(c);
          break;
        case 'restrictionChanged':
          this.restrictions.stage(c);
          break;
        default:
          // Heartbeats are live engine state, read from the engine.
          break;
      }
    }
    this.entries.apply(changes, settledFills);
    this.history.apply(changes);
  }

  private openPositionsIn(marketHash: string): Map<string, OpenPositionRow[]> {
    const byBettor = new Map<string, OpenPositionRow[]>();
    for (const r of this.s.openPositionTrades!.iterate(marketHash) as Iterable<OpenPositionRow>) {
      const rows = byBettor.get(r.bettor);
      if (rows) rows.push(r);
      else byBettor.set(r.bettor, [r]);
    }
    return byBettor;
  }

  /** Ids of the trades a report settled in a market at `settleDate` (what its positionSettled changes touched). */
  tradesSettledIn(marketHash: string, settleDate: number): string[] {
    return (this.s.tradesSettledIn!.all(marketHash, settleDate) as { id: number }[]).map((r) => String(r.id));
  }

  private countVolume(rows: readonly { market: string; stake: string }[]): void {
    if (rows.length === 0) return;
    const market = rows[0]!.market;
    const next = rows.reduce((sum, r) => sum + BigInt(r.stake), this.stagedVolume.get(market) ?? this.volume.get(market) ?? 0n);
    this.s.putVolume!.run(market, next.toString());
    this.stagedVolume.set(market, next);
  }

  /**
   * The transaction that ran `apply` ended: what it staged in memory is kept if it committed and forgotten if it
   * rolled back, so memory never counts what the disk does not hold (a retried group would count it twice).
   */
  transactionEnded(committed: boolean): void {
    if (committed) for (const [market, volume] of this.stagedVolume) this.volume.set(market, volume);
    this.stagedVolume.clear();
    this.statement.transactionEnded(committed);
    this.tradeCounts.discard();
    this.entries.discardCounts();
    this.history.transactionEnded(committed);
  }

  // ---- queries --------------------------------------------------------------------------------

  matchedVolume(): ReadonlyMap<string, bigint> {
    if (this.volumeStale) {
      this.volumeStale = false;
      this.loadVolume();
    }
    return this.volume;
  }

  /** Another connection (the projector's thread) wrote the read models: what memory holds of them is read again. */
  changedElsewhere(): void {
    this.volumeStale = true;
  }

  private loadVolume(): void {
    this.volume.clear();
    for (const row of this.db.prepare('SELECT market_hash, volume FROM rm_volume').iterate() as Iterable<{ market_hash: string; volume: string }>) {
      this.volume.set(row.market_hash, BigInt(row.volume));
    }
  }

  /** The transactions that carried a fill on chain; undefined for an unknown fill. */
  fillOnChain(fillHash: string): FillOnChain | undefined {
    const row = this.s.fillOnChain!.get(fillHash) as FillChainRow | undefined;
    return row && fillOnChainOf(row);
  }

  /**
   * `fillOnChain` for a page: the fills of these hashes read in one query, not one per trade. Hashes outside the
   * page are still answered, one at a time.
   */
  fillsOnChain(fillHashes: readonly string[]): (fillHash: string) => FillOnChain | undefined {
    const asked = new Set(fillHashes);
    const found = new Map<string, FillOnChain>();
    for (const row of this.s.fillsOnChain!.all(JSON.stringify([...asked])) as FillChainRow[]) found.set(row.fill_hash, fillOnChainOf(row));
    return (fillHash) => (asked.has(fillHash) ? found.get(fillHash) : this.fillOnChain(fillHash));
  }


  trade(id: string): Trade | undefined {
    const row = this.s.tradeById!.get(Number(id)) as TradeRow | undefined;
    return row && tradeOf(row);
  }

  tradesOfFill(fillHash: string): Trade[] {
    return (this.s.tradesOfFill!.all(fillHash) as TradeRow[]).map(tradeOf);
  }

  /** Trades of the given orders, oldest first, read in one query. */
  tradesOfOrders(orderHashes: readonly string[]): ListedTrades {
    return this.listed(this.s.tradesOfOrders!.all(JSON.stringify(orderHashes)) as ListedTradeRow[]);
  }

  /** The trades of listed rows, with their rows' refund flags and fill records (others are read one at a time). */
  private listed(rows: readonly ListedTradeRow[]): ListedTrades {
    const trades: Trade[] = [];
    const versions: number[] = [];
    const refunded = new Map<string, boolean>();
    const fills = new Map<string, FillOnChain | undefined>();
    for (const row of rows) {
      const t = tradeOf(row);
      trades.push(t);
      const [hasRefunds, fillRecorded, attempts, lastAttemptAt, txHash, failureReason, version, cashOutAmount, cashOutFee] = row.slice(TRADE_ROW_LENGTH) as ListedExtras;
      versions.push(version);
      refunded.set(`${t.marketHash}|${t.bettor}`, hasRefunds === 1);
      const fill =
        fillRecorded === 1
          ? { fill_hash: t.fillHash, attempts, last_attempt_at: lastAttemptAt, tx_hash: txHash, failure_reason: failureReason, cash_out_amount: cashOutAmount, cash_out_fee: cashOutFee }
          : undefined;
      fills.set(t.fillHash, fill && fillOnChainOf(fill));
    }
    return {
      trades,
      versions,
      hasRefunds: (marketHash, bettor) => refunded.get(`${marketHash}|${bettor}`) ?? this.refunds.hasRefunds(marketHash, bettor),
      fillOnChain: (fillHash) => (fills.has(fillHash) ? fills.get(fillHash) : this.fillOnChain(fillHash)),
    };
  }

  /**
   * Trades of one bettor (or everyone's), oldest first. With `inFillsWith`, only the bettor's fills holding at least
   * one trade in that settlement state (all of those fills' trades of the bettor, so groups stay whole).
   */
  tradesOf(bettor?: string, inFillsWith?: { settled: boolean }): Trade[] {
    let rows: TradeRow[];
    if (bettor === undefined) rows = this.s.allTrades!.all() as TradeRow[];
    else if (inFillsWith) rows = this.s.tradesOfBettorFills!.all(bettor, bettor, inFillsWith.settled ? 1 : 0) as TradeRow[];
    else rows = this.s.tradesOfBettor!.all(bettor) as TradeRow[];
    return rows.map(tradeOf);
  }

  /** A bettor's trades on one market (a leg market for quarter-line bets), oldest first. */
  tradesOfBettorIn(bettor: string, marketHash: string): Trade[] {
    return (this.s.tradesOfBettorIn!.all(bettor, marketHash) as TradeRow[]).map(tradeOf);
  }

  /** One page of GET /trades (newest first, below the cursor id) with the count of every match: tradeVersionsPage, then the page's trades. */
  tradesPage(f: TradeFilter, belowId: number, pageSize: number): ListedTrades & { count: number; more: boolean } {
    const { ids, count, more } = this.tradeVersionsPage(f, belowId, pageSize);
    return { ...this.listedTrades(ids), count, more };
  }

  /**
   * The trades under the filters below `belowId`, newest first, as their ids and versions (T_TRADE_VERSION), with
   * the total, whether more follow and each trade's refund flag (its bettor refunded in its market): what a listing
   * that keeps rendered trades needs to tell which it must read, and whether a kept one's flag still holds.
   */
  tradeVersionsPage(f: TradeFilter, belowId: number, pageSize: number): { ids: number[]; versions: number[]; count: number; more: boolean; refunded: boolean[] } {
    const where: string[] = [];
    const args: (string | number)[] = [];
    const add = (clause: string, ...values: (string | number)[]) => {
      where.push(clause);
      args.push(...values);
    };
    if (f.startMs !== undefined) add('t.bet_time >= ?', f.startMs);
    if (f.endMs !== undefined) add('t.bet_time < ?', f.endMs);
    if (f.bettor !== undefined) add('t.bettor = ?', f.bettor);
    if (f.settled !== undefined) add('t.settled = ?', f.settled ? 1 : 0);
    if (f.marketHashes !== undefined) {
      const marks = f.marketHashes.map(() => '?').join(', ');
      add(`(t.market_hash IN (${marks}) OR t.parent_market_hash IN (${marks}))`, ...f.marketHashes, ...f.marketHashes);
    }
    if (f.baseToken !== undefined) add('t.base_token = ?', f.baseToken);
    if (f.maker !== undefined) add('t.maker = ?', f.maker ? 1 : 0);
    if (f.affiliate !== undefined) add('t.affiliate = ?', f.affiliate);
    if (f.tradeStatus !== undefined) add('t.status = ?', f.tradeStatus);
    if (f.exchangeEventId !== undefined) add('t.exchange_event_id = ?', f.exchangeEventId);
    const clause = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
    const count = isCounted(f)
      ? (this.filtered.get(`SELECT COALESCE(SUM(n), 0) FROM rm_trade_counts t ${clause}`).pluck().get(...args) as number)
      : (this.filtered.get(`SELECT COUNT(*) FROM rm_trades t ${clause}`).pluck().get(...args) as number);
    const pageWhere = where.length > 0 ? `${clause} AND t.id < ?` : 'WHERE t.id < ?';
    // The refund flag of each row is one probe of rm_refunds_by_bettor, cheaper than a second statement for the page.
    const rows = this.filtered
      .get(
        `SELECT t.id, ${T_TRADE_VERSION}, EXISTS (SELECT 1 FROM rm_refunds r WHERE r.bettor = t.bettor AND r.market_hash = t.market_hash)
         FROM rm_trades t ${pageWhere} ORDER BY t.id DESC LIMIT ?`,
      )
      .raw()
      .all(...args, Number.isFinite(belowId) ? belowId : Number.MAX_SAFE_INTEGER, pageSize + 1) as [number, number, number][];
    const page = rows.slice(0, pageSize);
    return { ids: page.map((r) => r[0]), versions: page.map((r) => r[1]), count, more: rows.length > pageSize, refunded: page.map((r) => r[2] === 1) };
  }

  /** These trades (ids that are not trades are left out), in the order given, with what rendering them reads. */
  listedTrades(ids: readonly number[]): ListedTrades {
    const rows = this.s.listedTrades!.all(JSON.stringify(ids)) as ListedTradeRow[];
    const position = new Map(ids.map((id, i) => [id, i]));
    rows.sort((a, b) => position.get(a[0])! - position.get(b[0])!);
    return this.listed(rows);
  }

  /** A fill with this salt or hash was accepted before. */
  fillUsed(fillSalt: string, fillHash: string): boolean {
    return this.s.fillSaltUsed!.get(fillSalt, fillHash) !== undefined;
  }

  /**
   * Market results the engine journaled that the catalogue does not show as SETTLED (`unsettled`), oldest first. The
   * catalogue's status is written in the journal's transaction, so this is empty except in a data dir written before
   * that. Read once at start.
   */
  reportsBehindCatalogue(
    unsettled: (marketHash: string) => boolean,
    among?: readonly string[],
  ): { marketHash: string; outcome: Outcome; at: number; teamOneScore?: number; teamTwoScore?: number }[] {
    // With `among` (the catalogue's unsettled markets), only their reports are read, not every report.
    const rows = (among ? this.s.reportsAmong!.all(JSON.stringify(among)) : this.s.reports!.all()) as { market_hash: string; outcome: number; reported_at: number; team_one_score: number | null; team_two_score: number | null }[];
    return rows.filter((r) => unsettled(r.market_hash)).map((r) => ({
      marketHash: r.market_hash,
      outcome: r.outcome as Outcome,
      at: r.reported_at,
      ...(r.team_one_score !== null && r.team_two_score !== null ? { teamOneScore: r.team_one_score, teamTwoScore: r.team_two_score } : {}),
    }));
  }

  /** Settled positions an on-chain escrow has not reported paying yet, per market (handed again at start). */
  positionsUnpaidOnChain(): { marketHash: string; outcome: Outcome; bettors: string[] }[] {
    const rows = this.s.unpaidPositions!.all() as { market_hash: string; bettor: string; outcome: number }[];
    const byMarket = new Map<string, { marketHash: string; outcome: Outcome; bettors: string[] }>();
    for (const r of rows) {
      const m = byMarket.get(r.market_hash) ?? { marketHash: r.market_hash, outcome: r.outcome as Outcome, bettors: [] };
      m.bettors.push(r.bettor);
      byMarket.set(r.market_hash, m);
    }
    return [...byMarket.values()];
  }

  /** Trade ids of a bettor in a market that an on-chain escrow paid in transaction `txHash`. */
  tradesPaidIn(marketHash: string, bettor: string, txHash: string): string[] {
    return (this.s.tradesPaidIn!.all(marketHash, bettor, txHash) as { id: number }[]).map((r) => String(r.id));
  }

}
