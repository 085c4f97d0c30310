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
