// Trade rows as the read models store them, and the Trade each one stands for: shared by every query that reads
// whole trades (the trade listings and the consolidated page).
import type { Outcome, Trade, TradeStatus } from '../../engine/types.js';
import type { FillOnChain } from '../fill-on-chain.js';

/**
 * A trade row as an array, in TRADE_COLUMNS order: trade queries read rows raw, since better-sqlite3 builds a keyed
 * object per row at about twice the cost, and a page of trades is most of a listing's time.
 */
export type TradeRow = [
  id: number,
  fillHash: string,
  orderHash: string,
  marketHash: string,
  parentMarketHash: string | null,
  exchangeEventId: string,
  baseToken: string,
  bettor: string,
  counterparty: string,
  maker: number,
  outcomeOne: number,
  stake: string,
  counterStake: string,
  odds: string,
  status: string,
  betTime: number,
  updatedAt: number,
  affiliate: string,
  settled: number,
  settleDate: number | null,
  settleTxHash: string | null,
  outcome: number | null,
  payout: string | null,
  credit: string | null,
  fee: string | null,
];

export const TRADE_COLUMNS = `id, fill_hash, order_hash, market_hash, parent_market_hash, exchange_event_id, base_token, bettor, counterparty,
  maker, outcome_one, stake, counter_stake, odds, status, bet_time, updated_at, affiliate, settled, settle_date, settle_tx_hash,
  outcome, payout, credit, fee`;

/** How many columns a TradeRow has: where the columns a query reads after the trade's start. */
export const TRADE_ROW_LENGTH = TRADE_COLUMNS.split(',').length;

/** TRADE_COLUMNS of the trades table aliased `t`, for queries that join it. */
export const T_TRADE_COLUMNS = TRADE_COLUMNS.replace(/(\w+)/g, 't.$1');

/** 1 if the bettor of trade `t` received a refund in its market, else 0 (one probe of rm_refunds_by_bettor). */
export const T_BETTOR_REFUNDED = 'EXISTS (SELECT 1 FROM rm_refunds r WHERE r.bettor = t.bettor AND r.market_hash = t.market_hash)';

/**
 * A trade row of a listing, followed by what rendering the trade reads besides it: whether its bettor received
 * refunds in its market, and its fill's chain record (if the fill is recorded); then the row's version.
 */
export type ListedTradeRow = [...TradeRow, ...ListedExtras];

/** The columns of a ListedTradeRow after the trade's. */
export type ListedExtras = [
  hasRefunds: number,
  fillRecorded: number,
  attempts: string | null,
  lastAttemptAt: number | null,
  txHash: string | null,
  failureReason: string | null,
  version: number,
  cashOutAmount: string | null,
  cashOutFee: string | null,
];

/**
 * A listed trade's version: its row's revision, which every change to the row or to its fill's chain record
 * increments (read-models.ts). Two reads of a trade at one revision read the same row and fill record.
 */
export const T_TRADE_VERSION = 't.rev';

/**
 * Columns of a ListedTradeRow, from `rm_trades t LEFT JOIN rm_fills f ON f.fill_hash = t.fill_hash`: one statement
 * reads a listing's trades (by id or by order) and their render lookups (one index probe per trade for each).
 */
export const LISTED_TRADE_COLUMNS = `${T_TRADE_COLUMNS}, ${T_BETTOR_REFUNDED},
  f.fill_hash IS NOT NULL, f.attempts, f.last_attempt_at, f.tx_hash, f.failure_reason, ${T_TRADE_VERSION}, f.cash_out_amount, f.cash_out_fee`;
export const LISTED_TRADES_FROM = 'rm_trades t LEFT JOIN rm_fills f ON f.fill_hash = t.fill_hash';

/** A trade of a row. Optional fields are always set (undefined when absent), so every trade read has one shape. */
export const tradeOf = (r: TradeRow | readonly [...TradeRow, ...unknown[]]): Trade => {
  const [id, fillHash, orderHash, marketHash, parentMarketHash, exchangeEventId, baseToken, bettor, counterparty, maker, outcomeOne,
    stake, counterStake, odds, status, betTime, updatedAt, affiliate, settled, settleDate, settleTxHash, outcome, payout, credit, fee] = r;
  const isSettled = settled === 1;
  return {
    id: String(id),
    fillHash,
    orderHash,
    marketHash,
    quarterLineParentMarketHash: parentMarketHash ?? undefined,
    exchangeEventId,
    baseToken,
    bettor,
    counterparty,
    maker: maker === 1,
    bettingOutcomeOne: outcomeOne === 1,
    stake: BigInt(stake),
    counterStake: BigInt(counterStake),
    odds: BigInt(odds),
    status: status as TradeStatus,
    betTime,
    updatedAt,
    affiliate,
    settled: isSettled,
    settleDate: isSettled ? settleDate! : undefined,
    settleTxHash: isSettled ? (settleTxHash ?? undefined) : undefined,
    outcome: isSettled ? (outcome as Outcome) : undefined,
    payout: isSettled ? BigInt(payout!) : undefined,
    credit: isSettled ? BigInt(credit!) : undefined,
    // Trades settled before fees existed were charged none.
    fee: isSettled ? BigInt(fee ?? 0) : undefined,
  };
};

/** A fill's record on the settlement chain as rm_fills keeps it. */
export interface FillChainRow {
  fill_hash: string;
  attempts: string | null;
  last_attempt_at: number | null;
  tx_hash: string | null;
  failure_reason: string | null;
  cash_out_amount: string | null;
  cash_out_fee: string | null;
}

export const fillOnChainOf = (row: FillChainRow): FillOnChain => ({
  attempts: row.attempts === null ? [] : (JSON.parse(row.attempts) as string[]),
  ...(row.last_attempt_at !== null ? { lastAttemptAt: row.last_attempt_at } : {}),
  ...(row.tx_hash !== null ? { txHash: row.tx_hash } : {}),
  ...(row.failure_reason !== null ? { failureReason: row.failure_reason } : {}),
  ...(row.cash_out_amount !== null ? { cashOut: { amount: BigInt(row.cash_out_amount), fee: BigInt(row.cash_out_fee ?? '0') } } : {}),
});

