// The catalogue's records on PostgreSQL (the CatalogueRecords port; schema in migrations/005_catalogue.sql). `load`
// gives the markets not settled; settled ones, which never change again and pile up with history, are read when
// asked for (`settledAsync`: a server answers only asynchronously, so there are no synchronous `settled` reads).
// Each write is one transaction, resolved once committed (synchronous_commit=on: on the server's disk).
import type pg from 'pg';
import { marketFromRow } from '../catalogue-records.js';
import type {
  CatalogueContents,
  CatalogueRecords,
  CatalogueRevisions,
  CatalogueSeed,
  Fixture,
  FixtureStatusCode,
  League,
  LiveScore,
  MarketRow,
  ParlayTerms,
  SettledMarketQueries,
  Sport,
  StoredMarket,
  Team,
} from '../catalogue-records.js';
import { migrate } from './migrate.js';
import { inTransaction } from './pool.js';

/** What the queries of this module are given: the pool or one transaction's connection. */
type Queryable = Pick<pg.Pool, 'query'>;

/** bigint columns arrive as decimal strings (node-postgres keeps every int8 exact). */
interface ParlayRow {
  market_hash: string;
  bettor: string;
  base_token: string;
  request_size: string;
  legs: string;
  requested_at: string;
  quote_window_ends_at: string;
  fill_deadline: string;
}

const parlayFromRow = (r: ParlayRow): ParlayTerms => ({
  bettor: r.bettor,
  baseToken: r.base_token,
  requestSize: r.request_size,
  legs: JSON.parse(r.legs) as ParlayTerms['legs'],
  requestedAt: Number(r.requested_at),
  quoteWindowEndsAt: Number(r.quote_window_ends_at),
  fillDeadline: Number(r.fill_deadline),
});

const UPSERT_MARKET = `
  INSERT INTO markets (market_hash, exchange_event_id, type, line, selection, status, live_enabled, main_line,
    leg_lower, leg_higher, outcome, reported_date, team_one_score, team_two_score)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
  ON CONFLICT (market_hash) DO UPDATE SET exchange_event_id = excluded.exchange_event_id, type = excluded.type,
    line = excluded.line, selection = excluded.selection, status = excluded.status, live_enabled = excluded.live_enabled,
    main_line = excluded.main_line, leg_lower = excluded.leg_lower, leg_higher = excluded.leg_higher,
    outcome = excluded.outcome, reported_date = excluded.reported_date, team_one_score = excluded.team_one_score,
    team_two_score = excluded.team_two_score`;

export class PostgresCatalogueRecords implements CatalogueRecords {
  readonly settled = undefined;
  readonly settledAsync: SettledMarketQueries = {
    markets: async (hashes) => {
      if (hashes.length === 0) return [];
      const { rows } = await this.pool.query<MarketRow & { parlay_bettor: string | null } & Partial<ParlayRow>>(
        `SELECT m.*, p.bettor AS parlay_bettor, p.base_token, p.request_size, p.legs, p.requested_at, p.quote_window_ends_at, p.fill_deadline
           FROM markets m LEFT JOIN parlays p USING (market_hash)
          WHERE m.market_hash = ANY($1::text[]) AND m.status = 'SETTLED'`,
        [hashes],
      );
      return rows.map((r) => {
        const market = marketFromRow(r);
        return r.parlay_bettor === null ? { market } : { market, parlay: parlayFromRow({ ...(r as ParlayRow), bettor: r.parlay_bettor }) };
      });
    },
    ofEvent: async (exchangeEventId) => {
      const { rows } = await this.pool.query<MarketRow>(
        // A parlay is filed under a fixture but is none of its markets.
        `SELECT * FROM markets m WHERE exchange_event_id = $1 AND status = 'SETTLED'
            AND NOT EXISTS (SELECT 1 FROM parlays p WHERE p.market_hash = m.market_hash) ORDER BY seq`,
        [exchangeEventId],
      );
      return rows.map(marketFromRow);
    },
  };

  private constructor(private readonly pool: pg.Pool) {}

  /** Brings the schema up to date (migrate.ts) on a pool the caller owns and closes. */
  static async open(pool: pg.Pool): Promise<PostgresCatalogueRecords> {
    await migrate(pool);
    return new PostgresCatalogueRecords(pool);
  }

  async load(): Promise<CatalogueContents> {
    // One snapshot for all the tables: a write committed meanwhile is either wholly seen or not at all.
    return inTransaction(this.pool, async (c) => {
      await c.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const sports = await c.query<Sport>('SELECT sport_id AS "sportId", label FROM sports ORDER BY sport_id');
      const leagues = await c.query<League>('SELECT league_id AS "leagueId", sport_id AS "sportId", label, active FROM leagues ORDER BY league_id');
      const teams = await c.query<Team>('SELECT team_id AS "teamId", sport_id AS "sportId", name FROM teams ORDER BY team_id');
      const fixtures = await c.query<Omit<Fixture, 'gameTime' | 'status'> & { gameTime: string; status: number }>(
        `SELECT exchange_event_id AS "exchangeEventId", league_id AS "leagueId", team_one_id AS "teamOneId",
                team_two_id AS "teamTwoId", game_time AS "gameTime", status FROM fixtures ORDER BY seq`,
      );
      // Markets whose status may still change: settled ones are read when asked for (settledAsync).
      const markets = await c.query<MarketRow>("SELECT * FROM markets WHERE status <> 'SETTLED' ORDER BY seq");
      const parlays = await c.query<ParlayRow>("SELECT p.* FROM parlays p JOIN markets m USING (market_hash) WHERE m.status <> 'SETTLED'");
      const scores = await c.query<{ record: string }>('SELECT record FROM live_scores ORDER BY exchange_event_id');
      return {
        sports: sports.rows,
        leagues: leagues.rows,
        teams: teams.rows,
        fixtures: fixtures.rows.map((f) => ({ ...f, gameTime: Number(f.gameTime), status: f.status as FixtureStatusCode })),
        markets: markets.rows.map(marketFromRow),
        parlays: new Map(parlays.rows.map((r) => [r.market_hash, parlayFromRow(r)])),
        liveScores: scores.rows.map((r) => JSON.parse(r.record) as LiveScore),
      };
    });
  }

  async hasParlaySalt(bettor: string, salt: string): Promise<boolean> {
    const { rowCount } = await this.pool.query('SELECT 1 FROM parlays WHERE bettor = $1 AND salt = $2', [bettor, salt]);
    return (rowCount ?? 0) > 0;
  }

  addSport(s: Sport): Promise<void> {
    return this.write((c) => insertSport(c, s));
  }

  addLeague(l: League): Promise<void> {
    return this.write((c) => insertLeague(c, l));
  }

  addTeam(t: Team): Promise<void> {
    return this.write((c) => insertTeam(c, t));
  }

  addFixture(f: Fixture): Promise<void> {
    return this.write((c) => insertFixture(c, f));
  }

  putMarkets(markets: readonly StoredMarket[]): Promise<void> {
    return this.write(async (c) => {
      for (const m of markets) await putMarket(c, m);
    });
  }

  setMainLines(flags: readonly { marketHash: string; mainLine: boolean }[]): Promise<void> {
    return this.write(async (c) => {
      for (const f of flags) await c.query('UPDATE markets SET main_line = $1 WHERE market_hash = $2', [f.mainLine, f.marketHash]);
    });
  }

  addParlay(market: StoredMarket, salt: string, p: ParlayTerms): Promise<void> {
    return this.write(async (c) => {
      await putMarket(c, market);
      await c.query(
        `INSERT INTO parlays (market_hash, bettor, salt, base_token, request_size, legs, requested_at, quote_window_ends_at, fill_deadline)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [market.marketHash, p.bettor, salt, p.baseToken, p.requestSize, JSON.stringify(p.legs), p.requestedAt, p.quoteWindowEndsAt, p.fillDeadline],
      );
    });
  }

  putLiveScore(score: LiveScore): Promise<void> {
    return this.write((c) => putLiveScore(c, score), 'live_scores');
  }

  /** Every live score (what a process that keeps a copy reads again when their revision moves). */
  async liveScores(): Promise<LiveScore[]> {
    const { rows } = await this.pool.query<{ record: string }>('SELECT record FROM live_scores ORDER BY exchange_event_id');
    return rows.map((r) => JSON.parse(r.record) as LiveScore);
  }

  addAll(seed: CatalogueSeed): Promise<void> {
    return this.write(async (c) => {
      for (const s of seed.sports) await insertSport(c, s);
      for (const l of seed.leagues) await insertLeague(c, l);
      for (const t of seed.teams) await insertTeam(c, t);
      for (const f of seed.fixtures) await insertFixture(c, f);
      for (const m of seed.markets) await putMarket(c, m);
      for (const s of seed.liveScores) await putLiveScore(c, s);
    });
  }

  /**
   * The revisions writes move: `definitions` every write but a live score's (008_catalogue_revision.sql),
   * `liveScores` a live score's (010_live_score_revision.sql).
   */
  async revisions(): Promise<CatalogueRevisions> {
    const { rows } = await this.pool.query<{ revision: string; live_scores: string }>('SELECT revision, live_scores FROM catalogue_revision WHERE id = 1');
    return { definitions: Number(rows[0]!.revision), liveScores: Number(rows[0]!.live_scores) };
  }

  /** A write, with its revision moved in its transaction. */
  private write(fn: (c: Queryable) => Promise<unknown>, revision: 'revision' | 'live_scores' = 'revision'): Promise<void> {
    return inTransaction(this.pool, async (c) => {
      await fn(c);
      await c.query(`UPDATE catalogue_revision SET ${revision} = ${revision} + 1 WHERE id = 1`);
    });
  }
}

const insertSport = (q: Queryable, s: Sport) => q.query('INSERT INTO sports (sport_id, label) VALUES ($1, $2)', [s.sportId, s.label]);

const insertLeague = (q: Queryable, l: League) =>
  q.query('INSERT INTO leagues (league_id, sport_id, label, active) VALUES ($1, $2, $3, $4)', [l.leagueId, l.sportId, l.label, l.active]);

const insertTeam = (q: Queryable, t: Team) => q.query('INSERT INTO teams (team_id, sport_id, name) VALUES ($1, $2, $3)', [t.teamId, t.sportId, t.name]);

const insertFixture = (q: Queryable, f: Fixture) =>
  q.query(
    'INSERT INTO fixtures (exchange_event_id, league_id, team_one_id, team_two_id, game_time, status) VALUES ($1, $2, $3, $4, $5, $6)',
    [f.exchangeEventId, f.leagueId, f.teamOneId, f.teamTwoId, f.gameTime, f.status],
  );

const putMarket = (q: Queryable, m: StoredMarket) =>
  q.query(UPSERT_MARKET, [
    m.marketHash,
    m.exchangeEventId,
    m.type,
    m.line ?? null,
    m.selection ?? null,
    m.status,
    m.liveEnabled,
    m.mainLine ?? null,
    m.legMarketHashes?.[0] ?? null,
    m.legMarketHashes?.[1] ?? null,
    m.outcome ?? null,
    m.reportedDate ?? null,
    m.teamOneScore ?? null,
    m.teamTwoScore ?? null,
  ]);

const putLiveScore = (q: Queryable, score: LiveScore) =>
  q.query(
    'INSERT INTO live_scores (exchange_event_id, record) VALUES ($1, $2) ON CONFLICT (exchange_event_id) DO UPDATE SET record = excluded.record',
    [score.exchangeEventId, JSON.stringify(score)],
  );
