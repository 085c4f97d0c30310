// The exchange's records as the client returns them (spec section 2, DECISIONS.md). Each is derived from the TypeBox
// schema the server answers with (src/protocol/wire, the wire schemas shared by both): the wire fields, with wei
// amounts and 10^20-scaled odds as bigint where the client converts them (parse.ts). Only types cross: the
// schemas are imported with `import type`, so no schema code (and no TypeBox) is in the package's JavaScript;
// tsup inlines the few TypeBox types the declarations use (tsup.config.ts). test/sdk-wire-types.test.ts fails
// when a type here and the server's schema disagree.
import type { Static } from '@sinclair/typebox';
import type { Position as PositionSchema, StatementEntry as StatementEntrySchema } from '../../../src/protocol/wire/account.js';
import type { Account as AccountSchema, ApiKeyCreated, OwnedApiKey } from '../../../src/protocol/wire/admin.js';
import type {
  Fixture as FixtureSchema,
  League as LeagueSchema,
  LiveScore as LiveScoreSchema,
  Market as MarketSchema,
  MarketPage as MarketPageSchema,
  ParlayLeg as ParlayLegSchema,
  SearchResult as SearchResultSchema,
  Sport as SportSchema,
  Team as TeamSchema,
} from '../../../src/protocol/wire/catalogue.js';
import type { Candle as CandleSchema } from '../../../src/protocol/wire/history.js';
import type { Metadata as MetadataSchema } from '../../../src/protocol/wire/metadata.js';
import type { ParlayRequestBroadcast } from '../../../src/protocol/wire/realtime.js';
import type {
  ConsolidatedTrade as ConsolidatedTradeSchema,
  OrderTrade as OrderTradeSchema,
  RefundEvent as RefundEventSchema,
  RefundsPage as RefundsPageSchema,
  Trade as TradeSchema,
  TradesPage as TradesPageSchema,
} from '../../../src/protocol/wire/trades.js';
import type {
  Balance as BalanceSchema,
  BestOdds as BestOddsSchema,
  CancelResult as CancelResultSchema,
  CashOutQuote as CashOutQuoteSchema,
  FillResult as FillResultSchema,
  Heartbeat as HeartbeatSchema,
  Order as OrderSchema,
} from '../../../src/protocol/wire/trading.js';

/** A decimal string of the wire as the client holds it: bigint (null and absence stay as they are). */
export type BigintOf<T> = T extends string ? bigint : T;

/** A wire record `W` with its fields `K` (decimal-string wei or odds) as bigint; every other field as sent. */
export type Bigints<W, K extends keyof W> = { [P in keyof W]: P extends K ? BigintOf<W[P]> : W[P] };

/** A wire record `W` with some fields given a narrower (or converted) type `O`; names and optionality stay W's. */
export type Narrowed<W, O extends { [P in keyof O]: P extends keyof W ? unknown : never }> = {
  [P in keyof W]: P extends keyof O ? O[P] : W[P];
};

/** Fields a newer server may add, readable without a cast (the records that grow additively). */
export interface Additive {
  [more: string]: unknown;
}

export type Outcome = 0 | 1 | 2;

type WireMetadata = Static<typeof MetadataSchema>;

/**
 * GET /metadata. `feeAccount`, `demoFunds` and `bettingDelays` are optional here: older servers leave them out. `oracleFees` maps a
 * token to keys 0-3; `cashoutFee` is basis points of a cash out's value; `demoFunds` is what `requestDemoFunds`
 * grants, null where it gives nothing.
 */
export type Metadata = Omit<WireMetadata, 'feeAccount' | 'demoFunds' | 'bettingDelays'> & Partial<Pick<WireMetadata, 'feeAccount' | 'demoFunds' | 'bettingDelays'>> & Additive;


/** Wei strings: one grant, and the balance plus escrow no grant lifts an address above. */
export type DemoFundsOffer = NonNullable<WireMetadata['demoFunds']>;

/** What signing and validation need from /metadata, read once per client (the client's own record, no wire twin). */
export interface ExchangeParams {
  chainId: number;
  baseToken: string;
  baseTokenSymbol: string;
  executor: string;
  fillHasher: string;
  domainVersion: string;
  domainNames: Metadata['domainNames'];
  oddsLadderStepSize: number;
  makerMinimum: bigint;
  takerMinimum: bigint;
}

/** A market; parlay markets (type 999) also carry `legs` (the side the bettor picked on each) and `parlay` (the request's terms, times in UNIX ms). */
export type Market = Static<typeof MarketSchema> & Additive;

export type ParlayLeg = Static<typeof ParlayLegSchema>;

/** What a parlay request fixed: `requestSize` in wei; orders posted before `quoteWindowEndsAt` are shown together once it passes; the parlay book refuses fills from `fillDeadline` on. */
export type ParlayTerms = NonNullable<Static<typeof MarketSchema>['parlay']>;

/** A publication of parlay_markets:global: a request makers may quote by posting orders on `marketHash`. */
export type ParlayRequest = Static<typeof ParlayRequestBroadcast>;

export type MarketPage = Narrowed<Static<typeof MarketPageSchema>, { markets: Market[] }>;

export type SearchResult = Static<typeof SearchResultSchema>;

export type Sport = Static<typeof SportSchema>;

export type League = Static<typeof LeagueSchema>;

export type Team = Static<typeof TeamSchema>;

export type Fixture = Static<typeof FixtureSchema>;

/** A live score (spec 2.6): the same record the exchange's catalogue serves. */
export type LiveScore = Static<typeof LiveScoreSchema>;

export type OrderStatus = 'ACTIVE' | 'INACTIVE' | 'FILLED' | 'CANCELLED' | 'EXPIRED';

/** An order; `persistence` LAPSE: cancelled when the fixture goes live; PERSIST: stays on the book into play. */
export type Order = Bigints<
  Narrowed<Static<typeof OrderSchema>, { orderStatus: OrderStatus }>,
  'totalBetSize' | 'percentageOdds' | 'fillAmount' | 'pendingFillAmount'
>;

type WireBestOdds = Static<typeof BestOddsSchema>['bestOdds'][number];

export type BestOddsSide = Bigints<NonNullable<WireBestOdds['outcomeOne']>, 'percentageOdds'>;

/** Best maker odds per side: `outcomeOne` on outcome one (a taker backing outcome two gets the complement); a side without orders is absent. */
export type BestOdds = Narrowed<WireBestOdds, { outcomeOne: BestOddsSide; outcomeTwo: BestOddsSide }>;

/** Candle widths of GET /markets/:marketHash/history. */
export type CandleInterval = '1m' | '5m' | '1h' | '1d';

/**
 * One interval of a market's price history: the odds of outcome one that takers traded at (10^20 scale: a taker
 * backing outcome two at p trades outcome one at 10^20 - p), both sides' matched stakes, and the best maker odds
 * per side as of the interval's last book change (null: that side had none). `time` is UNIX seconds of the interval start.
 */
export type Candle = Bigints<
  Static<typeof CandleSchema>,
  'open' | 'high' | 'low' | 'close' | 'volume' | 'bestMakerOddsOutcomeOne' | 'bestMakerOddsOutcomeTwo'
>;

export type TradeStatus = 'PENDING' | 'SUCCESS' | 'FAILED';

/** An item of GET /trades (`betTime` UNIX seconds); once settled, `fee` is the commission on its winnings (wei) and netReturn is after it. */
export type Trade = Bigints<Narrowed<Static<typeof TradeSchema>, { tradeStatus: TradeStatus }>, 'stake' | 'odds' | 'fee' | 'cashOutAmount' | 'cashOutFee'> & Additive;

/** An item of GET /trades/orders (`betTime` ISO 8601). */
export type OrderTrade = Bigints<Narrowed<Static<typeof OrderTradeSchema>, { tradeStatus: TradeStatus }>, 'stake' | 'odds' | 'fee'> & Additive;

export type TradePage = Narrowed<Static<typeof TradesPageSchema>, { trades: Trade[] }>;

/** An entry of GET /trades/consolidated; once settled, `fee` is the commission on the entry's trades (base-token units). */
export type ConsolidatedTrade = Bigints<
  Narrowed<Static<typeof ConsolidatedTradeSchema>, { tradeStatus: 'SUCCESS' | 'FAILED' }>,
  'weightedAverageOdds'
> &
  Additive;

export type RefundEvent = Bigints<Static<typeof RefundEventSchema>, 'amount'>;

export type RefundGroup = Narrowed<Static<typeof RefundsPageSchema>['results'][number], { events: RefundEvent[] }>;

/**
 * A bettor's position in one market (GET /positions); amounts in base-token wei. `pendingStake`: stakes of fills
 * still waiting for the chain (in no other figure). Settled: `payout` (refunds included), `fees` (the commission on
 * its winnings) and `settledProfit` after both.
 */
export type Position = Bigints<
  Static<typeof PositionSchema>,
  | 'stakeOutcomeOne'
  | 'stakeOutcomeTwo'
  | 'pendingStake'
  | 'payoutIfOutcomeOne'
  | 'payoutIfOutcomeTwo'
  | 'payoutIfVoid'
  | 'escrow'
  | 'refunds'
  | 'cashedOut'
  | 'cashOutFees'
  | 'payout'
  | 'fees'
  | 'settledProfit'
>;

/** One movement of a wallet's balance (GET /account/statement), with the balance after it; `amount` is negative when funds left. */
export type StatementEntry = Bigints<Static<typeof StatementEntrySchema>, 'amount' | 'balance'>;

export type StatementKind = StatementEntry['kind'];

export type Balance = Bigints<Static<typeof BalanceSchema>, 'balance' | 'escrowed' | 'openExposure' | 'pendingTakerStake'>;

/** An account as the operator sees it (GET /admin/accounts/:address). */
export type AccountView = Bigints<Static<typeof AccountSchema>, 'balance' | 'escrowed' | 'openExposure' | 'pendingTakerStake'>;

/** The client's summary of POST /orders/new (the wire's `orders` and `statuses` joined per order). */
export interface PostedOrder {
  orderHash: string;
  /** The server's status; a retry answered with ORDERS_ALREADY_EXIST is reported as OK. */
  status: string;
}

export interface PostOrdersResult {
  orders: PostedOrder[];
  /** Orders now in the book (OK, including those a retry found already there). */
  inserted: number;
}

export type FillResult = Bigints<Static<typeof FillResultSchema>, 'totalFilled' | 'averageOdds'>;

type WireCancel = Static<typeof CancelResultSchema>;
type WireCancelledOrder = WireCancel['orders'][number];

export type CancelResult = Narrowed<
  WireCancel,
  { orders: Narrowed<WireCancelledOrder, { pendingFills: Bigints<WireCancelledOrder['pendingFills'][number], 'pendingFillAmount'>[] }>[] }
>;

export type Heartbeat = Static<typeof HeartbeatSchema>;

/** An API key as issued: the key itself is shown this once (the exchange keeps only its hash). */
export type NewApiKey = Static<typeof ApiKeyCreated>;

/** A live API key in its owner's listing (`createdAt` ISO 8601). */
export type ApiKeyInfo = Static<typeof OwnedApiKey>;

/**
 * GET /cashout/quote: the hedge fill that makes a position pay the same whichever outcome wins (its side, stake and
 * worst taker odds), what the hedged position is worth now after the cash-out fee (`amount`), and that fee; wei.
 */
export type CashOutQuote = Bigints<Static<typeof CashOutQuoteSchema>, 'stakeWei' | 'desiredOdds' | 'amount' | 'fee' | 'paidNow' | 'uncoveredWei'>;
