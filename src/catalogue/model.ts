// The catalogue's domain records: sports, leagues, teams, fixtures, markets, live scores.
import type { Static } from '@sinclair/typebox';
import type { LiveScore as LiveScoreSchema } from '../protocol/wire/catalogue.js';

export interface Sport {
  sportId: number;
  label: string;
}

export interface League {
  leagueId: number;
  sportId: number;
  label: string;
  active: boolean;
}

export interface Team {
  teamId: number;
  sportId: number;
  name: string;
}

/**
 * Fixture status codes (the spec names only the set /fixture/active returns: 1, 2, 6, 7, 8, 9).
 * Oddex's meaning of each code:
 */
export const FixtureStatus = {
  NOT_STARTED: 1,
  IN_PROGRESS: 2,
  FINISHED: 3,
  CANCELLED: 4,
  POSTPONED: 5,
  INTERRUPTED: 6,
  ABANDONED: 7,
  COVERAGE_LOST: 8,
  ABOUT_TO_START: 9,
} as const;
export type FixtureStatusCode = (typeof FixtureStatus)[keyof typeof FixtureStatus];
/** Statuses GET /fixture/active (and /search, /live-scores without ids) treat as active. */
export const ACTIVE_FIXTURE_STATUSES: ReadonlySet<number> = new Set([1, 2, 6, 7, 8, 9]);

export interface Fixture {
  exchangeEventId: string;
  leagueId: number;
  teamOneId: number;
  teamTwoId: number;
  /** UNIX seconds. */
  gameTime: number;
  status: FixtureStatusCode;
}

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

/** One leg of a parlay: a market and the side the bettor picked. */
export interface ParlayLeg {
  marketHash: string;
  bettingOutcomeOne: boolean;
}

/** What a parlay request fixed: who asked, for how much, on which legs, and its windows (UNIX ms). */
export interface ParlayTerms {
  bettor: string;
  baseToken: string;
  /** Wei, as a decimal string. */
  requestSize: string;
  legs: ParlayLeg[];
  requestedAt: number;
  /** Orders posted before this are shown together when it passes. */
  quoteWindowEndsAt: number;
  /** The parlay's book takes no fill from this moment on. */
  fillDeadline: number;
}

/** Which binary market of a 1X2 fixture: outcome one is this result happening, outcome two is it not happening. */
export type Selection = 'teamOne' | 'draw' | 'teamTwo';
export const SELECTIONS: readonly Selection[] = ['teamOne', 'draw', 'teamTwo'];

export type MarketStatus = 'ACTIVE' | 'SUSPENDED' | 'SETTLED';
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

/** A live score exactly as GET /live-scores returns it (spec 2.6): the wire record itself (`extra` is a JSON-encoded array of {Name, Value} string pairs). */
export type LiveScore = Static<typeof LiveScoreSchema>;

export type LiveScorePeriod = LiveScore['periods'][number];
