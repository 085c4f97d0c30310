// SQLite persistence of the catalogue (migration 3). Rows in, domain records out; no rules here.
import type { Statement } from 'better-sqlite3';
import type { Db } from '../store/sqlite/db.js';
import { PARLAY_MARKET_TYPE, type Fixture, type League, type LiveScore, type MarketStatus, type Outcome, type ParlayTerms, type Selection, type Sport, type Team } from './model.js';

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

interface MarketRow {
  market_hash: string;
  exchange_event_id: string;
  type: number;
  line: number | null;
  selection: string | null;
  status: string;
  live_enabled: number;
  main_line: number | null;
  leg_lower: string | null;
  leg_higher: string | null;
  outcome: number | null;
  reported_date: string | null;
  team_one_score: number | null;
  team_two_score: number | null;
}

function marketFromRow(r: MarketRow): StoredMarket {
  const m: StoredMarket = {
    marketHash: r.market_hash,
    exchangeEventId: r.exchange_event_id,
    type: r.type,
    status: r.status as MarketStatus,
    liveEnabled: r.live_enabled === 1,
  };
  if (r.line !== null) m.line = r.line;
  if (r.selection !== null) m.selection = r.selection as Selection;
  if (r.main_line !== null) m.mainLine = r.main_line === 1;
  if (r.leg_lower !== null && r.leg_higher !== null) m.legMarketHashes = [r.leg_lower, r.leg_higher];
  if (r.outcome !== null) m.outcome = r.outcome as Outcome;
  if (r.reported_date !== null) m.reportedDate = r.reported_date;
  if (r.team_one_score !== null) m.teamOneScore = r.team_one_score;
  if (r.team_two_score !== null) m.teamTwoScore = r.team_two_score;
  return m;
}

interface ParlayRow {
  market_hash: string;
  bettor: string;
  base_token: string;
  request_size: string;
  legs: string;
  requested_at: number;
  quote_window_ends_at: number;
  fill_deadline: number;
}

const parlayFromRow = (r: ParlayRow): ParlayTerms => ({
  bettor: r.bettor,
  baseToken: r.base_token,
  requestSize: r.request_size,
  legs: JSON.parse(r.legs) as ParlayTerms['legs'],
  requestedAt: r.requested_at,
  quoteWindowEndsAt: r.quote_window_ends_at,
  fillDeadline: r.fill_deadline,
});

const bool = (b: boolean | undefined) => (b === undefined ? null : b ? 1 : 0);

export class CatalogueStore {
  private byHash: Statement | undefined;
  private settledOfEvent: Statement | undefined;

  constructor(private readonly db: Db) {}

  /** Runs `fn` in one transaction (nested calls join the outer one). */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  loadSports(): Sport[] {
    return this.db.prepare('SELECT sport_id AS sportId, label FROM sports').all() as Sport[];
  }

  loadLeagues(): League[] {
    const rows = this.db.prepare('SELECT league_id AS leagueId, sport_id AS sportId, label, active FROM leagues').all() as (Omit<
      League,
      'active'
    > & { active: number })[];
    return rows.map((r) => ({ ...r, active: r.active === 1 }));
  }

  loadTeams(): Team[] {
    return this.db.prepare('SELECT team_id AS teamId, sport_id AS sportId, name FROM teams').all() as Team[];
  }

  loadFixtures(): Fixture[] {
    return this.db
      .prepare(
        `SELECT exchange_event_id AS exchangeEventId, league_id AS leagueId, team_one_id AS teamOneId,
                team_two_id AS teamTwoId, game_time AS gameTime, status FROM fixtures`,
      )
      .all() as Fixture[];
  }

  /** Markets whose status may still change (not SETTLED): what the catalogue holds in memory. */
  loadOpenMarkets(): StoredMarket[] {
    return (this.db.prepare("SELECT * FROM markets WHERE status <> 'SETTLED'").all() as MarketRow[]).map(marketFromRow);
  }

  loadMarket(marketHash: string): StoredMarket | undefined {
    const row = (this.byHash ??= this.db.prepare('SELECT * FROM markets WHERE market_hash = ?')).get(marketHash) as MarketRow | undefined;
    return row && marketFromRow(row);
  }

  loadSettledMarketsOfEvent(exchangeEventId: string): StoredMarket[] {
    // Parlays are filed under their earliest leg's fixture but are no market of it.
    const rows = (this.settledOfEvent ??= this.db.prepare(
      `SELECT * FROM markets WHERE exchange_event_id = ? AND status = 'SETTLED' AND type <> ${PARLAY_MARKET_TYPE}`,
    )).all(exchangeEventId) as MarketRow[];
    return rows.map(marketFromRow);
  }

  loadLiveScores(): LiveScore[] {
    return (this.db.prepare('SELECT record FROM live_scores').all() as { record: string }[]).map(
      (r) => JSON.parse(r.record) as LiveScore,
    );
  }

  insertSport(s: Sport): void {
    this.db.prepare('INSERT INTO sports (sport_id, label) VALUES (?, ?)').run(s.sportId, s.label);
  }

  insertLeague(l: League): void {
    this.db
      .prepare('INSERT INTO leagues (league_id, sport_id, label, active) VALUES (?, ?, ?, ?)')
      .run(l.leagueId, l.sportId, l.label, l.active ? 1 : 0);
  }

  insertTeam(t: Team): void {
    this.db.prepare('INSERT INTO teams (team_id, sport_id, name) VALUES (?, ?, ?)').run(t.teamId, t.sportId, t.name);
  }

  insertFixture(f: Fixture): void {
    this.db
      .prepare(
        'INSERT INTO fixtures (exchange_event_id, league_id, team_one_id, team_two_id, game_time, status) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run(f.exchangeEventId, f.leagueId, f.teamOneId, f.teamTwoId, f.gameTime, f.status);
  }

  /** Inserts or replaces the whole stored market. */
  putMarket(m: StoredMarket): void {
    this.db
      .prepare(
        `INSERT OR REPLACE INTO markets (market_hash, exchange_event_id, type, line, selection, status, live_enabled, main_line,
           leg_lower, leg_higher, outcome, reported_date, team_one_score, team_two_score)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        m.marketHash,
        m.exchangeEventId,
        m.type,
        m.line ?? null,
        m.selection ?? null,
        m.status,
        m.liveEnabled ? 1 : 0,
        bool(m.mainLine),
        m.legMarketHashes?.[0] ?? null,
        m.legMarketHashes?.[1] ?? null,
        m.outcome ?? null,
        m.reportedDate ?? null,
        m.teamOneScore ?? null,
        m.teamTwoScore ?? null,
      );
  }

  /** The terms of the parlays whose market is not settled (with loadOpenMarkets). */
  loadOpenParlays(): Map<string, ParlayTerms> {
    const rows = this.db
      .prepare("SELECT p.* FROM parlays p JOIN markets m USING (market_hash) WHERE m.status <> 'SETTLED'")
      .all() as ParlayRow[];
    return new Map(rows.map((r) => [r.market_hash, parlayFromRow(r)]));
  }

  loadParlay(marketHash: string): ParlayTerms | undefined {
    const row = this.db.prepare('SELECT * FROM parlays WHERE market_hash = ?').get(marketHash) as ParlayRow | undefined;
    return row && parlayFromRow(row);
  }

  hasParlaySalt(bettor: string, salt: string): boolean {
    return this.db.prepare('SELECT 1 FROM parlays WHERE bettor = ? AND salt = ?').get(bettor, salt) !== undefined;
  }

  insertParlay(marketHash: string, salt: string, p: ParlayTerms): void {
    this.db
      .prepare(
        `INSERT INTO parlays (market_hash, bettor, salt, base_token, request_size, legs, requested_at, quote_window_ends_at, fill_deadline)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(marketHash, p.bettor, salt, p.baseToken, p.requestSize, JSON.stringify(p.legs), p.requestedAt, p.quoteWindowEndsAt, p.fillDeadline);
  }

  putLiveScore(score: LiveScore): void {
    this.db
      .prepare('INSERT OR REPLACE INTO live_scores (exchange_event_id, record) VALUES (?, ?)')
      .run(score.exchangeEventId, JSON.stringify(score));
  }
}
