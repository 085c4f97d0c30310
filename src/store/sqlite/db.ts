import Database from 'better-sqlite3';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { MIGRATIONS, type Migration } from './migrations.js';
import { createPrivateFile, DIR_MODE } from './data-dir.js';

export type Db = Database.Database;

export const DB_FILE = 'oddex.sqlite';
/** The read models' own database: the projector writes it, readers read it, and the writer never waits on its lock. */
export const READ_MODELS_FILE = 'oddex.read-models.sqlite';

/**
 * Opens (creating if needed) the exchange database in WAL mode and applies pending migrations.
 * synchronous=FULL syncs the WAL on every commit, so an acknowledged write survives power loss, not only a
 * process kill; group commit (one transaction per batch) keeps the cost per request small.
 * The file is created 0600 first: SQLite gives -wal and -shm the database's mode.
 */
export function openDatabase(
  dataDir: string,
  migrations: readonly Migration[] = MIGRATIONS,
  opts: { busyTimeoutMs?: number } = {},
): Db {
  mkdirSync(dataDir, { recursive: true, mode: DIR_MODE });
  const path = join(dataDir, DB_FILE);
  createPrivateFile(path);
  const db = connect(path, 'FULL', opts.busyTimeoutMs);
  migrate(db, migrations);
  return db;
}

/**
 * A second connection to an opened (and migrated) exchange database for the trading store's group commits.
 * synchronous=NORMAL: a commit is written to the WAL (it survives a process kill) but not synced; the trading runner
 * syncs the WAL off the event loop (wal-sync.ts) and answers callers only once that sync is done, so an acknowledged
 * command still survives power loss while the writer thread goes on with the next commands.
 */
export function openTradingConnection(dataDir: string, opts: { busyTimeoutMs?: number } = {}): Db {
  return connect(join(dataDir, DB_FILE), 'NORMAL', opts.busyTimeoutMs);
}

/**
 * Opens (creating if needed) the read models' database in the data dir. It is derived from the journal: synchronous
 * NORMAL (a power loss may take its last transactions, which the projector writes again from its checkpoint). It
 * holds the same schema as the exchange database, of which only the rm_ tables are used. A data dir from before it
 * existed kept its read models in the exchange database: they are copied over when the file is created.
 */
export function openReadModelsDatabase(dataDir: string, opts: { busyTimeoutMs?: number } = {}): Db {
  const path = join(dataDir, READ_MODELS_FILE);
  const created = !existsSync(path);
  createPrivateFile(path);
  const db = connect(path, 'NORMAL', opts.busyTimeoutMs);
  migrate(db, MIGRATIONS);
  if (created) copyReadModels(db, join(dataDir, DB_FILE));
  return db;
}

/** Copies the rm_ tables of an exchange database that kept its read models (their position above 0). */
function copyReadModels(db: Db, exchangeFile: string): void {
  if (!existsSync(exchangeFile)) return;
  db.prepare('ATTACH DATABASE ? AS old').run(exchangeFile);
  try {
    const hasPosition = db.prepare("SELECT 1 FROM old.sqlite_master WHERE name = 'rm_position'").get() !== undefined;
    const position = hasPosition ? (db.prepare('SELECT journal_seq AS seq FROM old.rm_position').get() as { seq: number } | undefined) : undefined;
    if (!position || position.seq === 0) return;
    const tables = db.prepare("SELECT name FROM old.sqlite_master WHERE type = 'table' AND name LIKE 'rm\\_%' ESCAPE '\\'").all() as { name: string }[];
    db.transaction(() => {
      for (const { name } of tables) {
        db.exec(`DELETE FROM main."${name}"; INSERT INTO main."${name}" SELECT * FROM old."${name}"`);
      }
    })();
  } finally {
    db.exec('DETACH DATABASE old');
  }
}

function connect(path: string, synchronous: 'FULL' | 'NORMAL', busyTimeoutMs = 5000): Db {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${synchronous}`);
  db.pragma('foreign_keys = ON');
  db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  return db;
}

export function migrate(db: Db, migrations: readonly Migration[]): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  const pending = [...migrations].filter((m) => m.version > current).sort((a, b) => a.version - b.version);
  for (const m of pending) {
    db.transaction(() => {
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
    })();
  }
}

export function getSetting(db: Db, key: string): string | undefined {
  const row = db.prepare('SELECT value FROM settings WHERE key = ?').get(key) as { value: string } | undefined;
  return row?.value;
}

export function putSetting(db: Db, key: string, value: string): void {
  db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(
    key,
    value,
  );
}
