// SQL read models of the trading side: orders, fills, trades, refunds and matched volume, projected from the
// engine's change records. `apply` runs inside the journal's transaction (see trading-store.ts); the queries answer
// the read routes through indexes, so their cost follows the page asked for, not the history.
import type { Statement } from 'better-sqlite3';
import { getSetting, putSetting, type Db } from './db.js';
import type { FeeRevenue, ListedTrades, ReadModels, RefundQuery, TradeFilter } from '../ports.js';
import type { FillOnChain } from '../fill-on-chain.js';
import type { Change, RefundPaid } from '../../engine/changes.js';
import type { BalanceView, OrderCancelReason, OrderPersistence, OrderStatus, OrderView, Outcome, Trade } from '../../engine/types.js';
import { ConsolidatedEntries } from './consolidated-entries.js';
import { FundsStatement } from './funds-statement.js';
import { PositionsReader } from './positions.js';
import { StatementCache } from './statement-cache.js';
import { CountDeltas } from './count-deltas.js';
import { PriceHistory } from './price-history.js';
import { settleTrades } from '../../engine/settlement-credit.js';
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

interface OrderRow {
  order_hash: string;
  market_hash: string;
  exchange_event_id: string;
  maker: string;
  base_token: string;
  executor: string;
  total_bet_size: string;
  percentage_odds: string;
  fill_amount: string;
  pending_fill_amount: string;
  expiry: number;
  api_expiry: number;
  salt: string;
  maker_outcome_one: number;
  signature: string;
  status: string;
  seq: number;
  created_at: number;
  updated_at: number;
  persistence: string;
  cancel_reason: string | null;
}

interface RefundRow {
  id: number;
  market_hash: string;
  base_token: string;
  bettor: string;
  maker: number;
  fill_hash: string;
  amount: string;
  created_at: number;
}

interface FillChainRow {
  fill_hash: string;
  attempts: string | null;
  last_attempt_at: number | null;
  tx_hash: string | null;
  failure_reason: string | null;
  cash_out_amount: string | null;
  cash_out_fee: string | null;
}

const fillOnChainOf = (row: FillChainRow): FillOnChain => ({
  attempts: row.attempts === null ? [] : (JSON.parse(row.attempts) as string[]),
  ...(row.last_attempt_at !== null ? { lastAttemptAt: row.last_attempt_at } : {}),
  ...(row.tx_hash !== null ? { txHash: row.tx_hash } : {}),
  ...(row.failure_reason !== null ? { failureReason: row.failure_reason } : {}),
  ...(row.cash_out_amount !== null ? { cashOut: { amount: BigInt(row.cash_out_amount), fee: BigInt(row.cash_out_fee ?? '0') } } : {}),
});


const orderOf = (r: OrderRow): OrderView => ({
  orderHash: r.order_hash,
  marketHash: r.market_hash,
  exchangeEventId: r.exchange_event_id,
  maker: r.maker,
  baseToken: r.base_token,
  executor: r.executor,
  totalBetSize: BigInt(r.total_bet_size),
  percentageOdds: BigInt(r.percentage_odds),
  fillAmount: BigInt(r.fill_amount),
  pendingFillAmount: BigInt(r.pending_fill_amount),
  expiry: r.expiry,
  apiExpiry: r.api_expiry,
  salt: r.salt,
  isMakerBettingOutcomeOne: r.maker_outcome_one === 1,
  signature: r.signature,
  persistence: r.persistence as OrderPersistence,
  status: r.status as OrderStatus,
  ...(r.cancel_reason !== null ? { cancelReason: r.cancel_reason as OrderCancelReason } : {}),
  seq: r.seq,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const refundOf = (r: RefundRow): RefundPaid => ({
  id: r.id,
  marketHash: r.market_hash,
  baseToken: r.base_token,
  bettor: r.bettor,
  maker: r.maker === 1,
  fillOrderHash: r.fill_hash,
  amount: BigInt(r.amount),
  createdAt: r.created_at,
});



/** Filters that rm_trade_counts keeps a bettor's totals by (its columns have the trade columns' names). */
/** Set once the balances of read models projected before rm_balances existed were seeded from the engine. */
const BALANCES_SEEDED = 'balances.seeded';

const COUNTED_TRADE_FILTERS = new Set<keyof TradeFilter>(['bettor', 'settled', 'baseToken', 'maker', 'affiliate', 'tradeStatus']);

/**
 * The total under these filters is a sum of rm_trade_counts rows (a bettor's few, or at most one per counted
 * combination for everyone): never more rows than counting the trades themselves.
 */
const isCounted = (f: TradeFilter): boolean =>
  (Object.keys(f) as (keyof TradeFilter)[]).every((k) => f[k] === undefined || COUNTED_TRADE_FILTERS.has(k));


const MATCHING_REFUNDS = `WITH matching AS (SELECT * FROM rm_refunds WHERE bettor = @bettor
  AND (@market IS NULL OR market_hash = @market) AND (@token IS NULL OR base_token = @token COLLATE NOCASE)
  AND (@fill IS NULL OR fill_hash = @fill) AND (@maker IS NULL OR maker = @maker))`;

/** The events of one page of refund groups (per market and token), groups ordered by their latest event. */
const refundGroupsSql = (dir: 'ASC' | 'DESC') => `${MATCHING_REFUNDS},
  latest AS (SELECT market_hash, lower(base_token) AS token, created_at, id,
    ROW_NUMBER() OVER (PARTITION BY market_hash, lower(base_token) ORDER BY created_at DESC, id DESC) AS rn FROM matching),
  page AS (SELECT market_hash, token FROM latest WHERE rn = 1 ORDER BY created_at ${dir}, id ${dir} LIMIT @limit OFFSET @offset)
  SELECT matching.* FROM matching JOIN page ON matching.market_hash = page.market_hash AND lower(matching.base_token) = page.token`;

export class TradingReadModels implements ReadModels {
  private readonly s: Record<string, Statement>;
  /** Matched volume per market: one small row per market, kept in memory for /markets/popular (committed totals). */
  private readonly volume = new Map<string, bigint>();
  /** Set when another connection changed the totals: read again on the next ask. */
  private volumeStale = false;
  /** Totals the transaction under way wrote: they join `volume` only if it commits (see `transactionEnded`). */
  private readonly stagedVolume = new Map<string, bigint>();
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
  /** The last balance record of each address the group under way changed. */
  private readonly balances = new Map<string, BalanceView>();

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
      feesBetween: p('SELECT market_hash, fee, affiliate_fee, charged_at FROM rm_fees WHERE charged_at >= ? AND charged_at < ? ORDER BY id'),
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
      refundsUnpaidOnChain: p('SELECT * FROM rm_refunds WHERE chain_tx_hash IS NULL ORDER BY id'),
      putVolume: p('INSERT INTO rm_volume (market_hash, volume) VALUES (?, ?) ON CONFLICT(market_hash) DO UPDATE SET volume = excluded.volume'),
      position: p('SELECT journal_seq AS seq FROM rm_position WHERE id = 1'),
      setPosition: p('UPDATE rm_position SET journal_seq = ? WHERE id = 1'),
      putBalance: p(`INSERT INTO rm_balances VALUES (?, ?, ?, ?, ?) ON CONFLICT (address) DO UPDATE SET balance = excluded.balance,
        escrowed = excluded.escrowed, open_exposure = excluded.open_exposure, pending_taker_stake = excluded.pending_taker_stake`),
      balance: p('SELECT balance, escrowed, open_exposure, pending_taker_stake FROM rm_balances WHERE address = ?'),
      order: p('SELECT * FROM rm_orders WHERE order_hash = ?'),
      openOrdersOf: p("SELECT * FROM rm_orders WHERE maker = ? AND status IN ('ACTIVE', 'INACTIVE') ORDER BY seq"),
      openOrdersIn: p("SELECT * FROM rm_orders WHERE market_hash = ? AND status IN ('ACTIVE', 'INACTIVE') ORDER BY seq"),
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
      hasRefunds: p('SELECT 1 FROM rm_refunds WHERE bettor = ? AND market_hash = ? LIMIT 1'),
      // Of these [bettor, market] pairs, those with a refund (one index probe per pair).
      refundedPairs: p(`SELECT k.value ->> 0 AS bettor, k.value ->> 1 AS market FROM json_each(?) k
        WHERE EXISTS (SELECT 1 FROM rm_refunds r WHERE r.bettor = k.value ->> 0 AND r.market_hash = k.value ->> 1)`),
      refundBefore: p('SELECT 1 FROM rm_refunds WHERE bettor = ? AND market_hash = ? AND id < ? LIMIT 1'),
      refundTotal: p('SELECT total FROM rm_refund_totals WHERE bettor = ? AND market_hash = ? AND base_token = ?'),
      putRefundTotal: p(`INSERT INTO rm_refund_totals (bettor, market_hash, base_token, total) VALUES (?, ?, ?, ?)
        ON CONFLICT(bettor, market_hash, base_token) DO UPDATE SET total = excluded.total`),
      refundsOf: p('SELECT * FROM rm_refunds WHERE bettor = ? ORDER BY id'),
      refundGroupsAsc: p(refundGroupsSql('ASC')),
      refundGroupsDesc: p(refundGroupsSql('DESC')),
      refundGroupCount: p(`${MATCHING_REFUNDS} SELECT COUNT(*) AS n FROM (SELECT 1 FROM matching GROUP BY market_hash, lower(base_token))`),
      refundsOfIn: p('SELECT * FROM rm_refunds WHERE bettor = ? AND market_hash = ? ORDER BY id'),
      insertReport: p('INSERT INTO rm_market_reports VALUES (?, ?, ?, ?, ?)'),
      // The read models have their own database: the catalogue's statuses are asked of the catalogue.
      reports: p('SELECT * FROM rm_market_reports ORDER BY reported_at, market_hash'),
      fillSaltUsed: p('SELECT 1 FROM rm_fills WHERE fill_salt = ? OR fill_hash = ? LIMIT 1'),
    };
    this.filtered = new StatementCache(db);
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
    const total = this.refundTotal(r.bettor, r.marketHash, r.baseToken) + r.amount;
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
    this.writeBalances();
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
          // An address's balances change several times in a group: only the last record is written.
          this.balances.set(c.address, c);
          break;
        default:
          // Heartbeats and restrictions are live engine state, read from the engine.
          break;
      }
    }
    this.entries.apply(changes, settledFills);
    this.history.apply(changes);
  }

  private writeBalances(): void {
    for (const [address, b] of this.balances) this.putBalance(address, b);
    this.balances.clear();
  }

  private putBalance(address: string, b: BalanceView): void {
    this.s.putBalance!.run(address, b.balance.toString(), b.escrowed.toString(), b.openExposure.toString(), b.pendingTakerStake.toString());
  }

  balanceOf(address: string): BalanceView {
    const r = this.s.balance!.get(address) as { balance: string; escrowed: string; open_exposure: string; pending_taker_stake: string } | undefined;
    if (!r) return { balance: 0n, escrowed: 0n, openExposure: 0n, pendingTakerStake: 0n };
    return { balance: BigInt(r.balance), escrowed: BigInt(r.escrowed), openExposure: BigInt(r.open_exposure), pendingTakerStake: BigInt(r.pending_taker_stake) };
  }

  /**
   * Read models projected before balances were kept get every address's balances from the engine, once, while both
   * stand at the same journal position (start-up, after the read models caught up). Returns whether it seeded.
   */
  seedBalances(holders: () => Iterable<[string, BalanceView]>): boolean {
    if (getSetting(this.db, BALANCES_SEEDED)) return false;
    this.db.transaction(() => {
      if (this.position() > 0) for (const [address, b] of holders()) this.putBalance(address, b);
      putSetting(this.db, BALANCES_SEEDED, '1');
    })();
    return true;
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

  /** A maker's open orders (on the books: ACTIVE or INACTIVE), oldest first. */
  openOrdersOf(maker: string): OrderView[] {
    return (this.s.openOrdersOf!.all(maker) as OrderRow[]).map(orderOf);
  }

  /** A market's open orders, oldest first. */
  openOrdersIn(marketHash: string): OrderView[] {
    return (this.s.openOrdersIn!.all(marketHash) as OrderRow[]).map(orderOf);
  }

  order(orderHash: string): OrderView | undefined {
    const row = this.s.order!.get(orderHash) as OrderRow | undefined;
    return row && orderOf(row);
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

  /**
   * `hasRefunds` for a page: every (market, bettor) pair of these trades read in one query, not one per trade.
   * Pairs outside the page are still answered, one at a time.
   */
  refundsSeen(trades: readonly Trade[]): (marketHash: string, bettor: string) => boolean {
    const pairKey = (marketHash: string, bettor: string) => `${marketHash}|${bettor}`;
    const asked = new Map<string, [string, string]>();
    for (const t of trades) asked.set(pairKey(t.marketHash, t.bettor), [t.bettor, t.marketHash]);
    const found = new Set<string>();
    for (const row of this.s.refundedPairs!.all(JSON.stringify([...asked.values()])) as { bettor: string; market: string }[]) {
      found.add(pairKey(row.market, row.bettor));
    }
    return (marketHash, bettor) => {
      const key = pairKey(marketHash, bettor);
      return asked.has(key) ? found.has(key) : this.hasRefunds(marketHash, bettor);
    };
  }

  /**
   * Fees taken from `from` up to `to` (ms, end excluded), summed per UTC day and market in wei (summed here, in
   * bigint: SQLite's SUM would round past 2^63), by day then market hash.
   */
  feeRevenue(from: number, to: number): FeeRevenue[] {
    const byKey = new Map<string, FeeRevenue>();
    for (const r of this.s.feesBetween!.iterate(from, to) as Iterable<{ market_hash: string; fee: string; affiliate_fee: string; charged_at: number }>) {
      const day = new Date(r.charged_at).toISOString().slice(0, 10);
      const key = `${day}|${r.market_hash}`;
      let sum = byKey.get(key);
      if (!sum) byKey.set(key, (sum = { day, marketHash: r.market_hash, fees: 0n, affiliateFees: 0n, charges: 0 }));
      sum.fees += BigInt(r.fee);
      sum.affiliateFees += BigInt(r.affiliate_fee);
      sum.charges++;
    }
    return [...byKey.values()].sort((a, b) => (a.day !== b.day ? (a.day < b.day ? -1 : 1) : a.marketHash < b.marketHash ? -1 : a.marketHash > b.marketHash ? 1 : 0));
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
      hasRefunds: (marketHash, bettor) => refunded.get(`${marketHash}|${bettor}`) ?? this.hasRefunds(marketHash, bettor),
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
   * the total and whether more follow: what a listing that keeps rendered trades needs to tell which it must read.
   */
  tradeVersionsPage(f: TradeFilter, belowId: number, pageSize: number): { ids: number[]; versions: number[]; count: number; more: boolean } {
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
    const rows = this.filtered
      .get(`SELECT t.id, ${T_TRADE_VERSION} FROM rm_trades t ${pageWhere} ORDER BY t.id DESC LIMIT ?`)
      .raw()
      .all(...args, Number.isFinite(belowId) ? belowId : Number.MAX_SAFE_INTEGER, pageSize + 1) as [number, number][];
    const page = rows.slice(0, pageSize);
    return { ids: page.map((r) => r[0]), versions: page.map((r) => r[1]), count, more: rows.length > pageSize };
  }

  /** These trades (ids that are not trades are left out), in the order given, with what rendering them reads. */
  listedTrades(ids: readonly number[]): ListedTrades {
    const rows = this.s.listedTrades!.all(JSON.stringify(ids)) as ListedTradeRow[];
    const position = new Map(ids.map((id, i) => [id, i]));
    rows.sort((a, b) => position.get(a[0])! - position.get(b[0])!);
    return this.listed(rows);
  }

  /** Those of these order hashes that were ever posted. */
  postedOrders(orderHashes: readonly string[]): Set<string> {
    const found = new Set<string>();
    for (const h of orderHashes) if (this.s.order!.get(h) !== undefined) found.add(h);
    return found;
  }

  /** A fill with this salt or hash was accepted before. */
  fillUsed(fillSalt: string, fillHash: string): boolean {
    return this.s.fillSaltUsed!.get(fillSalt, fillHash) !== undefined;
  }

  /** The bettor received capital-efficiency refunds in this market. */
  hasRefunds(marketHash: string, bettor: string): boolean {
    return this.s.hasRefunds!.get(bettor, marketHash) !== undefined;
  }

  /** The bettor received a refund in this market before the one with this id (refund ids grow). */
  hasRefundBefore(marketHash: string, bettor: string, id: number): boolean {
    return this.s.refundBefore!.get(bettor, marketHash, id) !== undefined;
  }

  /** All refunds the bettor received in this market and token, in wei. */
  refundTotal(bettor: string, marketHash: string, baseToken: string): bigint {
    const row = this.s.refundTotal!.get(bettor, marketHash, baseToken) as { total: string } | undefined;
    return row ? BigInt(row.total) : 0n;
  }

  /**
   * Market results the engine journaled that the catalogue does not show as SETTLED (`unsettled`), oldest first. The
   * catalogue's status is written in the journal's transaction, so this is empty except in a data dir written before
   * that. Read once at start.
   */
  reportsBehindCatalogue(unsettled: (marketHash: string) => boolean): { marketHash: string; outcome: Outcome; at: number; teamOneScore?: number; teamTwoScore?: number }[] {
    const rows = this.s.reports!.all() as { market_hash: string; outcome: number; reported_at: number; team_one_score: number | null; team_two_score: number | null }[];
    return rows.filter((r) => unsettled(r.market_hash)).map((r) => ({
      marketHash: r.market_hash,
      outcome: r.outcome as Outcome,
      at: r.reported_at,
      ...(r.team_one_score !== null && r.team_two_score !== null ? { teamOneScore: r.team_one_score, teamTwoScore: r.team_two_score } : {}),
    }));
  }

  /** Refunds an on-chain escrow has not reported paying yet, oldest first (handed to the chain again at start). */
  refundsUnpaidOnChain(): RefundPaid[] {
    return (this.s.refundsUnpaidOnChain!.all() as RefundRow[]).map(refundOf);
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

  refundsOf(bettor: string): RefundPaid[] {
    return (this.s.refundsOf!.all(bettor) as RefundRow[]).map(refundOf);
  }

  /**
   * The refunds of one page of a bettor's refund groups (groups ordered by their latest refund) and the number of
   * groups: SQL groups and pages them, so a request reads only its page whatever the bettor's history.
   */
  refundGroupsPage(q: RefundQuery, ascending: boolean, page: { page: number; perPage: number }): { refunds: RefundPaid[]; groups: number } {
    const params = {
      bettor: q.bettor,
      market: q.marketHash?.toLowerCase() ?? null,
      token: q.baseToken ?? null,
      fill: q.fillHash?.toLowerCase() ?? null,
      maker: q.maker === undefined ? null : q.maker ? 1 : 0,
    };
    const rows = (ascending ? this.s.refundGroupsAsc! : this.s.refundGroupsDesc!).all({
      ...params,
      limit: page.perPage,
      offset: page.page * page.perPage,
    }) as RefundRow[];
    return { refunds: rows.map(refundOf), groups: (this.s.refundGroupCount!.get(params) as { n: number }).n };
  }

  /** A bettor's refunds in one market, oldest first (through the (bettor, market_hash) index). */
  refundsOfIn(bettor: string, marketHash: string): RefundPaid[] {
    return (this.s.refundsOfIn!.all(bettor, marketHash) as RefundRow[]).map(refundOf);
  }
}
