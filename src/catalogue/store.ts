// The catalogue's records in the SQLite data dir (migration 3; the CatalogueRecords port). Rows in, domain records
// out; no rules here. better-sqlite3 answers synchronously: a write has committed when its promise is made, and
// settled markets are read when asked for (SettledMarketReads).
import type { Statement } from 'better-sqlite3';
import type { Db } from '../store/sqlite/db.js';
import { marketFromRow, settledQueriesOf, type MarketRow, type CatalogueContents, type CatalogueRecords, type CatalogueSeed, type SettledMarketQueries, type SettledMarketReads, type StoredMarket } from '../store/catalogue-records.js';
import { PARLAY_MARKET_TYPE, type Fixture, type League, type LiveScore, type ParlayTerms, type Sport, type Team } from './model.js';

export type { StoredMarket } from '../store/catalogue-records.js';

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

/** Runs `fn` in one transaction, as a promise: settled (committed or rolled back) once it is made. */
function inTransaction(db: Db, fn: () => void): Promise<void> {
  try {
    db.transaction(fn)();
    return Promise.resolve();
  } catch (err) {
    return Promise.reject(err instanceof Error ? err : new Error(String(err)));
  }
}

export class SqliteCatalogueRecords implements CatalogueRecords, SettledMarketReads {
  readonly settled: SettledMarketReads = this;
  /** The same reads as promises (the port's shape for a database server's). */
  readonly settledAsync: SettledMarketQueries = settledQueriesOf(this);
  private byHash: Statement | undefined;
  private settledOfEvent: Statement | undefined;
  private parlayByHash: Statement | undefined;

  constructor(private readonly db: Db) {}

  load(): Promise<CatalogueContents> {
    const leagues = this.db.prepare('SELECT league_id AS leagueId, sport_id AS sportId, label, active FROM leagues').all() as (Omit<League, 'active'> & {
      active: number;
    })[];
    const parlays = this.db
      .prepare("SELECT p.* FROM parlays p JOIN markets m USING (market_hash) WHERE m.status <> 'SETTLED'")
      .all() as ParlayRow[];
    return Promise.resolve({
      sports: this.db.prepare('SELECT sport_id AS sportId, label FROM sports').all() as Sport[],
      leagues: leagues.map((r) => ({ ...r, active: r.active === 1 })),
      teams: this.db.prepare('SELECT team_id AS teamId, sport_id AS sportId, name FROM teams').all() as Team[],
      fixtures: this.db
        .prepare(
          `SELECT exchange_event_id AS exchangeEventId, league_id AS leagueId, team_one_id AS teamOneId,
                  team_two_id AS teamTwoId, game_time AS gameTime, status FROM fixtures`,
        )
        .all() as Fixture[],
      // Markets whose status may still change: settled ones are read when asked for (SettledMarketReads).
      markets: (this.db.prepare("SELECT * FROM markets WHERE status <> 'SETTLED'").all() as MarketRow[]).map(marketFromRow),
      parlays: new Map(parlays.map((r) => [r.market_hash, parlayFromRow(r)])),
      liveScores: (this.db.prepare('SELECT record FROM live_scores').all() as { record: string }[]).map((r) => JSON.parse(r.record) as LiveScore),
    });
  }

  market(marketHash: string): StoredMarket | undefined {
    const row = (this.byHash ??= this.db.prepare('SELECT * FROM markets WHERE market_hash = ?')).get(marketHash) as MarketRow | undefined;
    return row && marketFromRow(row);
  }

  ofEvent(exchangeEventId: string): StoredMarket[] {
    const rows = (this.settledOfEvent ??= this.db.prepare(
      `SELECT * FROM markets WHERE exchange_event_id = ? AND status = 'SETTLED' AND type <> ${PARLAY_MARKET_TYPE}`,
    )).all(exchangeEventId) as MarketRow[];
    return rows.map(marketFromRow);
  }

  parlay(marketHash: string): ParlayTerms | undefined {
    const row = (this.parlayByHash ??= this.db.prepare('SELECT * FROM parlays WHERE market_hash = ?')).get(marketHash) as ParlayRow | undefined;
    return row && parlayFromRow(row);
  }

  hasParlaySalt(bettor: string, salt: string): Promise<boolean> {
    return Promise.resolve(this.db.prepare('SELECT 1 FROM parlays WHERE bettor = ? AND salt = ?').get(bettor, salt) !== undefined);
  }

  addSport(s: Sport): Promise<void> {
    return inTransaction(this.db, () => this.insertSport(s));
  }

  addLeague(l: League): Promise<void> {
    return inTransaction(this.db, () => this.insertLeague(l));
  }

  addTeam(t: Team): Promise<void> {
    return inTransaction(this.db, () => this.insertTeam(t));
  }

  addFixture(f: Fixture): Promise<void> {
    return inTransaction(this.db, () => this.insertFixture(f));
  }

  putMarkets(markets: readonly StoredMarket[]): Promise<void> {
    return inTransaction(this.db, () => {
      for (const m of markets) this.putMarket(m);
    });
  }

  setMainLines(flags: readonly { marketHash: string; mainLine: boolean }[]): Promise<void> {
    return inTransaction(this.db, () => {
      const set = this.db.prepare('UPDATE markets SET main_line = ? WHERE market_hash = ?');
      for (const f of flags) set.run(f.mainLine ? 1 : 0, f.marketHash);
    });
  }

  addParlay(market: StoredMarket, salt: string, p: ParlayTerms): Promise<void> {
    return inTransaction(this.db, () => {
      this.putMarket(market);
      this.db
        .prepare(
          `INSERT INTO parlays (market_hash, bettor, salt, base_token, request_size, legs, requested_at, quote_window_ends_at, fill_deadline)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(market.marketHash, p.bettor, salt, p.baseToken, p.requestSize, JSON.stringify(p.legs), p.requestedAt, p.quoteWindowEndsAt, p.fillDeadline);
    });
  }

  putLiveScore(score: LiveScore): Promise<void> {
    return inTransaction(this.db, () => this.writeLiveScore(score));
  }

  addAll(seed: CatalogueSeed): Promise<void> {
    return inTransaction(this.db, () => {
      for (const s of seed.sports) this.insertSport(s);
      for (const l of seed.leagues) this.insertLeague(l);
      for (const t of seed.teams) this.insertTeam(t);
      for (const f of seed.fixtures) this.insertFixture(f);
      for (const m of seed.markets) this.putMarket(m);
      for (const s of seed.liveScores) this.writeLiveScore(s);
    });
  }

  private insertSport(s: Sport): void {
    this.db.prepare('INSERT INTO sports (sport_id, label) VALUES (?, ?)').run(s.sportId, s.label);
  }

  private insertLeague(l: League): void {
    this.db.prepare('INSERT INTO leagues (league_id, sport_id, label, active) VALUES (?, ?, ?, ?)').run(l.leagueId, l.sportId, l.label, l.active ? 1 : 0);
  }

  private insertTeam(t: Team): void {
    this.db.prepare('INSERT INTO teams (team_id, sport_id, name) VALUES (?, ?, ?)').run(t.teamId, t.sportId, t.name);
  }

  private insertFixture(f: Fixture): void {
    this.db
      .prepare('INSERT INTO fixtures (exchange_event_id, league_id, team_one_id, team_two_id, game_time, status) VALUES (?, ?, ?, ?, ?, ?)')
      .run(f.exchangeEventId, f.leagueId, f.teamOneId, f.teamTwoId, f.gameTime, f.status);
  }

  /** Inserts or replaces the whole stored market. */
  private putMarket(m: StoredMarket): void {
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

  private writeLiveScore(score: LiveScore): void {
    this.db.prepare('INSERT OR REPLACE INTO live_scores (exchange_event_id, record) VALUES (?, ?)').run(score.exchangeEventId, JSON.stringify(score));
  }
}
