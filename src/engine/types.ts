// State, commands and events of the trading engine. Money is bigint; time is milliseconds carried on commands.

export type OrderStatus = 'ACTIVE' | 'INACTIVE' | 'FILLED' | 'CANCELLED' | 'EXPIRED';
export type TradeStatus = 'PENDING' | 'SUCCESS' | 'FAILED';
export type Outcome = 0 | 1 | 2;
/** What an order does when its fixture goes live: LAPSE (cancelled at kick-off) or PERSIST (rests into play). */
export type OrderPersistence = 'LAPSE' | 'PERSIST';
/**
 * Why an order was cancelled: its maker's signed cancel (or replace), its maker's heartbeat lapsing, its fixture
 * going live (a LAPSE order, or any order of a market closed in play), the operator cancelling the market's orders,
 * the market's report, or its maker's balance no longer covering it.
 */
export type OrderCancelReason = 'maker_cancel' | 'heartbeat_expired' | 'kick_off' | 'operator' | 'market_reported' | 'insufficient_balance';

/**
 * An order's signed terms: declared once here. The command that posts it (NewOrder), the change record that adds it
 * (OrderFacts), its view (OrderView) and the read side's row all derive from these fields.
 */
export interface SignedOrderTerms {
  orderHash: string;
  marketHash: string;
  maker: string;
  baseToken: string;
  executor: string;
  totalBetSize: bigint;
  percentageOdds: bigint;
  expiry: number;
  apiExpiry: number;
  salt: string;
  isMakerBettingOutcomeOne: boolean;
  signature: string;
}

/** An order as the exchange took it: its terms, its fixture, what it does at kick-off and its place in time. */
export interface OrderPosting extends SignedOrderTerms {
  exchangeEventId: string;
  persistence: OrderPersistence;
  /** Global insertion sequence: time priority within a price. */
  seq: number;
  createdAt: number;
}

/** An order's fill state: what changes after it is posted. */
export interface OrderFillState {
  /** Maker space matched by fills that confirmed on chain. */
  fillAmount: bigint;
  /** Maker space matched by fills accepted but not yet confirmed. */
  pendingFillAmount: bigint;
  status: OrderStatus;
  /** Set on a CANCELLED order only. */
  cancelReason?: OrderCancelReason;
  updatedAt: number;
}

/** An order and its fill state. */
export interface OrderView extends OrderPosting, OrderFillState {}

/** The engine's own order: the view plus its pending fills. Routes and the feed get copies (OrderView). */
export interface Order extends OrderView {
  /** Pending fills on this order: fillHash -> maker space. */
  pendingFills: Map<string, bigint>;
}

/** A trade as recorded when its fill was accepted: what does not change until settlement. */
export type PendingTrade = Readonly<Omit<Trade, 'status' | 'updatedAt' | 'settled' | 'settleDate' | 'settleTxHash' | 'outcome' | 'payout' | 'credit'>>;

/** One side of one matched (order, fill) pair. A pair yields a maker trade and a taker trade. */
export interface Trade {
  id: string;
  fillHash: string;
  orderHash: string;
  /** The market the bet settles on (a leg market for quarter-line bets). */
  marketHash: string;
  /** Set on quarter-line legs: the quarter-line market the bet was placed on. */
  quarterLineParentMarketHash?: string;
  exchangeEventId: string;
  baseToken: string;
  bettor: string;
  /** The counterparty of this pair (maker for the taker trade and vice versa). */
  counterparty: string;
  maker: boolean;
  bettingOutcomeOne: boolean;
  stake: bigint;
  /** The counterparty's stake in this pair; the winner takes stake + counterStake. */
  counterStake: bigint;
  odds: bigint;
  status: TradeStatus;
  betTime: number;
  updatedAt: number;
  affiliate: string;
  settled: boolean;
  settleDate?: number;
  settleTxHash?: string;
  outcome?: Outcome;
  /** Wei paid to the bettor at settlement for this trade (before refunds are netted). */
  payout?: bigint;
  /** Wei settlement actually credited for this trade: payout less its share of refunds paid earlier and of the fee. */
  credit?: bigint;
  /** Wei of commission settlement took on this trade: its share of the fee on its bettor's winnings in the market. */
  fee?: bigint;
}

export interface FillRecord {
  fillHash: string;
  taker: string;
  marketHash: string;
  baseToken: string;
  isTakerBettingOutcomeOne: boolean;
  fillSalt: string;
  status: TradeStatus;
  acceptedAt: number;
  /** Per maker order: maker space and taker stake matched. */
  matches: { orderHash: string; maker: string; makerStake: bigint; takerStake: bigint; odds: bigint }[];
  /**
   * The fill's trades (maker and taker side of each match), until the fill executes: the facts recorded at
   * acceptance, shared with their change records (their status is the fill's).
   */
  trades: PendingTrade[];
  totalTakerStake: bigint;
  /** What the taker signed, kept so an on-chain executor can prove the fill. */
  signed?: SignedFill;
  /** Set on a cash out: the fill hedges its taker's position in its market, paid at once when it executes. */
  cashOut?: CashOutTerms;
  /** Transactions that carried this fill to the chain, oldest first, and when the last was sent. */
  attempts?: string[];
  lastAttemptAt?: number;
  /** The transaction that executed (or failed) the fill, and the revert reason of a failure. */
  txHash?: string;
  failureReason?: string;
}

/** The taker's signed request as sent: strings exactly as signed, amounts as parsed. */
export interface SignedFill {
  market: string;
  baseToken: string;
  stakeWei: bigint;
  desiredOdds: bigint;
  oddsSlippage: number;
  takerSig: string;
}

/** What an on-chain settlement reported for one fill. */
export interface ChainExecution {
  executed: boolean;
  /** Absent when the fill never reached the chain (it could not be presented). */
  txHash?: string;
  reason?: string;
}

/**
 * One thing the settlement chain did, as its adapter reports it. A chainEvents command carries a block range's
 * entries in log order, so a wallet's allowance or balance is what it was on chain when each fill executed.
 */
export type ChainEntry =
  /** A token transfer as one wallet saw it; `allowanceSpent` when the transfer proxy pulled it (a fill's stake). */
  | { kind: 'wallet'; address: string; delta: bigint; allowanceSpent?: bigint }
  /** An allowance set for the transfer proxy (absolute). */
  | { kind: 'approval'; owner: string; amount: bigint }
  /** One of our fills executed or failed on chain. */
  | { kind: 'fill'; fillHash: string; execution: ChainExecution }
  /** The escrow paid a bettor's position in a reported market, in transaction `txHash`. */
  | { kind: 'claim'; marketHash: string; bettor: string; txHash: string }
  /** The escrow paid the capital-efficiency refund the engine numbered `refundId`, in transaction `txHash`. */
  | { kind: 'refund'; refundId: number; txHash: string };

export interface Heartbeat {
  requestor: string;
  timeoutSeconds: number;
  expiresAt: number;
}

export interface EngineParams {
  oddsLadderStepSize: number;
  makerMinimum: bigint;
  takerMinimum: bigint;
  /** Cancel timestamps further than this from the command time are stale. */
  cancelMaxSkewSeconds: number;
  baseToken: string;
  /** The affiliate every trade names: it receives the affiliate share of the fees on them. */
  affiliate: string;
  /** Shortfalls (orders removed for insufficient balance) within this window that restrict an account... */
  restrictionWindowMs: number;
  /** ...when they reach this count... */
  restrictionThreshold: number;
  /** ...for this long. */
  restrictionMs: number;
  /** How many recent fills the engine remembers for replay protection (older ones: the read side). */
  recentFillWindow?: number;
  /** How many closed orders the engine remembers to refuse a repost; older ones are checked on the read side. */
  recentClosedOrderWindow?: number;
  /** Wallets live on an EVM chain (the engine mirrors them from chain commands) rather than in the in-process ledger. */
  walletsOnChain?: boolean;
}

export interface AccountRestriction {
  address: string;
  /** Times of recent shortfalls, oldest first. */
  shortfalls: number[];
  restrictedUntil: number | null;
}

/** What the engine needs to know about a market; the catalogue supplies it on the command. */
export interface MarketRef {
  marketHash: string;
  exchangeEventId: string;
  /** False for suspended or reported markets. */
  tradeable: boolean;
  /** False: takes no orders or fills while its fixture is in play. */
  liveEnabled?: boolean;
  /** Quarter-line markets split fills onto these leg markets: [lower line, higher line]. */
  legs?: [string, string];
}

export interface NewOrder extends SignedOrderTerms {
  /** Set only to PERSIST: absent is LAPSE, so ordinary orders journal as they did before the field existed. */
  persistence?: 'PERSIST';
}

/** A market's status as the operator sets it (SETTLED comes only from a report). */
export type MarketLifeStatus = 'ACTIVE' | 'SUSPENDED';

export interface FixtureStatusChange {
  exchangeEventId: string;
  status: number;
}

/** A market's result as reported: the outcome, and the final score when the report came with one. */
export interface MarketResult {
  marketHash: string;
  outcome: Outcome;
  teamOneScore?: number;
  teamTwoScore?: number;
}

/**
 * What a report charges: each market's commission rate (basis points of a bettor's net winnings there; a market
 * absent pays none), the account it is paid to and the affiliates' share of it (basis points of the fee). Carried on
 * the command, so replaying the journal charges what was charged live whatever the settings are now.
 */
export interface SettlementFees {
  bpsByMarket: Record<string, number>;
  account: string;
  affiliateShareBps: number;
}

/**
 * What a cash out charges: `feeBps` basis points of its value (ODDEX_CASHOUT_FEE_BPS), paid to `feeAccount` less the
 * affiliate's `affiliateShareBps` of it. Carried on the fill command, so replay charges what was charged live.
 */
export interface CashOutTerms {
  feeBps: number;
  feeAccount: string;
  affiliateShareBps: number;
}

/**
 * Every command may carry the id of the gateway request it came in (NATS), journaled with it: a sequencer that takes
 * over answers a repeat of that request with the result it had, rather than a second application. The engine ignores it.
 */
export interface CommandOrigin {
  requestId?: string;
}

export type Command = CommandOrigin &
  (
    | { kind: 'faucet'; at: number; address: string; amount: bigint }
    | { kind: 'transfer'; at: number; from: string; to: string; amount: bigint }
    | { kind: 'postOrders'; at: number; orders: NewOrder[]; markets: MarketRef[] }
    | {
        kind: 'fill';
        at: number;
        fillHash: string;
        market: MarketRef;
        taker: string;
        baseToken: string;
        isTakerBettingOutcomeOne: boolean;
        stakeWei: bigint;
        desiredOdds: bigint;
        oddsSlippage: number;
        fillSalt: string;
        signed?: SignedFill;
        /** Unsigned, narrowing what the signature allows: fill the whole stake or refuse. */
        fillOrKill?: true;
        /** Unsigned, narrowing what the signature allows: refuse a fill matching less taker stake than this (wei). */
        minStakeWei?: bigint;
        /**
         * Signed (cashOutTarget = the market hash): the fill is a cash out, the hedge of the taker's confirmed position
         * in the market, refused unless it is one; its terms are the cash-out fee's.
         */
        cashOut?: CashOutTerms;
      }
    | { kind: 'confirmFill'; at: number; fillHash: string; chain?: ChainExecution }
    | { kind: 'fillAttempt'; at: number; fillHashes: string[]; txHash: string }
    /**
     * A block range's events. `fromBlock` (absent in commands journaled before it was recorded) makes a range that
     * overlaps one applied already a refusal (CHAIN_EVENTS_ALREADY_APPLIED) rather than its wallet moves counted twice:
     * two chain adapters' reports may cross at a settlement process's takeover.
     */
    | {
        kind: 'chainEvents';
        at: number;
        fromBlock?: number;
        toBlock: number;
        /** The hash block `toBlock` had (absent in rows journaled before hashes were): a restart checks it is still there. */
        toBlockHash?: string;
        entries: ChainEntry[];
      }
    | { kind: 'cancelOrders'; at: number; maker: string; salt: string; timestamp: number; orderHashes: string[] }
    | { kind: 'cancelEvent'; at: number; maker: string; salt: string; timestamp: number; exchangeEventId: string }
    | { kind: 'cancelAll'; at: number; maker: string; salt: string; timestamp: number }
    /**
     * A maker's signed cancel of `orderHashes` and its new `orders` (all the maker's), applied together or not at all:
     * refused, with nothing changed, unless every new order would post (status OK) once the cancel is done.
     */
    | { kind: 'replaceOrders'; at: number; maker: string; salt: string; timestamp: number; orderHashes: string[]; orders: NewOrder[]; markets: MarketRef[] }
    | { kind: 'heartbeat'; at: number; requestor: string; timeoutSeconds: number }
    | { kind: 'expire'; at: number }
    /**
     * Reports results; `suspend` lists markets that must stop trading with them (quarter-line parents of one leg), and
     * `finishedFixture` the fixture whose result this is and its new status.
     */
    | { kind: 'reportMarkets'; at: number; reports: MarketResult[]; suspend?: string[]; finishedFixture?: FixtureStatusChange; fees?: SettlementFees }
    /** The operator suspends or reopens markets. */
    | { kind: 'setMarketStatus'; at: number; marketHashes: string[]; status: MarketLifeStatus }
    /**
     * A fixture's status changed. While `inPlay`, its markets not enabled for in-play betting refuse orders and fills,
     * and going in play cancels the resting orders of `closedInPlay` (those markets) and the LAPSE orders of
     * `lapseInPlay` (its other open markets). Commands journaled before order persistence existed have no
     * `lapseInPlay`: they lapsed nothing, and replay must do the same.
     */
    | { kind: 'setFixtureStatus'; at: number; exchangeEventId: string; status: number; inPlay: boolean; closedInPlay: string[]; lapseInPlay?: string[] }
    /** Cancels every open order on these markets (e.g. pre-game quotes when the fixture goes live). */
    | { kind: 'cancelMarketOrders'; at: number; marketHashes: string[] }
    | { kind: 'liftRestriction'; at: number; address: string }
  );

export type OrderStatusCode = 'OK' | 'INSUFFICIENT_BALANCE' | 'INVALID_MARKET' | 'ORDERS_ALREADY_EXIST' | 'ORDER_WOULD_CROSS';

export interface CancelResult {
  cancelledCount: number;
  orders: { orderHash: string; pendingFills: { fillHash: string; pendingFillAmount: string }[] }[];
  notCancelled: { orderHash: string; reason: 'not_found_or_inactive' | 'already_pending_cancel' | 'order_locked' | 'update_failed' }[];
}

export interface FillResult {
  fillHash: string;
  isPartialFill: boolean;
  totalFilled: bigint;
  averageOdds: bigint;
}

export interface HeartbeatResult {
  requestor: string;
  timeoutSeconds: number;
  expiresAt: number | null;
}

type None = { kind: 'none' };
type CancelOutcome = { kind: 'cancel'; cancel: CancelResult };

/** The typed result of each command kind. */
export interface CommandResults {
  faucet: None;
  transfer: None;
  postOrders: { kind: 'postOrders'; statuses: { orderHash: string; status: OrderStatusCode }[] };
  fill: { kind: 'fill'; fill: FillResult };
  confirmFill: None;
  fillAttempt: None;
  chainEvents: None;
  cancelOrders: CancelOutcome;
  cancelEvent: CancelOutcome;
  cancelAll: CancelOutcome;
  replaceOrders: { kind: 'replaceOrders'; cancel: CancelResult; statuses: { orderHash: string; status: OrderStatusCode }[] };
  heartbeat: { kind: 'heartbeat'; heartbeat: HeartbeatResult };
  expire: None;
  reportMarkets: None;
  setMarketStatus: None;
  setFixtureStatus: None;
  cancelMarketOrders: None;
  liftRestriction: None;
}

export type ResultOf<C extends Command> = CommandResults[C['kind']];
export type CommandResult = CommandResults[keyof CommandResults];

export interface BalanceView {
  balance: bigint;
  escrowed: bigint;
  openExposure: bigint;
  pendingTakerStake: bigint;
}
