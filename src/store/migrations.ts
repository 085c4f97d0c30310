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
