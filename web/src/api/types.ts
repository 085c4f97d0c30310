// Wire records of the exchange API as the page reads them (spec section 2, DECISIONS.md). Amounts and odds stay
// decimal strings here; the page converts them to bigint where it computes.

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

export interface Fixture {
  eventId: string;
  participantOneName: string;
  participantTwoName: string;
  startDate: string;
  status: number;
  leagueId: number;
  leagueLabel: string;
  sportId: number;
}

export interface SearchHit {
  eventId: string;
  gameTime: number;
  teamOneName: string;
  teamTwoName: string;
  sportId: number;
  leagueId: number;
  leagueLabel: string;
  type: number[];
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
  mainLine?: boolean;
  isQuarterLineMarket?: boolean;
  reportedDate?: string;
  outcome?: number;
  teamOneScore?: number;
  teamTwoScore?: number;
}

export type OrderStatus = 'ACTIVE' | 'INACTIVE' | 'FILLED' | 'CANCELLED' | 'EXPIRED';

export interface Order {
  orderHash: string;
  marketHash: string;
  maker: string;
  totalBetSize: string;
  percentageOdds: string;
  fillAmount: string;
  pendingFillAmount: string;
  baseToken: string;
  executor: string;
  expiry: number;
  apiExpiry: number;
  salt: string;
  isMakerBettingOutcomeOne: boolean;
  signature: string;
  exchangeEventId: string;
  orderStatus: OrderStatus;
  createdAt: string;
  updatedAt: string;
}

/** An order as published on order_book and active_orders channels. */
export interface OrderUpdate extends Order {
  status: string;
  updateTime: number;
}

export type TradeStatus = 'PENDING' | 'SUCCESS' | 'FAILED';

export interface Trade {
  _id: string;
  baseToken: string;
  bettor: string;
  stake: string;
  normalizedStake: string;
  odds: string;
  orderHash: string;
  marketHash: string;
  maker: boolean;
  bettingOutcomeOne: boolean;
  settled: boolean;
  fillHash: string;
  tradeStatus: TradeStatus;
  outcome?: number;
  settleDate?: string;
  netReturn?: string;
  exchangeEventId: string;
  betTime: number;
  createdAt: string;
}

export interface Metadata {
  executorAddress: string;
  makerOrderMinimums: Record<string, string>;
  takerMinimums: Record<string, string>;
  addresses: Record<string, Record<string, string>>;
  EIP712FillHasher: string;
  oddsLadderStepSize: number;
  domainVersion: string;
  chainId: number;
  domainNames: { fill: string; cancelV2: string; cancelEvent: string; cancelAll: string };
}

export interface Balance {
  address: string;
  baseToken: string;
  balance: string;
  escrowed: string;
  openExposure: string;
}

export interface BestOddsEntry {
  marketHash: string;
  baseToken: string;
  outcomeOne?: { percentageOdds: string; updatedAt: number };
  outcomeTwo?: { percentageOdds: string; updatedAt: number };
}

export interface FillResult {
  fillHash: string;
  isPartialFill: boolean;
  totalFilled: string;
  averageOdds: string;
}

export interface PostOrdersResult {
  orders: string[];
  statuses: Record<string, string>;
  inserted: number;
}

export interface CancelResult {
  cancelledCount: number;
  orders: { orderHash: string; pendingFills: { fillHash: string; pendingFillAmount: string }[] }[];
  notCancelled: { orderHash: string; reason: string }[];
}

export interface RefundGroup {
  marketHash: string;
  baseToken: string;
  totalRefundedBetTimeValue: number;
  events: { marketHash: string; bettor: string; maker: boolean; fillOrderHash: string; amount: string; createdAt: string }[];
}

export interface LiveScore {
  exchangeEventId: string;
  currentPeriod: string;
  periodTime: string;
  teamOneScore: number;
  teamTwoScore: number;
  updatedAt: string;
}

export interface AccountView extends Balance {
  openOrders: number;
  restricted: boolean;
  restrictedUntil: string | null;
  recentShortfalls: string[];
}
