// What one projector transaction holds in memory: the trades and fills its change records touch (read from the
// database in a few queries before the first record is applied, whole fills at a time, then changed in memory) and
// every row it will write, gathered so that each table is written by one or two multi-row statements at the end
// (flush.ts). Round trips per batch stay a handful whatever the number of commands in it.
import type { Change, RefundPaid } from '../../../engine/changes.js';
import type { BalanceView } from '../../../engine/types.js';
import type { RestrictionRecord } from '../../restriction-record.js';
import { int, intOrNull, tradeStateOf, type Queryable, type TradeRow, type TradeState } from '../trade-state.js';

export interface FillState {
  fillHash: string;
  fillSalt: string;
  taker: string;
  marketHash: string;
  totalTakerStake: bigint;
  status: string;
  acceptedAt: number;
  attempts: string[] | null;
  lastAttemptAt: number | null;
  txHash: string | null;
  failureReason: string | null;
  cashOutAmount: bigint | null;
  cashOutFee: bigint | null;
}

interface FillRow {
  fill_hash: string;
  fill_salt: string;
  taker: string;
  market_hash: string;
  total_taker_stake: string;
  status: string;
  accepted_at: string;
  attempts: string[] | null;
  last_attempt_at: string | null;
  tx_hash: string | null;
  failure_reason: string | null;
  cash_out_amount: string | null;
  cash_out_fee: string | null;
}

const fillStateOf = (r: FillRow): FillState => ({
  fillHash: r.fill_hash,
  fillSalt: r.fill_salt,
  taker: r.taker,
  marketHash: r.market_hash,
  totalTakerStake: BigInt(r.total_taker_stake),
  status: r.status,
  acceptedAt: int(r.accepted_at),
  attempts: r.attempts,
  lastAttemptAt: intOrNull(r.last_attempt_at),
  txHash: r.tx_hash,
  failureReason: r.failure_reason,
  cashOutAmount: r.cash_out_amount === null ? null : BigInt(r.cash_out_amount),
  cashOutFee: r.cash_out_fee === null ? null : BigInt(r.cash_out_fee),
});

/** An order's columns as rm_orders keeps them (wei as bigint). */
export interface OrderRecord {
  order_hash: string;
  market_hash: string;
  exchange_event_id: string;
  maker: string;
  base_token: string;
  executor: string;
  total_bet_size: bigint;
  percentage_odds: bigint;
  fill_amount: bigint;
  pending_fill_amount: bigint;
  expiry: number;
  api_expiry: number;
  salt: string;
  maker_outcome_one: boolean;
  signature: string;
  status: string;
  seq: number;
  created_at: number;
  updated_at: number;
  persistence: string;
  cancel_reason: string | null;
}

export type OrderUpdate = Pick<OrderRecord, 'order_hash' | 'fill_amount' | 'pending_fill_amount' | 'status' | 'updated_at' | 'cancel_reason'>;

/** A listing-totals key of rm_trade_counts: bettor, settled, status, maker, base token, affiliate. */
export type TradeCountKey = readonly [string, boolean, string, boolean, string, string];

export interface FeeRecord {
  market_hash: string;
  bettor: string;
  fee: bigint;
  fee_account: string;
  affiliate: string;
  affiliate_fee: bigint;
  charged_at: number;
}

export interface CashOutRecord {
  fill_hash: string;
  market_hash: string;
  bettor: string;
  hedge_stake: bigint;
  value: bigint;
  amount: bigint;
  fee: bigint;
  affiliate_fee: bigint;
  paid_at: number;
}

export interface ReportRecord {
  market_hash: string;
  outcome: number;
  reported_at: number;
  team_one_score: number | null;
  team_two_score: number | null;
}

export interface RefundTotal {
  bettor: string;
  market_hash: string;
  base_token: string;
  total: bigint;
}

const refundTotalKey = (bettor: string, marketHash: string, baseToken: string) => `${bettor.toLowerCase()}|${marketHash}|${baseToken.toLowerCase()}`;

export class BatchRows {
  /** Every trade of the batch: read whole fills at a time, or recorded by it. */
  readonly trades = new Map<number, TradeState>();
  private readonly byFill = new Map<string, number[]>();
  private readonly byMarket = new Map<string, number[]>();
  /** Trades to write: recorded by the batch, or changed by it. */
  readonly dirtyTrades = new Set<number>();
  readonly fills = new Map<string, FillState>();
  readonly dirtyFills = new Set<string>();
  /** Orders posted and order changes not written yet (the book is written before the candles read it). */
  readonly newOrders = new Map<string, OrderRecord>();
  readonly orderUpdates = new Map<string, OrderUpdate>();
  readonly refunds: RefundPaid[] = [];
  readonly refundsPaidOnChain = new Map<number, string>();
  private readonly refundTotals = new Map<string, RefundTotal>();
  readonly dirtyRefundTotals = new Set<string>();
  readonly fees: FeeRecord[] = [];
  readonly cashOuts: CashOutRecord[] = [];
  readonly reports: ReportRecord[] = [];
  /** Each address's last balance record of the batch, by address in lower case (the key compares without case). */
  readonly balances = new Map<string, BalanceView & { address: string }>();
  /** Each account's last restriction record of the batch (a lift removes the row), by address in lower case. */
  readonly restrictions = new Map<string, RestrictionRecord>();
  /** Matched volume per market the batch changed (committed totals live with the projector). */
  readonly volume = new Map<string, bigint>();
  /** Summed deltas of rm_trade_counts per key (text in lower case). */
  readonly tradeCounts = new Map<string, { key: TradeCountKey; n: number }>();

  /**
   * Reads what the batch's records will change and cannot describe alone: the fills they name and every trade of
   * the fills they touch (fills executed, attempted or cashed out; trades settled one by one; unsettled trades of
   * markets a report settles; unpaid trades of positions paid on chain), and the refund totals they add to.
   */
  async load(db: Queryable, commands: readonly (readonly Change[])[]): Promise<void> {
    const fills = new Set<string>();
    const tradeIds: number[] = [];
    const settledMarkets = new Set<string>();
    const paid: [string[], string[]] = [[], []];
    const totals = new Map<string, [string, string, string]>();
    for (const changes of commands) {
      for (const c of changes) {
        if (c.type === 'fillExecuted' || c.type === 'fillAttempted' || c.type === 'cashedOut') fills.add(c.fillHash);
        else if (c.type === 'tradeSettled') tradeIds.push(Number(c.tradeId));
        else if (c.type === 'positionSettled') settledMarkets.add(c.marketHash);
        else if (c.type === 'positionPaidOnChain') {
          paid[0].push(c.marketHash);
          paid[1].push(c.bettor);
        } else if (c.type === 'refundPaid') {
          const r = c.refund;
          totals.set(refundTotalKey(r.bettor, r.marketHash, r.baseToken), [r.bettor, r.marketHash, r.baseToken]);
        }
      }
    }
    // One after another: a connection runs one statement at a time anyway.
    if (fills.size + tradeIds.length + settledMarkets.size + paid[0].length > 0) {
      const { rows } = await db.query<TradeRow>(
            `WITH wanted AS (
               SELECT unnest($1::text[]) AS fill_hash
               UNION SELECT fill_hash FROM rm_trades WHERE id = ANY($2::bigint[])
               UNION SELECT fill_hash FROM rm_trades WHERE market_hash = ANY($3::text[]) AND NOT settled
               UNION SELECT t.fill_hash FROM unnest($4::text[], $5::text[]) AS p(m, b)
                 JOIN rm_trades t ON t.market_hash = p.m AND t.bettor = p.b::citext AND t.settled AND t.settle_tx_hash IS NULL)
             SELECT t.* FROM rm_trades t WHERE t.fill_hash IN (SELECT fill_hash FROM wanted) ORDER BY t.id`,
            [[...fills], tradeIds, [...settledMarkets], paid[0], paid[1]],
      );
      for (const r of rows) this.addTrade(tradeStateOf(r));
    }
    if (fills.size > 0) {
      const { rows } = await db.query<FillRow>('SELECT * FROM rm_fills WHERE fill_hash = ANY($1::text[])', [[...fills]]);
      for (const r of rows) this.fills.set(r.fill_hash, fillStateOf(r));
    }
    if (totals.size > 0) {
      const [bettors, markets, tokens] = [[...totals.values()].map((t) => t[0]), [...totals.values()].map((t) => t[1]), [...totals.values()].map((t) => t[2])];
      const { rows } = await db.query<{ bettor: string; market_hash: string; base_token: string; total: string }>(
            `SELECT r.bettor, r.market_hash, r.base_token, r.total FROM unnest($1::text[], $2::text[], $3::text[]) AS k(b, m, t)
             JOIN rm_refund_totals r ON r.bettor = k.b::citext AND r.market_hash = k.m AND r.base_token = k.t::citext`,
            [bettors, markets, tokens],
      );
      for (const r of rows) this.refundTotals.set(refundTotalKey(r.bettor, r.market_hash, r.base_token), { ...r, total: BigInt(r.total) });
    }
  }

  /** A trade read or recorded (recorded ones are also marked to be written). */
  addTrade(t: TradeState, recorded = false): void {
    this.trades.set(t.id, t);
    const inFill = this.byFill.get(t.fillHash);
    if (inFill) inFill.push(t.id);
    else this.byFill.set(t.fillHash, [t.id]);
    const inMarket = this.byMarket.get(t.marketHash);
    if (inMarket) inMarket.push(t.id);
    else this.byMarket.set(t.marketHash, [t.id]);
    if (recorded) this.dirtyTrades.add(t.id);
  }

  /** The trades of a fill held in memory (all of them, see `load`), oldest first. */
  tradesOfFill(fillHash: string): TradeState[] {
    return (this.byFill.get(fillHash) ?? []).map((id) => this.trades.get(id)!).sort((a, b) => a.id - b.id);
  }

  /** Trades of a market held in memory, oldest first. */
  tradesOfMarket(marketHash: string): TradeState[] {
    return (this.byMarket.get(marketHash) ?? []).map((id) => this.trades.get(id)!).sort((a, b) => a.id - b.id);
  }

  /** A trade changed: it will be written with the batch. */
  touch(t: TradeState): void {
    t.rev++;
    this.dirtyTrades.add(t.id);
  }

  countTrade(key: TradeCountKey, delta: number): void {
    const id = key.map((v) => (typeof v === 'string' ? v.toLowerCase() : String(v))).join(' ');
    const entry = this.tradeCounts.get(id);
    if (entry) entry.n += delta;
    else this.tradeCounts.set(id, { key, n: delta });
  }

  addRefund(r: RefundPaid): void {
    this.refunds.push(r);
    const key = refundTotalKey(r.bettor, r.marketHash, r.baseToken);
    const total = this.refundTotals.get(key);
    if (total) total.total += r.amount;
    else this.refundTotals.set(key, { bettor: r.bettor, market_hash: r.marketHash, base_token: r.baseToken, total: r.amount });
    this.dirtyRefundTotals.add(key);
  }

  changedRefundTotals(): RefundTotal[] {
    return [...this.dirtyRefundTotals].map((k) => this.refundTotals.get(k)!);
  }
}
