// Trades and fills of the PostgreSQL read models as rows come back from node-postgres (numeric and bigint columns
// as decimal text, booleans as booleans), the state the projector holds of them while it writes a batch, and the
// Trade and FillOnChain each stands for: one conversion path for the queries and the projection alike.
import type pg from 'pg';
import type { Outcome, Trade, TradeStatus } from '../../engine/types.js';
import type { FillOnChain } from '../fill-on-chain.js';

/** A pool or one of its clients: what a query runs on. */
export type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;

/** A bigint column (ms times, ids) as node-postgres gives it; Number is exact below 2^53. */
export const int = (v: string | number): number => Number(v);
/**
 * A lower bound (`>=`) or strict upper bound (`<`) on a bigint column as a bigint parameter: the same rows as the
 * number itself selects (rounded up), infinities as the largest or smallest exact integer.
 */
export const bound = (n: number): number => (n === Infinity ? Number.MAX_SAFE_INTEGER : n === -Infinity ? Number.MIN_SAFE_INTEGER : Math.ceil(n));
export const intOrNull = (v: string | number | null): number | null => (v === null ? null : Number(v));

/**
 * Rows as one jsonb parameter, for `jsonb_to_recordset($1)`: a batch's rows in one statement. Wei travel as decimal
 * strings (numeric columns take them exactly), never as JSON numbers.
 */
export const jsonRows = (rows: readonly object[]): string => JSON.stringify(rows, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));

export const TRADE_COLUMNS = `id, fill_hash, order_hash, market_hash, parent_market_hash, exchange_event_id, base_token, bettor, counterparty,
  maker, outcome_one, stake, counter_stake, odds, status, bet_time, updated_at, affiliate, settled, settle_date, settle_tx_hash,
  outcome, payout, credit, fee, rev`;

/** TRADE_COLUMNS of the trades table aliased `t`. */
export const T_TRADE_COLUMNS = TRADE_COLUMNS.replace(/(\w+)/g, 't.$1');

/** A row of TRADE_COLUMNS. */
export interface TradeRow {
  id: string;
  fill_hash: string;
  order_hash: string;
  market_hash: string;
  parent_market_hash: string | null;
  exchange_event_id: string;
  base_token: string;
  bettor: string;
  counterparty: string;
  maker: boolean;
  outcome_one: boolean;
  stake: string;
  counter_stake: string;
  odds: string;
  status: string;
  bet_time: string;
  updated_at: string;
  affiliate: string;
  settled: boolean;
  settle_date: string | null;
  settle_tx_hash: string | null;
  outcome: number | null;
  payout: string | null;
  credit: string | null;
  fee: string | null;
  rev: number;
}

/** A trade as the projector holds it while a batch changes it. */
export interface TradeState {
  id: number;
  fillHash: string;
  orderHash: string;
  marketHash: string;
  parentMarketHash: string | null;
  exchangeEventId: string;
  baseToken: string;
  bettor: string;
  counterparty: string;
  maker: boolean;
  outcomeOne: boolean;
  stake: bigint;
  counterStake: bigint;
  odds: bigint;
  status: TradeStatus;
  betTime: number;
  updatedAt: number;
  affiliate: string;
  settled: boolean;
  settleDate: number | null;
  settleTxHash: string | null;
  outcome: number | null;
  payout: bigint | null;
  credit: bigint | null;
  fee: bigint | null;
  rev: number;
}

const bigOrNull = (v: string | null): bigint | null => (v === null ? null : BigInt(v));

export const tradeStateOf = (r: TradeRow): TradeState => ({
  id: int(r.id),
  fillHash: r.fill_hash,
  orderHash: r.order_hash,
  marketHash: r.market_hash,
  parentMarketHash: r.parent_market_hash,
  exchangeEventId: r.exchange_event_id,
  baseToken: r.base_token,
  bettor: r.bettor,
  counterparty: r.counterparty,
  maker: r.maker,
  outcomeOne: r.outcome_one,
  stake: BigInt(r.stake),
  counterStake: BigInt(r.counter_stake),
  odds: BigInt(r.odds),
  status: r.status as TradeStatus,
  betTime: int(r.bet_time),
  updatedAt: int(r.updated_at),
  affiliate: r.affiliate,
  settled: r.settled,
  settleDate: intOrNull(r.settle_date),
  settleTxHash: r.settle_tx_hash,
  outcome: r.outcome,
  payout: bigOrNull(r.payout),
  credit: bigOrNull(r.credit),
  fee: bigOrNull(r.fee),
  rev: r.rev,
});

/** The Trade of a state, in the shape the SQLite read models give (optional fields present, undefined when absent). */
export const tradeOfState = (s: TradeState): Trade => ({
  id: String(s.id),
  fillHash: s.fillHash,
  orderHash: s.orderHash,
  marketHash: s.marketHash,
  quarterLineParentMarketHash: s.parentMarketHash ?? undefined,
  exchangeEventId: s.exchangeEventId,
  baseToken: s.baseToken,
  bettor: s.bettor,
  counterparty: s.counterparty,
  maker: s.maker,
  bettingOutcomeOne: s.outcomeOne,
  stake: s.stake,
  counterStake: s.counterStake,
  odds: s.odds,
  status: s.status,
  betTime: s.betTime,
  updatedAt: s.updatedAt,
  affiliate: s.affiliate,
  settled: s.settled,
  settleDate: s.settled ? s.settleDate! : undefined,
  settleTxHash: s.settled ? (s.settleTxHash ?? undefined) : undefined,
  outcome: s.settled ? (s.outcome as Outcome) : undefined,
  payout: s.settled ? s.payout! : undefined,
  credit: s.settled ? s.credit! : undefined,
  // Trades settled before fees existed were charged none.
  fee: s.settled ? (s.fee ?? 0n) : undefined,
});

export const tradeOf = (r: TradeRow): Trade => tradeOfState(tradeStateOf(r));

/** A fill's record on the settlement chain as rm_fills keeps it. */
export interface FillChainRow {
  fill_hash: string;
  attempts: string[] | null;
  last_attempt_at: string | null;
  tx_hash: string | null;
  failure_reason: string | null;
  cash_out_amount: string | null;
  cash_out_fee: string | null;
}

export const FILL_CHAIN_COLUMNS = 'fill_hash, attempts, last_attempt_at, tx_hash, failure_reason, cash_out_amount, cash_out_fee';

export const fillOnChainOf = (row: FillChainRow): FillOnChain => ({
  attempts: row.attempts ?? [],
  ...(row.last_attempt_at !== null ? { lastAttemptAt: int(row.last_attempt_at) } : {}),
  ...(row.tx_hash !== null ? { txHash: row.tx_hash } : {}),
  ...(row.failure_reason !== null ? { failureReason: row.failure_reason } : {}),
  ...(row.cash_out_amount !== null ? { cashOut: { amount: BigInt(row.cash_out_amount), fee: BigInt(row.cash_out_fee ?? '0') } } : {}),
});
