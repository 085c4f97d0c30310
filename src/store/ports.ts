// The store's ports: what the writer, the projector and the read routes need of a store, apart from how one keeps
// it. The SQLite implementation is under sqlite/ (server.ts builds it); a database server implements the same
// interfaces. Everything here speaks in domain types (engine records, bigint amounts), never in rows.
import type { Change, RefundPaid } from '../engine/changes.js';
import type { EngineSnapshot } from '../engine/engine.js';
import type { AccountRestriction, BalanceView, Command, OrderView, Outcome, Trade, TradeStatus } from '../engine/types.js';
import type { FillOnChain } from './fill-on-chain.js';
import type { ArchivedRange } from './journal-archive-file.js';
import type { ConsolidatedGroup } from './trade-index.js';

export type { FillOnChain, ArchivedRange };

// ---- the journal and snapshots: the writer's side ---------------------------------------------------

export interface JournalEntry {
  cmd: Command;
  changes: readonly Change[];
}

/** A journaled command and its position. */
export interface JournaledCommand {
  seq: number;
  cmd: Command;
}

/** A journaled command's change records and time, as consumers of the journal read them. */
export interface JournaledChanges {
  seq: number;
  at: number;
  /** Undefined for rows written before change records were journaled. */
  changes: readonly Change[] | undefined;
}

export interface StoredSnapshot<T> {
  seq: number;
  state: T;
}

/** Engine snapshots: the newest valid one plus the journal after it rebuilds the engine. */
export interface SnapshotPort<T> {
  /** Writes a snapshot of the state as of journal position `seq` and drops the oldest beyond those kept. */
  write(seq: number, state: T, takenAt: number): void;
  /** Snapshots whose checksum holds, newest first (read as they are asked for: a database server's are async). */
  valid(): AsyncIterable<StoredSnapshot<T>>;
  /** The journal position through which rows were archived (0: the journal is whole). */
  archivedThrough(): number;
  /**
   * Moves journal rows at or below both the oldest kept snapshot and `projectedThrough` (the read models' position:
   * rows they have not projected yet stay) into a file in `dir` (journal-archive-file.ts), then deletes them with the
   * archived-through mark in one transaction. Undefined when there is nothing to move.
   */
  archiveJournal(dir: string, projectedThrough: number): Promise<ArchivedRange | undefined>;
}

/** The writer's unit of work: the journal (commands with their change records) and the catalogue statuses they set. */
export interface TradingStore {
  readonly snapshots: SnapshotPort<EngineSnapshot>;
  /**
   * Appends the commands with their change records, and the catalogue statuses they set, all or nothing. Returns the
   * last command's position. They are durable once a later `sync` resolves; no caller is answered before. Throws
   * StoreBusyError when the store is held by someone else: nothing was written, and the same entries may be
   * committed again.
   */
  commit(entries: readonly JournalEntry[]): number;
  /** Makes every commit written so far durable, off the calling thread. Rejects if the store refused. */
  sync(): Promise<void>;
  /** The same, blocking. */
  syncNow(): void;
  /**
   * Journaled commands after `afterSeq` in order, with their positions, a page at a time (one wait per page, not
   * per command: a rebuild replays millions).
   */
  replay(afterSeq?: number): AsyncIterable<readonly JournaledCommand[]>;
  /** Journaled change records after `afterSeq`, in order, at most `limit` commands' (what consumers follow). */
  changesAfter(afterSeq: number, limit?: number): Promise<JournaledChanges[]>;
  /**
   * After a failed sync (a database server restarting, a dropped connection): once the store answers again and this
   * writer still holds it, forgets what it held, reads where the journal ends, and takes commits again ('healed':
   * the caller rebuilds its state from the journal, which may hold the failed sync's rows). 'lost': another writer
   * holds the store now, and this one must never write again. Rejects while the store cannot be reached (try again
   * later). A store without it stops taking commits after a failed sync, until a restart.
   */
  heal?(): Promise<'healed' | 'lost'>;
  /**
   * Calls `lost` when the store learns, between syncs, that it no longer holds the journal (a writer's lock goes with
   * its connection): the caller heals it as after a failed sync, so a writer with nothing to append takes its lock
   * back, or steps out to the writer that took it, at once rather than at its next append.
   */
  watchHold?(lost: (err: Error) => void): void;
  /**
   * Writes something that is not a command and throws if the store refuses it (a full disk): after a refused commit,
   * whether it takes writes again without waiting for the next command (readiness).
   */
  probeWrite?(): void;
}

/**
 * The store was held by another connection: nothing was written; the same entries can be committed again later.
 */
export class StoreBusyError extends Error {
  constructor(cause: unknown) {
    super(`the database is busy: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'StoreBusyError';
  }
}

// ---- the projector: the journal's consumer that writes the read models -----------------------------------

/** One journaled command's change records, with its position and time. */
export interface ProjectedEntry {
  seq: number;
  at: number;
  changes: readonly Change[];
}

/** Writes read models from journal entries, with its checkpoint, on the calling thread. */
export interface Projector {
  readonly readModels: ReadModelQueries;
  /** The journal position the read models cover (0: none). */
  position(): number;
  /** Projects groups of consecutive journal entries, in order, with the checkpoint, all or nothing. */
  project(groups: readonly (readonly ProjectedEntry[])[]): void;
  /** Another projector (its own thread) wrote the read models: what this one keeps in memory is read again. */
  changedElsewhere(): void;
}

/** A projector running elsewhere (a thread of its own, another process), told how far the journal is durable. */
export interface RemoteProjector {
  /**
   * A projector process of its own, which follows the journal by itself: nothing here waits for it (a flush returns
   * at once; a thread of this process is waited for instead).
   */
  readonly apart?: boolean;
  /** The journal position it has applied. */
  readonly position: number;
  /** The journal is durable through `through`: project up to it. */
  advance(through: number): void;
  /** Blocks until it has applied `seq`, at most `timeoutMs`; false if it has not. */
  waitUntil(seq: number, timeoutMs: number): boolean;
  /** Projects what it was told is durable, then ends; ended where it is after `timeoutMs`, if given. */
  stop(timeoutMs?: number): Promise<void>;
}

// ---- the read side: what read routes, the publisher and the chain adapter ask ---------------------------

export interface Position {
  marketHash: string;
  exchangeEventId: string;
  baseToken: string;
  /** Confirmed stakes (trades executed on chain) on outcome one and outcome two. */
  stakeOutcomeOne: bigint;
  stakeOutcomeTwo: bigint;
  /** Stakes of trades whose fill still waits for the chain: not in escrow yet, nor in the figures below. */
  pendingStake: bigint;
  /** What the confirmed trades pay if outcome one wins, if outcome two wins, if the market is void. */
  payoutIfOutcomeOne: bigint;
  payoutIfOutcomeTwo: bigint;
  payoutIfVoid: bigint;
  /** Held in escrow for the position: its stakes less the refunds paid, until it settles. */
  escrow: bigint;
  refunds: bigint;
  /** Paid at once by cash outs of the position (before their fees), and those fees. */
  cashedOut: bigint;
  cashOutFees: bigint;
  settled: boolean;
  outcome?: Outcome;
  /**
   * Settled: what settlement paid over the whole position (refunds paid early included), the commission taken on its
   * winnings, and the payout less the commission and the stakes.
   */
  payout?: bigint;
  fees?: bigint;
  settledProfit?: bigint;
  lastTradeTime: number;
}

export type StatementKind = 'deposit' | 'withdrawal' | 'stake' | 'refund' | 'cashout' | 'payout' | 'fee';

export interface StatementEntry {
  id: number;
  kind: StatementKind;
  /** Signed wei: negative when funds left the balance. */
  amount: bigint;
  /** The balance after this entry. */
  balance: bigint;
  marketHash?: string;
  /** The trade of a stake or of a late trade's payout. */
  tradeId?: string;
  refundId?: number;
  at: number;
}

/** Candle widths in seconds and how long each is kept per market (seconds before the newest candle's start). */
export const CANDLE_INTERVALS = {
  '1m': { seconds: 60, keepSeconds: 2 * 86_400 },
  '5m': { seconds: 300, keepSeconds: 14 * 86_400 },
  '1h': { seconds: 3_600, keepSeconds: 180 * 86_400 },
  '1d': { seconds: 86_400, keepSeconds: 5 * 365 * 86_400 },
} as const;

export type CandleInterval = keyof typeof CANDLE_INTERVALS;

export interface Candle {
  /** UNIX seconds of the interval's start. */
  time: number;
  open: string;
  high: string;
  low: string;
  close: string;
  volume: string;
  bestMakerOddsOutcomeOne: string | null;
  bestMakerOddsOutcomeTwo: string | null;
}

/** Filters of a consolidated listing (absent ones match everything). */
export interface EntryQuery {
  bettor?: string;
  settled: boolean;
  maker?: boolean;
  exchangeEventId?: string;
  tradeStatus?: 'SUCCESS' | 'FAILED';
  /** Matches the entry's market, and for a quarter-line market also its legs. */
  marketHash?: string;
  hideQuarterLineParents?: boolean;
  hideQuarterLineLegs?: boolean;
}

/** An entry of a page: which group to render, its trades (oldest first), and whether its bettor was refunded on their markets. */
export interface PageEntry {
  kind: ConsolidatedGroup['kind'];
  marketHash: string;
  trades: Trade[];
  refunded: boolean;
}

/** Fee revenue of one UTC day in one market: every fee taken (wei), the affiliates' part of it, how many were taken. */
export interface FeeRevenue {
  day: string;
  marketHash: string;
  fees: bigint;
  affiliateFees: bigint;
  charges: number;
}

/** Trades of a listing, and the answers rendering them needs that are not in the trade (read with the trades). */
export interface ListedTrades {
  trades: Trade[];
  /** Each trade's version (T_TRADE_VERSION), in the order of `trades`. */
  versions: number[];
  hasRefunds(marketHash: string, bettor: string): boolean;
  fillOnChain(fillHash: string): FillOnChain | undefined;
}

/** Filters of GET /trades (all optional; addresses compare case-insensitively). */
export interface TradeFilter {
  startMs?: number;
  endMs?: number;
  bettor?: string;
  settled?: boolean;
  /** Matches a trade's market or, for a quarter-line leg, its parent market. */
  marketHashes?: string[];
  baseToken?: string;
  maker?: boolean;
  affiliate?: string;
  tradeStatus?: TradeStatus;
  exchangeEventId?: string;
}

/** Filters of GET /trades/portfolio/refunds; absent ones match everything. */
export interface RefundQuery {
  bettor: string;
  marketHash?: string;
  baseToken?: string;
  fillHash?: string;
  maker?: boolean;
}

/** Consolidated sort fields the store orders by itself; the others need the catalogue (render/consolidated.ts). */
export const STORED_SORT_FIELDS = [
  'totalStake',
  'totalBetTimeValue',
  'weightedAverageOdds',
  'netReturn',
  'netReturnBetTimeValue',
  'settleNetReturnValue',
  'totalReturn',
  'outcome',
  'bettingOutcome',
  'betTime',
  'settleDate',
] as const;
export type StoredSortField = (typeof STORED_SORT_FIELDS)[number];
export const isStoredSortField = (field: string): field is StoredSortField => (STORED_SORT_FIELDS as readonly string[]).includes(field);

export interface OrderQueries {
  openOrdersOf(maker: string): OrderView[];
  openOrdersIn(marketHash: string): OrderView[];
  order(orderHash: string): OrderView | undefined;
  /** Which of these orders were ever posted (open or closed). */
  postedOrders(orderHashes: readonly string[]): Set<string>;
}

export interface TradeQueries {
  trade(id: string): Trade | undefined;
  tradesOfFill(fillHash: string): Trade[];
  tradesOfOrders(orderHashes: readonly string[]): ListedTrades;
  tradesOf(bettor?: string, inFillsWith?: { settled: boolean }): Trade[];
  tradesOfBettorIn(bettor: string, marketHash: string): Trade[];
  tradesPage(f: TradeFilter, belowId: number, pageSize: number): ListedTrades & { count: number; more: boolean };
  /**
   * One page of the ids and versions of matching trades, newest first, below `belowId`, with each trade's refund flag
   * (`hasRefunds` of its market and bettor), read with the page.
   */
  tradeVersionsPage(f: TradeFilter, belowId: number, pageSize: number): { ids: number[]; versions: number[]; count: number; more: boolean; refunded: boolean[] };
  listedTrades(ids: readonly number[]): ListedTrades;
  /** Ids of the trades a report settled at `settleDate` in a market. */
  tradesSettledIn(marketHash: string, settleDate: number): string[];
  /** Ids of a bettor's trades an on-chain escrow paid in one transaction. */
  tradesPaidIn(marketHash: string, bettor: string, txHash: string): string[];
  fillOnChain(fillHash: string): FillOnChain | undefined;
  /** One read for many fills; the answer looks each up. */
  fillsOnChain(fillHashes: readonly string[]): (fillHash: string) => FillOnChain | undefined;
  /** Whether a fill with this salt or hash was ever accepted. */
  fillUsed(fillSalt: string, fillHash: string): boolean;
  /** Matched volume in base-token wei per market hash. */
  matchedVolume(): ReadonlyMap<string, bigint>;
}

export interface RefundQueries {
  hasRefunds(marketHash: string, bettor: string): boolean;
  hasRefundBefore(marketHash: string, bettor: string, id: number): boolean;
  /** One read for the refund flags of these (market, bettor) pairs (of trades, say). */
  refundsSeen(pairs: readonly { marketHash: string; bettor: string }[]): (marketHash: string, bettor: string) => boolean;
  refundTotal(bettor: string, marketHash: string, baseToken: string): bigint;
  refundsOf(bettor: string): RefundPaid[];
  refundsOfIn(bettor: string, marketHash: string): RefundPaid[];
  refundGroupsPage(q: RefundQuery, ascending: boolean, page: { page: number; perPage: number }): { refunds: RefundPaid[]; groups: number };
  /** Refunds an on-chain escrow has not reported paying yet, oldest first. */
  refundsUnpaidOnChain(): RefundPaid[];
}

/** What start-up and an on-chain escrow ask: reports and payouts the read side holds and others may not yet. */
export interface SettlementQueries {
  /**
   * Reports of markets `unsettled` holds, oldest first; `among`: the only markets that can be (the catalogue's
   * unsettled ones), so only their reports are read rather than every market's ever reported.
   */
  reportsBehindCatalogue(
    unsettled: (marketHash: string) => boolean,
    among?: readonly string[],
  ): { marketHash: string; outcome: Outcome; at: number; teamOneScore?: number; teamTwoScore?: number }[];
  positionsUnpaidOnChain(): { marketHash: string; outcome: Outcome; bettors: string[] }[];
}

export interface BalanceQueries {
  /** An address's balance, escrow, open-order exposure and pending taker stakes (zeros for an unknown address). */
  balanceOf(address: string): BalanceView;
}

export interface RestrictionQueries {
  /** An account's recent shortfalls and posting restriction as last changed (undefined: none recorded, or lifted). */
  restrictionOf(address: string): AccountRestriction | undefined;
}

export interface FeeQueries {
  /** Fee revenue per UTC day and market, between two times (ms). */
  feeRevenue(from: number, to: number): FeeRevenue[];
}

export interface ConsolidatedQueries {
  /**
   * One page of entries and the count; `cashOutOf`, where the store reads them with the page (a database server,
   * saving a round trip), the cash outs of the page's fills (what `fillsOnChain` would answer as `cashOut`).
   */
  page(
    q: EntryQuery,
    sortBy: StoredSortField,
    ascending: boolean,
    offset: number,
    limit: number,
  ): { entries: PageEntry[]; count: number; cashOutOf?: (fillHash: string) => { amount: bigint; fee: bigint } | undefined };
}

export interface HistoryQueries {
  candles(market: string, interval: CandleInterval, fromS: number, toS: number, limit: number): Candle[];
}

export interface StatementQueries {
  page(address: string, ascending: boolean, page: { page: number; perPage: number }): { entries: StatementEntry[]; count: number };
}

export interface PositionQueries {
  page(bettor: string, page: { page: number; perPage: number }): { positions: Position[]; count: number };
}

/** Everything the read side answers, as the projector leaves it, on the calling thread (an embedded database). */
export interface ReadModelQueries extends TradeQueries, SettlementQueries {
  readonly fees: FeeQueries;
  readonly orders: OrderQueries;
  readonly balances: BalanceQueries;
  readonly restrictions: RestrictionQueries;
  readonly refunds: RefundQueries;
  readonly entries: ConsolidatedQueries;
  readonly history: HistoryQueries;
  readonly statement: StatementQueries;
  readonly positions: PositionQueries;
}

/**
 * A query interface as a database server answers it: the same questions, each answer awaited. Sub-interfaces are
 * mapped the same way; what an answer holds (closures of ListedTrades, say) is not.
 */
export type AsyncQueries<T> = {
  readonly [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<R> : AsyncQueries<T[K]>;
};

/** The read side as every consumer asks it: an embedded database answers at once, a database server over the network. */
export type ReadModels = AsyncQueries<ReadModelQueries>;

/**
 * A projector whose database answers asynchronously (a database server): it writes groups of consecutive journal
 * entries, in order, with its checkpoint, in one transaction, all or nothing.
 */
export interface AsyncProjector {
  readonly readModels: ReadModels;
  /** The journal position the read models cover (0: none). */
  position(): Promise<number>;
  project(groups: readonly (readonly ProjectedEntry[])[]): Promise<void>;
}
