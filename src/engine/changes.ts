// Change records: what one command did, in the order it happened. Plain values that nobody changes (readonly by
// type; not frozen at run time, which cost a runtime call per record on the engine's hot path), sharing nothing
// the engine changes later, so the read side, the realtime feed and tests consume them without ever touching
// engine state.
import type { MarketLifeStatus, Outcome, OrderFillState, OrderPosting, TradeStatus } from './types.js';

/** An order as posted (everything but its mutable fill state). */
export type OrderFacts = Readonly<OrderPosting>;

/** The mutable part of an order, as of the change. */
export type OrderState = Readonly<OrderFillState>;

/** A trade as recorded when its fill was accepted. */
export interface TradeFacts {
  readonly id: string;
  readonly fillHash: string;
  readonly orderHash: string;
  readonly marketHash: string;
  readonly quarterLineParentMarketHash?: string;
  readonly exchangeEventId: string;
  readonly baseToken: string;
  readonly bettor: string;
  readonly counterparty: string;
  readonly maker: boolean;
  readonly bettingOutcomeOne: boolean;
  readonly stake: bigint;
  readonly counterStake: bigint;
  readonly odds: bigint;
  readonly betTime: number;
  readonly affiliate: string;
}

export interface FillMatch {
  readonly orderHash: string;
  readonly maker: string;
  readonly makerStake: bigint;
  readonly takerStake: bigint;
  readonly odds: bigint;
}

export interface RefundPaid {
  readonly id: number;
  readonly marketHash: string;
  readonly baseToken: string;
  readonly bettor: string;
  /** Whether the bettor was the maker in the fill that freed the capital. */
  readonly maker: boolean;
  readonly fillOrderHash: string;
  readonly amount: bigint;
  readonly createdAt: number;
}

export type Change =
  | { readonly type: 'orderAdded'; readonly order: OrderFacts; readonly state: OrderState }
  | { readonly type: 'orderChanged'; readonly orderHash: string; readonly marketHash: string; readonly maker: string; readonly state: OrderState }
  | {
      readonly type: 'fillAccepted';
      readonly fillHash: string;
      readonly fillSalt: string;
      readonly taker: string;
      readonly marketHash: string;
      readonly acceptedAt: number;
      readonly totalTakerStake: bigint;
      readonly matches: readonly FillMatch[];
    }
  /**
   * The chain executed (or failed) a pending fill. A `tradeStatusChanged` for each of the fill's trades, with this
   * status and time, follows it in the same command (the read model writes them as one statement per fill).
   */
  | {
      readonly type: 'fillExecuted';
      readonly fillHash: string;
      readonly status: 'SUCCESS' | 'FAILED';
      readonly at: number;
      /** On chain: the transaction that executed (or failed) the fill, and the revert reason of a failure. */
      readonly txHash?: string;
      readonly failureReason?: string;
      /** The transactions that carried the fill (its `fillAttempted` records), when there were any. */
      readonly attempts?: readonly string[];
      readonly lastAttemptAt?: number;
    }
  /** A pending fill was sent to the chain in transaction `txHash`. */
  | { readonly type: 'fillAttempted'; readonly fillHash: string; readonly txHash: string; readonly at: number }
  | { readonly type: 'tradeRecorded'; readonly trade: TradeFacts }
  /** The trade's facts ride along (shared, not copied), so consumers never read back what was just written. */
  | { readonly type: 'tradeStatusChanged'; readonly tradeId: string; readonly status: TradeStatus; readonly at: number; readonly trade: TradeFacts }
  | {
      readonly type: 'tradeSettled';
      readonly tradeId: string;
      readonly outcome: Outcome;
      /** Stake back on void, stake plus the counterparty's stake on a win, 0 on a loss. */
      readonly payout: bigint;
      /** What settlement actually credited for this trade: its payout less its share of earlier refunds and its fee. */
      readonly credit: bigint;
      /** The commission taken on this trade's winnings (0 on a loss, a void or a market without fees). */
      readonly fee: bigint;
      readonly settleDate: number;
    }
  /**
   * A bettor's confirmed, unsettled trades in a reported market settled together: `payout` is what they pay under
   * `outcome`, `fee` the commission on the position's net winnings, `credit` what the ledger paid (payout less the
   * refunds paid earlier in the market and the fee). The engine keeps only a position's sums, so the read side splits
   * these over the trades it recorded (settleTrades, oldest first).
   */
  | {
      readonly type: 'positionSettled';
      readonly marketHash: string;
      readonly bettor: string;
      readonly outcome: Outcome;
      readonly payout: bigint;
      readonly credit: bigint;
      readonly fee: bigint;
      readonly settleDate: number;
    }
  /**
   * Settlement took a commission of `fee` on the bettor's winnings in the market: `fee - affiliateFee` went to
   * `feeAccount` and `affiliateFee` to `affiliate`. Emitted only when a fee was taken (fee > 0).
   */
  | {
      readonly type: 'feeCharged';
      readonly marketHash: string;
      readonly bettor: string;
      readonly fee: bigint;
      readonly feeAccount: string;
      readonly affiliate: string;
      readonly affiliateFee: bigint;
      readonly at: number;
    }
  /**
   * A cash out's hedge fill executed: the bettor was paid at once `amount`, what its position in the market is owed
   * in every result (outcome one, outcome two, a void) beyond what earlier cash outs paid, less the cash-out `fee`
   * (`credit` = amount - fee reached its wallet). `value` is what the hedge made the position worth (the fee's base)
   * and `hedgeStake` the fill's taker stake; `fee - affiliateFee` went to `feeAccount`, `affiliateFee` to `affiliate`.
   * Settlement later pays the rest of the position, less `amount`.
   */
  | {
      readonly type: 'cashedOut';
      readonly fillHash: string;
      readonly marketHash: string;
      readonly baseToken: string;
      readonly bettor: string;
      readonly hedgeStake: bigint;
      readonly value: bigint;
      readonly amount: bigint;
      readonly fee: bigint;
      readonly credit: bigint;
      readonly feeAccount: string;
      readonly affiliate: string;
      readonly affiliateFee: bigint;
      readonly at: number;
    }
  /**
   * An on-chain escrow paid the bettor's settled position in the market in transaction `txHash`: the trades' settle
   * transaction. (The in-process ledger pays inside the report command: no transaction, no such change.)
   */
  | { readonly type: 'positionPaidOnChain'; readonly marketHash: string; readonly bettor: string; readonly txHash: string; readonly at: number }
  /** An on-chain escrow paid the refund numbered `refundId` in transaction `txHash`. */
  | { readonly type: 'refundPaidOnChain'; readonly refundId: number; readonly txHash: string; readonly at: number }
  | { readonly type: 'refundPaid'; readonly refund: RefundPaid }
  | {
      readonly type: 'balanceChanged';
      readonly address: string;
      readonly balance: bigint;
      readonly escrowed: bigint;
      readonly openExposure: bigint;
      readonly pendingTakerStake: bigint;
    }
  | { readonly type: 'heartbeatSet'; readonly requestor: string; readonly timeoutSeconds: number; readonly expiresAt: number | null }
  | { readonly type: 'heartbeatExpired'; readonly requestor: string; readonly at: number }
  | {
      readonly type: 'marketReported';
      readonly marketHash: string;
      readonly outcome: Outcome;
      readonly at: number;
      readonly teamOneScore?: number;
      readonly teamTwoScore?: number;
    }
  | { readonly type: 'marketStatusChanged'; readonly marketHash: string; readonly status: MarketLifeStatus; readonly at: number }
  | { readonly type: 'fixtureStatusChanged'; readonly exchangeEventId: string; readonly status: number; readonly at: number }
  | {
      readonly type: 'restrictionChanged';
      readonly address: string;
      readonly restrictedUntil: number | null;
      /** The account's recent shortfalls, oldest first; absent in records journaled before shortfalls were recorded. */
      readonly shortfalls?: readonly number[];
    };

export type ChangeOf<T extends Change['type']> = Extract<Change, { type: T }>;
