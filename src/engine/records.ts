// The engine's per-command objects of orders and fills, built by constructors instead of object literals.
// V8 counts, per object literal in the source, how many of its objects outlive a young-generation collection; once
// most do, it allocates every later object of that literal directly in old space. Orders resting on a book and fills
// waiting for the chain outlive such collections, so their literals were moved to old space, and with them every
// short-lived order, fill record and trade of later commands: old-space garbage, and each bigint stored into such an
// object a remembered old-to-young pointer the next collection must visit (a fifth of the mixed loop's time).
// Objects built by a constructor stay young-first whatever their siblings did.
// Optional fields are `declare`d: set only when present, so the objects hold the same own keys literals did.
import type { TradeFacts, FillMatch } from './changes.js';
import type { FillRecord, Order, OrderCancelReason, OrderPersistence, OrderStatus, PendingTrade } from './types.js';

/** The engine's own order (see Order); the fields in the order of OrderView. */
export class LiveOrder implements Order {
  // Set once cancelled: a cancelled order leaves memory unless fills are pending on it, so open orders pay nothing.
  declare cancelReason?: OrderCancelReason;

  constructor(
    public orderHash: string,
    public marketHash: string,
    public exchangeEventId: string,
    public maker: string,
    public baseToken: string,
    public executor: string,
    public totalBetSize: bigint,
    public percentageOdds: bigint,
    public fillAmount: bigint,
    public pendingFillAmount: bigint,
    public expiry: number,
    public apiExpiry: number,
    public salt: string,
    public isMakerBettingOutcomeOne: boolean,
    public signature: string,
    public persistence: OrderPersistence,
    public status: OrderStatus,
    public seq: number,
    public createdAt: number,
    public updatedAt: number,
    public pendingFills: Map<string, bigint>,
  ) {}
}

/** One side of a matched pair, as recorded when its fill was accepted (see TradeFacts). */
export class TradeRecord implements TradeFacts {
  declare readonly quarterLineParentMarketHash?: string;

  constructor(
    readonly id: string,
    readonly fillHash: string,
    readonly orderHash: string,
    readonly marketHash: string,
    readonly exchangeEventId: string,
    readonly baseToken: string,
    readonly bettor: string,
    readonly counterparty: string,
    readonly maker: boolean,
    readonly bettingOutcomeOne: boolean,
    readonly stake: bigint,
    readonly counterStake: bigint,
    readonly odds: bigint,
    readonly betTime: number,
    readonly affiliate: string,
    quarterLineParentMarketHash: string | undefined,
  ) {
    if (quarterLineParentMarketHash !== undefined) (this as { quarterLineParentMarketHash?: string }).quarterLineParentMarketHash = quarterLineParentMarketHash;
  }
}

/** One maker order's part of a fill. */
export class MatchRecord implements FillMatch {
  constructor(
    readonly orderHash: string,
    readonly maker: string,
    readonly makerStake: bigint,
    readonly takerStake: bigint,
    readonly odds: bigint,
  ) {}
}

const NO_TRADES: PendingTrade[] = [];

/**
 * A fill waiting for the chain (see FillRecord); its trades are set once recorded. The fields are FillRecord's,
 * declared there once (the interface merges into the class), and assigned in the order the record's literal had,
 * so a copy of it (snapshots) lists its keys as before.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type
export interface PendingFillRecord extends FillRecord {}
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class PendingFillRecord {
  constructor(
    fillHash: string,
    taker: string,
    marketHash: string,
    baseToken: string,
    isTakerBettingOutcomeOne: boolean,
    fillSalt: string,
    acceptedAt: number,
    matches: MatchRecord[],
    totalTakerStake: bigint,
  ) {
    this.fillHash = fillHash;
    this.taker = taker;
    this.marketHash = marketHash;
    this.baseToken = baseToken;
    this.isTakerBettingOutcomeOne = isTakerBettingOutcomeOne;
    this.fillSalt = fillSalt;
    this.status = 'PENDING';
    this.acceptedAt = acceptedAt;
    this.matches = matches;
    // The engine sets the fill's trades once they are all recorded.
    this.trades = NO_TRADES;
    this.totalTakerStake = totalTakerStake;
  }
}
