// The catalogue's domain records: sports, leagues, teams, fixtures, markets, live scores.
import type { LiveScore, MarketStatus, ParlayTerms, Selection } from '../store/catalogue-records.js';

// The plain records a store keeps are declared below the catalogue, with its port (store/catalogue-records.ts).
export { FixtureStatus } from '../store/catalogue-records.js';
export type { Sport, League, Team, Fixture, FixtureStatusCode, ParlayLeg, ParlayTerms, Selection, MarketStatus, LiveScore } from '../store/catalogue-records.js';

/** Statuses GET /fixture/active (and /search, /live-scores without ids) treat as active. */
export const ACTIVE_FIXTURE_STATUSES: ReadonlySet<number> = new Set([1, 2, 6, 7, 8, 9]);

/** Market types Oddex offers. */
export const MarketType = {
  ONE_X_TWO: 1,
  TOTALS: 2,
  SPREAD: 3,
  MONEYLINE: 52,
  MONEYLINE_INCL_OVERTIME: 226,
  SPREAD_ALT: 342,
} as const;
export type MarketTypeCode = (typeof MarketType)[keyof typeof MarketType];
export const MARKET_TYPES: readonly number[] = Object.values(MarketType);
/** Types whose markets carry a line (and a mainLine flag). */
export const LINE_TYPES: ReadonlySet<number> = new Set([MarketType.TOTALS, MarketType.SPREAD, MarketType.SPREAD_ALT]);
export const SPREAD_TYPES: ReadonlySet<number> = new Set([MarketType.SPREAD, MarketType.SPREAD_ALT]);

/** Bet groups accepted by /markets/active?betGroup: each names a set of market types. */
export const BET_GROUPS: Readonly<Record<string, readonly number[]>> = {
  '1X2': [MarketType.ONE_X_TWO],
  'game-lines': [MarketType.MONEYLINE, MarketType.MONEYLINE_INCL_OVERTIME, MarketType.SPREAD, MarketType.SPREAD_ALT, MarketType.TOTALS],
};

/**
 * Parlay markets (POST /parlays/request) have a type of their own, outside MarketType: the operator never creates
 * one, and /markets/active never lists one.
 */
export const PARLAY_MARKET_TYPE = 999;

/** Whether a market is a parlay (a bet on several legs at once): its winnings pay the parlay commission. */
export const isParlayMarket = (market: Pick<MarketRecord, 'type'>): boolean => market.type === PARLAY_MARKET_TYPE;

export const SELECTIONS: readonly Selection[] = ['teamOne', 'draw', 'teamTwo'];

import type { Outcome } from '../engine/types.js';
export type { Outcome };

/** One market with the fixture, league and sport facts it is shown with (denormalized for fast reads). */
export interface MarketRecord {
  marketHash: string;
  status: MarketStatus;
  type: MarketTypeCode | typeof PARLAY_MARKET_TYPE;
  line?: number;
  /** Only on parlay markets (type PARLAY_MARKET_TYPE). */
  parlay?: ParlayTerms;
  /** Only on 1X2 (type 1) markets. */
  selection?: Selection;
  exchangeEventId: string;
  sportId: number;
  sportLabel: string;
  leagueId: number;
  leagueLabel: string;
  /** UNIX seconds. */
  gameTime: number;
  liveEnabled: boolean;
  teamOneId: number;
  teamTwoId: number;
  teamOneName: string;
  teamTwoName: string;
  outcomeOneName: string;
  outcomeTwoName: string;
  outcomeVoidName: 'NO_CONTEST' | 'NO_GAME_OR_EVEN';
  isQuarterLineMarket: boolean;
  /** Quarter-line markets: the leg markets [lower line, higher line]. */
  legMarketHashes?: [string, string];
  /** Line types only. */
  mainLine?: boolean;
  outcome?: Outcome;
  /** ISO 8601, when reported. */
  reportedDate?: string;
  teamOneScore?: number;
  teamTwoScore?: number;
}

export type LiveScorePeriod = LiveScore['periods'][number];
