// The engine's state as plain data, the format snapshots are written in. Its shape is the one written since
// format 2: each part fills its own fields (Engine.snapshot lists them in this order) and reads them back.
import type { WalletsState } from './wallets/wallets.js';
import type { FeeTerms } from './fees.js';
import type { MarketLifeState } from './market-life.js';
import type { PackedOrders } from './order-pack.js';
import type { PositionTotals, PositionTrade } from './refunds.js';
import type { AccountRestriction, FillRecord, Heartbeat, Order, Outcome } from './types.js';

export const SNAPSHOT_VERSION = 2;

/** An order of the unpacked snapshot format; those written before order persistence existed lack it (LAPSE). */
export type OrderData = Omit<Order, 'pendingFills' | 'persistence'> & { pendingFills: [string, bigint][]; persistence?: Order['persistence'] };

/** A queued expiry: time (ms) and key. */
export interface QueuedAt {
  at: number;
  key: string;
}

/** Everything an engine holds, as plain data. */
export interface EngineSnapshot {
  version: number;
  ledger: WalletsState;
  /** Packed (see order-pack.ts); an array of order objects in snapshots written before. */
  orders: PackedOrders | OrderData[];
  pendingFills: FillRecord[];
  recentFills: [string, string][];
  fillCount: number;
  closedOrders: string[];
  closedOrderExpiries: QueuedAt[];
  heartbeats: Heartbeat[];
  reported: [string, Outcome][];
  /** Suspensions and fixtures in play (absent in snapshots written before they were engine state). */
  life?: MarketLifeState;
  /** Sums per position; snapshots written before hold each trade (`trades`), folded into the sums on restore. */
  positions: ({ market: string; bettor: string } & (PositionTotals | { trades: PositionTrade[] }))[];
  refunded: [string, [string, bigint][]][];
  refundCount: number;
  /** Fee terms of reported markets charging fees; absent when none did (and in snapshots written before fees). */
  feeTerms?: [string, FeeTerms][];
  /** Paid at once by cash outs per unsettled market and bettor; absent when none (and before cash outs existed). */
  cashedOut?: [string, [string, bigint][]][];
  tradeCount: number;
  restrictions: AccountRestriction[];
  expiries: QueuedAt[];
  exposure: [string, bigint][];
  pendingTakerStake: [string, bigint][];
  cancelSalts: [string, number][];
  /** null while no cancel salt was forgotten yet. */
  forgottenCancelsUpTo: number | null;
  chainBlock: number;
  /** The hash of block `chainBlock`, once chain events carry one. */
  chainBlockHash?: string;
  seq: number;
}

/**
 * A queue's live entries in (time, key) order, each once: a heartbeat set, cleared and set again to the same deadline
 * queues that deadline twice, and which copies a queue still holds depends on its history, not on the state. Sorted
 * by time then key, the result is a valid heap, and one order for the same set of entries.
 */
export const liveSorted = (entries: QueuedAt[], isLive: (e: QueuedAt) => boolean) =>
  entries
    .filter(isLive)
    .sort((a, b) => a.at - b.at || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .filter((e, i, sorted) => i === 0 || e.at !== sorted[i - 1]!.at || e.key !== sorted[i - 1]!.key);

type Part<K extends keyof EngineSnapshot> = { [P in K]: EngineSnapshot[P] };

/** What each part of the engine snapshots: the fields it fills (and reads back in its `from`). */
export interface SnapshotParts {
  commitments: Part<'ledger' | 'restrictions' | 'exposure' | 'pendingTakerStake'>;
  orders: Part<'orders' | 'seq'>;
  fills: Part<'pendingFills' | 'tradeCount'>;
  guards: Part<'recentFills' | 'fillCount' | 'closedOrders' | 'closedOrderExpiries' | 'cancelSalts' | 'forgottenCancelsUpTo'>;
  liveness: Part<'heartbeats' | 'expiries'>;
  settlement: Part<'reported' | 'positions' | 'refunded' | 'refundCount'> & { feeTerms?: EngineSnapshot['feeTerms'] | undefined; cashedOut?: EngineSnapshot['cashedOut'] | undefined };
  life: MarketLifeState;
  chainBlock: number;
  chainBlockHash: string | undefined;
}

/** The parts' fields put together in the format's field order (optional fields only when present). */
export function assembleSnapshot({ commitments, orders, fills, guards, liveness, settlement, life, chainBlock, chainBlockHash }: SnapshotParts): EngineSnapshot {
  return {
    version: SNAPSHOT_VERSION,
    ledger: commitments.ledger,
    orders: orders.orders,
    pendingFills: fills.pendingFills,
    recentFills: guards.recentFills,
    fillCount: guards.fillCount,
    closedOrders: guards.closedOrders,
    closedOrderExpiries: guards.closedOrderExpiries,
    heartbeats: liveness.heartbeats,
    reported: settlement.reported,
    life,
    positions: settlement.positions,
    refunded: settlement.refunded,
    refundCount: settlement.refundCount,
    ...(settlement.feeTerms ? { feeTerms: settlement.feeTerms } : {}),
    ...(settlement.cashedOut ? { cashedOut: settlement.cashedOut } : {}),
    tradeCount: fills.tradeCount,
    restrictions: commitments.restrictions,
    expiries: liveness.expiries,
    exposure: commitments.exposure,
    pendingTakerStake: commitments.pendingTakerStake,
    cancelSalts: guards.cancelSalts,
    forgottenCancelsUpTo: guards.forgottenCancelsUpTo,
    chainBlock,
    ...(chainBlockHash !== undefined ? { chainBlockHash } : {}),
    seq: orders.seq,
  };
}
