-- The catalogue, as the SQLite data dir keeps it (src/store/sqlite/migrations.ts: migrations 3 and 'parlays'), and
-- the API keys (migration 2). Written by the exchange's operator routes and parlay requests through the
-- CatalogueRecords and ApiKeyRecords ports (store/postgres/catalogue-records.ts, api-key-records.ts); the token
-- secret lives in store_settings (001). Times: UNIX seconds (game_time) or ms (parlays), ISO 8601 text elsewhere,
-- as in SQLite. `seq` keeps the order rows were created in, which the catalogue lists fixtures and an event's
-- markets in (SQLite's rowid).
CREATE TABLE sports (
  sport_id integer PRIMARY KEY,
  label text NOT NULL
);

CREATE TABLE leagues (
  league_id integer PRIMARY KEY,
  sport_id integer NOT NULL REFERENCES sports (sport_id),
  label text NOT NULL,
  active boolean NOT NULL
);

CREATE TABLE teams (
  team_id integer PRIMARY KEY,
  sport_id integer NOT NULL REFERENCES sports (sport_id),
  name text NOT NULL
);

CREATE TABLE fixtures (
  exchange_event_id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY,
  league_id integer NOT NULL REFERENCES leagues (league_id),
  team_one_id integer NOT NULL REFERENCES teams (team_id),
  team_two_id integer NOT NULL REFERENCES teams (team_id),
  game_time bigint NOT NULL,
  status smallint NOT NULL
);

-- The stored part of a market; names, labels and game time come from its fixture. A parlay is filed under the
-- fixture of its earliest leg.
CREATE TABLE markets (
  market_hash text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY,
  exchange_event_id text NOT NULL REFERENCES fixtures (exchange_event_id),
  type integer NOT NULL,
  line double precision,
  selection text,
  status text NOT NULL,
  live_enabled boolean NOT NULL,
  main_line boolean,
  leg_lower text,
  leg_higher text,
  outcome smallint,
  reported_date text,
  team_one_score integer,
  team_two_score integer
);
CREATE INDEX markets_by_event ON markets (exchange_event_id);

-- The terms a parlay request fixed. A bettor's salt opens one request only, whatever its legs.
CREATE TABLE parlays (
  market_hash text PRIMARY KEY REFERENCES markets (market_hash),
  bettor text NOT NULL,
  salt text NOT NULL,
  base_token text NOT NULL,
  request_size text NOT NULL,
  legs text NOT NULL,
  requested_at bigint NOT NULL,
  quote_window_ends_at bigint NOT NULL,
  fill_deadline bigint NOT NULL,
  UNIQUE (bettor, salt)
);

-- The latest live score of a fixture, exactly as GET /live-scores returns it (JSON text).
CREATE TABLE live_scores (
  exchange_event_id text PRIMARY KEY REFERENCES fixtures (exchange_event_id),
  record text NOT NULL
);

-- API keys: only a SHA-256 of each key. `seq` orders keys created in the same millisecond, as SQLite's rowid does.
CREATE TABLE api_keys (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY,
  address text NOT NULL,
  key_hash text NOT NULL UNIQUE,
  created_at text NOT NULL,
  revoked_at text
);
CREATE INDEX api_keys_live_by_address ON api_keys (address, created_at) WHERE revoked_at IS NULL;
