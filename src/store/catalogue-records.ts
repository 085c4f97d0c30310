// The catalogue's records as a store keeps them, and the CatalogueRecords port: SQLite in the data dir
// (catalogue/store.ts), PostgreSQL to scale (store/postgres/catalogue-records.ts). The types sit here, below the
// catalogue, so that a store implements the port without importing a layer above it; catalogue/model.ts re-exports
// them as the catalogue's domain records.
import type { Static } from '@sinclair/typebox';
import type { LiveScore as LiveScoreSchema } from '../protocol/wire/catalogue.js';
import type { Outcome } from '../engine/types.js';

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

export interface Fixture {
  exchangeEventId: string;
  leagueId: number;
  teamOneId: number;
  teamTwoId: number;
  /** UNIX seconds. */
  gameTime: number;
  status: FixtureStatusCode;
}

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

export type MarketStatus = 'ACTIVE' | 'SUSPENDED' | 'SETTLED';

/** A live score exactly as GET /live-scores returns it (spec 2.6): the wire record itself (`extra` is a JSON-encoded array of {Name, Value} string pairs). */
export type LiveScore = Static<typeof LiveScoreSchema>;

/** The stored part of a market; the rest (names, labels, game time) is derived from its fixture. */
export interface StoredMarket {
  marketHash: string;
  exchangeEventId: string;
  type: number;
  line?: number;
  selection?: Selection;
  status: MarketStatus;
  liveEnabled: boolean;
  mainLine?: boolean;
  legMarketHashes?: [string, string];
  outcome?: Outcome;
  reportedDate?: string;
  teamOneScore?: number;
  teamTwoScore?: number;
}

/** A market as either store's markets table gives it: SQLite's flags are 0/1, PostgreSQL's booleans. */
export interface MarketRow {
  market_hash: string;
  exchange_event_id: string;
  type: number;
  line: number | null;
  selection: string | null;
  status: string;
  live_enabled: boolean | number;
  main_line: boolean | number | null;
  leg_lower: string | null;
  leg_higher: string | null;
  outcome: number | null;
  reported_date: string | null;
  team_one_score: number | null;
  team_two_score: number | null;
}

export function marketFromRow(r: MarketRow): StoredMarket {
  const m: StoredMarket = {
    marketHash: r.market_hash,
    exchangeEventId: r.exchange_event_id,
    type: r.type,
    status: r.status as MarketStatus,
    liveEnabled: Boolean(r.live_enabled),
  };
  if (r.line !== null) m.line = r.line;
  if (r.selection !== null) m.selection = r.selection as Selection;
  if (r.main_line !== null) m.mainLine = Boolean(r.main_line);
  if (r.leg_lower !== null && r.leg_higher !== null) m.legMarketHashes = [r.leg_lower, r.leg_higher];
  if (r.outcome !== null) m.outcome = r.outcome as Outcome;
  if (r.reported_date !== null) m.reportedDate = r.reported_date;
  if (r.team_one_score !== null) m.teamOneScore = r.team_one_score;
  if (r.team_two_score !== null) m.teamTwoScore = r.team_two_score;
  return m;
}

/** What the catalogue holds in memory, read once when it opens. */
export interface CatalogueContents {
  sports: Sport[];
  leagues: League[];
  teams: Team[];
  fixtures: Fixture[];
  /** The markets not SETTLED (settled ones are read when asked for: `settled`, `settledAsync`). */
  markets: StoredMarket[];
  /** The terms of the parlays among `markets`, by market hash. */
  parlays: Map<string, ParlayTerms>;
  liveScores: LiveScore[];
}

/** A whole catalogue written at once into an empty store (the demo seed): parlays are requested, never seeded. */
export type CatalogueSeed = Omit<CatalogueContents, 'parlays'>;

/**
 * Synchronous reads of SETTLED markets, which never change again: an embedded database answers them when asked, so
 * the catalogue need not hold the tens of thousands a month of trading leaves.
 */
export interface SettledMarketReads {
  market(marketHash: string): StoredMarket | undefined;
  /** The event's settled markets, parlays left out (they are filed under a fixture but are none of its markets). */
  ofEvent(exchangeEventId: string): StoredMarket[];
  parlay(marketHash: string): ParlayTerms | undefined;
}

/** A settled market as stored, with its terms when it is a parlay. */
export interface SettledMarket {
  market: StoredMarket;
  parlay?: ParlayTerms;
}

/** The reads of SettledMarketReads, awaited and several markets at a time: what a database server answers. */
export interface SettledMarketQueries {
  /** The SETTLED markets among these hashes (lower case), in no particular order. */
  markets(marketHashes: readonly string[]): Promise<SettledMarket[]>;
  /** The event's settled markets, parlays left out. */
  ofEvent(exchangeEventId: string): Promise<StoredMarket[]>;
}

/** The settled-market queries of a store that answers at once (embedded or in memory), from its synchronous reads. */
export function settledQueriesOf(reads: SettledMarketReads): SettledMarketQueries {
  return {
    markets: (hashes) =>
      Promise.resolve(
        hashes.flatMap((h) => {
          const market = reads.market(h);
          if (market?.status !== 'SETTLED') return [];
          const parlay = reads.parlay(h);
          return [parlay ? { market, parlay } : { market }];
        }),
      ),
    ofEvent: (exchangeEventId) => Promise.resolve(reads.ofEvent(exchangeEventId)),
  };
}

/**
 * Where the catalogue's records are kept. Every write resolves once it is durable and rejects if it is not (an
 * insert of an existing key rejects too); a write of several records is all-or-nothing.
 */
export interface CatalogueRecords {
  load(): Promise<CatalogueContents>;
  /** Settled markets read at once (an embedded database); undefined for a database server, which only awaits. */
  readonly settled: SettledMarketReads | undefined;
  /** Settled markets, awaited: every store answers these. */
  readonly settledAsync: SettledMarketQueries;
  hasParlaySalt(bettor: string, salt: string): Promise<boolean>;
  addSport(sport: Sport): Promise<void>;
  addLeague(league: League): Promise<void>;
  addTeam(team: Team): Promise<void>;
  addFixture(fixture: Fixture): Promise<void>;
  /** Inserts or replaces each whole market, in one transaction. */
  putMarkets(markets: readonly StoredMarket[]): Promise<void>;
  /** Sets the main-line flag of existing markets (nothing else of them: their status follows the journal), in one transaction. */
  setMainLines(flags: readonly { marketHash: string; mainLine: boolean }[]): Promise<void>;
  /** The parlay's market and its terms, in one transaction. */
  addParlay(market: StoredMarket, salt: string, terms: ParlayTerms): Promise<void>;
  /** Inserts or replaces the event's live score. */
  putLiveScore(score: LiveScore): Promise<void>;
  /** Everything in one transaction. */
  addAll(seed: CatalogueSeed): Promise<void>;
}

/** The catalogue shows a report's time as an ISO date. */
export const reportedDate = (at: number): string => new Date(at).toISOString();

/**
 * Where a shared catalogue's writes have come to (a database server's): its definitions, and its live scores apart,
 * which change far more often. A process that keeps a copy reads again what moved.
 */
export interface CatalogueRevisions {
  definitions: number;
  liveScores: number;
}
