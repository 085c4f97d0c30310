// The exchange's records as the client returns them (spec section 2, DECISIONS.md): the wire fields, with
// wei amounts and 10^20-scaled odds as bigint. Human-unit fields stay as the server sends them.

export type Outcome = 0 | 1 | 2;

export interface Metadata {
  executorAddress: string;
  oracleFees: Record<string, Record<string, string>>;
  exchangeAffiliate: { address: string; amount: string };
  makerOrderMinimums: Record<string, string>;
  takerMinimums: Record<string, string>;
  addresses: Record<string, Record<string, string>>;
  EIP712FillHasher: string;
  TokenTransferProxy: string;
  oddsLadderStepSize: number;
  popularSports: number[];
  leagueOrderingBySport: Record<string, number[]>;
  /** The cash-out fee, basis points of a cash out's value. */
  cashoutFee: string;
  /** Where settlement pays its fees (absent on older servers). */
  feeAccount?: string;
  crosschainFees: Record<string, number>;
  chainVersion: string;
  domainVersion: string;
  chainId: number;
  domainNames: { fill: string; cancelV2: string; cancelEvent: string; cancelAll: string; parlayRequest: string };
  /** Demo mode on the local ledger: what `requestDemoFunds` grants; null (or absent, older servers) where it gives nothing. */
  demoFunds?: DemoFundsOffer | null;
  [more: string]: unknown;
}

/** Wei strings: one grant, and the balance plus escrow no grant lifts an address above. */
export interface DemoFundsOffer {
  amount: string;
  maxBalance: string;
}

/** What signing and validation need from /metadata, read once per client. */
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

export interface Market {
  status: string;
  marketHash: string;
  outcomeOneName: string;
  outcomeTwoName: string;
  outcomeVoidName: string;
  teamOneName: string;
  teamTwoName: string;
  type: number;
  gameTime: number;
  line?: number;
  exchangeEventId: string;
  liveEnabled: boolean;
  sportLabel: string;
  sportId: number;
  leagueId: number;
  leagueLabel: string;
  group1: string;
  chainVersion: string;
  mainLine?: boolean;
  isQuarterLineMarket?: boolean;
  reportedDate?: number | string;
  outcome?: number;
  teamOneScore?: number;
  teamTwoScore?: number;
  /** Parlay markets (type 999): the legs and the side the bettor picked on each. */
  legs?: ParlayLeg[];
  /** Parlay markets: what the request fixed, times in UNIX ms. */
  parlay?: ParlayTerms;
  [more: string]: unknown;
}

export interface ParlayLeg {
  marketHash: string;
  bettingOutcomeOne: boolean;
}

export interface ParlayTerms {
  bettor: string;
  baseToken: string;
  /** Wei, decimal string. */
  requestSize: string;
  requestedAt: number;
  /** Orders posted before this are shown together once it passes. */
  quoteWindowEndsAt: number;
  /** The parlay book refuses fills from this moment on. */
  fillDeadline: number;
}

/** A publication of parlay_markets:global: a request makers may quote by posting orders on `marketHash`. */
export interface ParlayRequest {
  marketHash: string;
  baseToken: string;
  requestSize: string;
  legs: ParlayLeg[];
}

export interface MarketPage {
  markets: Market[];
  nextKey?: string;
}

export interface SearchResult {
  eventId: string;
  gameTime: number;
  teamOneName: string;
  teamTwoName: string;
  sportId: number;
  leagueId: number;
  leagueLabel: string;
  type: number[];
}

export interface Sport {
  sportId: number;
  label: string;
}

export interface League {
  leagueId: number;
  label: string;
  sportId: number;
  active: boolean;
}

export interface Team {
  id: number;
  name: string;
  sport: { sportId: number; label: string; active: boolean };
}

export interface Fixture {
  participantOneName: string;
  participantTwoName: string;
  startDate: string;
  status: number;
  leagueId: number;
  leagueLabel: string;
  sportId: number;
  eventId: string;
}

/** A live score (spec 2.6): the same record the exchange's catalogue serves. */
export type { LiveScore } from '../../../src/catalogue/model.js';

export type OrderStatus = 'ACTIVE' | 'INACTIVE' | 'FILLED' | 'CANCELLED' | 'EXPIRED';

export interface Order {
  orderHash: string;
  marketHash: string;
  maker: string;
  totalBetSize: bigint;
  percentageOdds: bigint;
  fillAmount: bigint;
  pendingFillAmount: bigint;
  baseToken: string;
  executor: string;
  expiry: number;
  apiExpiry: number;
  salt: string;
  isMakerBettingOutcomeOne: boolean;
  signature: string;
  /** LAPSE: cancelled when the fixture goes live; PERSIST: stays on the book into play. */
  persistence: 'LAPSE' | 'PERSIST';
  exchangeEventId: string;
  orderStatus: OrderStatus;
  createdAt: string;
  updatedAt: string;
}

export interface BestOddsSide {
  percentageOdds: bigint;
  updatedAt: number;
}

export interface BestOdds {
  marketHash: string;
  baseToken: string;
  /** Best maker odds on outcome one (a taker backing outcome two gets the complement); absent without orders. */
  outcomeOne?: BestOddsSide;
  outcomeTwo?: BestOddsSide;
}

/** Candle widths of GET /markets/:marketHash/history. */
export type CandleInterval = '1m' | '5m' | '1h' | '1d';

/**
 * One interval of a market's price history: the odds of outcome one that takers traded at (10^20 scale: a taker
 * backing outcome two at p trades outcome one at 10^20 - p), both sides' matched stakes, and the best maker odds
 * per side as of the interval's last book change (null: that side had none).
 */
export interface Candle {
  /** UNIX seconds of the interval start. */
  time: number;
  open: bigint;
  high: bigint;
  low: bigint;
  close: bigint;
  volume: bigint;
  bestMakerOddsOutcomeOne: bigint | null;
  bestMakerOddsOutcomeTwo: bigint | null;
}

export type TradeStatus = 'PENDING' | 'SUCCESS' | 'FAILED';

export interface Trade {
  baseToken: string;
  bettor: string;
  stake: bigint;
  normalizedStake: string;
  odds: bigint;
  orderHash: string;
  marketHash: string;
  maker: boolean;
  bettingOutcomeOne: boolean;
  settled: boolean;
  betTimeValue: number;
  settleValue: number;
  fillHash: string;
  tradeStatus: TradeStatus;
  valid: boolean;
  betType: number;
  settleDate?: string;
  outcome?: number;
  settleTxHash?: string;
  contractsVersion: string;
  fillOrderHash: string;
  chainVersion: string;
  exchangeEventId: string;
  netReturn: string;
  settleNetReturnValue: string;
  /** Once settled: the commission taken on the trade's winnings (wei); netReturn is after it. */
  fee?: bigint;
  marketHasRefunds: boolean;
  isQuarterLineLeg: boolean;
  quarterLineParentMarketHash?: string;
  /** The taker's trades of a cash out's fill: what the cash out paid at once (before its fee) and the fee (wei). */
  cashOutAmount?: bigint;
  cashOutFee?: bigint;
  /** UNIX seconds on /trades, ISO 8601 on /trades/orders. */
  betTime: number | string;
  _id?: string;
  id?: string;
  [more: string]: unknown;
}

export interface TradePage {
  trades: Trade[];
  nextKey?: string;
  pageSize?: number;
}

export interface ConsolidatedTrade {
  baseToken: string;
  bettor: string;
  marketHash: string;
  fillHash: string;
  tradeStatus: 'SUCCESS' | 'FAILED';
  totalStake: string;
  weightedAverageOdds: bigint;
  netReturn: string;
  totalReturn: string;
  /** Once settled: the commission taken on the entry's trades, in base-token units. */
  fee?: string;
  maker: boolean;
  settled: boolean;
  bettingOutcome: number;
  bettingOutcomeLabel: string;
  gameLabel: string;
  exchangeEventId: string;
  betTime: number;
  isQuarterLineParent: boolean;
  isQuarterLineLeg: boolean;
  quarterLineFillHash: string | null;
  [more: string]: unknown;
}

export interface RefundEvent {
  marketHash: string;
  baseToken: string;
  bettor: string;
  maker: boolean;
  fillOrderHash: string;
  amount: bigint;
  amountBetTimeValue: string;
  createdAt: string;
}

export interface RefundGroup {
  marketHash: string;
  baseToken: string;
  totalRefundedBetTimeValue: number;
  events: RefundEvent[];
}

/** A bettor's position in one market (GET /positions); amounts in base-token wei. */
export interface Position {
  marketHash: string;
  exchangeEventId: string;
  baseToken: string;
  stakeOutcomeOne: bigint;
  stakeOutcomeTwo: bigint;
  /** Stakes of fills still waiting for the chain (in no other figure). */
  pendingStake: bigint;
  payoutIfOutcomeOne: bigint;
  payoutIfOutcomeTwo: bigint;
  payoutIfVoid: bigint;
  escrow: bigint;
  refunds: bigint;
  /** What cash outs of the position paid at once (before their fees), and those fees. */
  cashedOut: bigint;
  cashOutFees: bigint;
  settled: boolean;
  outcome?: number;
  /** Settled: what the position paid in all (refunds included), the commission on its winnings, and profit after both. */
  payout?: bigint;
  fees?: bigint;
  settledProfit?: bigint;
  lastTradeTime: string;
}

export type StatementKind = 'deposit' | 'withdrawal' | 'stake' | 'refund' | 'cashout' | 'payout' | 'fee';

/** One movement of a wallet's balance (GET /account/statement), with the balance after it. */
export interface StatementEntry {
  id: number;
  kind: StatementKind;
  /** Negative when funds left the balance. */
  amount: bigint;
  balance: bigint;
  marketHash?: string;
  tradeId?: string;
  refundId?: number;
  time: string;
}

export interface Balance {
  address: string;
  baseToken: string;
  balance: bigint;
  escrowed: bigint;
  openExposure: bigint;
  pendingTakerStake: bigint;
}

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

export interface FillResult {
  fillHash: string;
  isPartialFill: boolean;
  totalFilled: bigint;
  averageOdds: bigint;
}

export interface CancelResult {
  cancelledCount: number;
  orders: { orderHash: string; pendingFills: { fillHash: string; pendingFillAmount: bigint }[] }[];
  notCancelled: { orderHash: string; reason: string }[];
}

export interface Heartbeat {
  requestor: string;
  timeoutSeconds: number;
  expiresAt: string;
}

/** An API key as issued: the key itself is shown this once (the exchange keeps only its hash). */
export interface NewApiKey {
  id: string;
  apiKey: string;
  address: string;
}

/** A live API key in its owner's listing. */
export interface ApiKeyInfo {
  id: string;
  /** ISO 8601. */
  createdAt: string;
}

/**
 * GET /cashout/quote: the hedge fill that makes a position pay the same whichever outcome wins (its side, stake and
 * worst taker odds), what the hedged position is worth now after the cash-out fee (`amount`), and that fee; wei.
 */
export interface CashOutQuote {
  marketHash: string;
  isTakerBettingOutcomeOne: boolean;
  stakeWei: bigint;
  desiredOdds: bigint;
  amount: bigint;
  fee: bigint;
  /** What a cash out taking this hedge pays at once when it confirms, after fee: what the position is owed in every result. */
  paidNow: bigint;
}
