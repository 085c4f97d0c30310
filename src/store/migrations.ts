// Versioned schema. Append new migrations; never edit one that has shipped.
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'journal and settings',
    sql: `
      CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      -- Every state-changing engine command, in the order the engine applied it.
      CREATE TABLE journal (
        seq INTEGER PRIMARY KEY,
        at_ms INTEGER NOT NULL,
        command TEXT NOT NULL
      );
    `,
  },
];

MIGRATIONS.push({
  version: 2,
  name: 'api keys',
  sql: `
    CREATE TABLE api_keys (
      id TEXT PRIMARY KEY,
      address TEXT NOT NULL,
      key_hash TEXT NOT NULL UNIQUE,
      created_at TEXT NOT NULL,
      revoked_at TEXT
    );
  `,
});

MIGRATIONS.push({
  version: 3,
  name: 'catalogue',
  sql: `
    CREATE TABLE sports (sport_id INTEGER PRIMARY KEY, label TEXT NOT NULL);
    CREATE TABLE leagues (
      league_id INTEGER PRIMARY KEY,
      sport_id INTEGER NOT NULL REFERENCES sports(sport_id),
      label TEXT NOT NULL,
      active INTEGER NOT NULL
    );
    CREATE TABLE teams (team_id INTEGER PRIMARY KEY, sport_id INTEGER NOT NULL REFERENCES sports(sport_id), name TEXT NOT NULL);
    CREATE TABLE fixtures (
      exchange_event_id TEXT PRIMARY KEY,
      league_id INTEGER NOT NULL REFERENCES leagues(league_id),
      team_one_id INTEGER NOT NULL REFERENCES teams(team_id),
      team_two_id INTEGER NOT NULL REFERENCES teams(team_id),
      game_time INTEGER NOT NULL,
      status INTEGER NOT NULL
    );
    CREATE TABLE markets (
      market_hash TEXT PRIMARY KEY,
      exchange_event_id TEXT NOT NULL REFERENCES fixtures(exchange_event_id),
      type INTEGER NOT NULL,
      line REAL,
      selection TEXT,
      status TEXT NOT NULL,
      live_enabled INTEGER NOT NULL,
      main_line INTEGER,
      leg_lower TEXT,
      leg_higher TEXT,
      outcome INTEGER,
      reported_date TEXT,
      team_one_score INTEGER,
      team_two_score INTEGER
    );
    CREATE INDEX markets_by_event ON markets (exchange_event_id);
    CREATE TABLE live_scores (exchange_event_id TEXT PRIMARY KEY REFERENCES fixtures(exchange_event_id), record TEXT NOT NULL);
  `,
});
