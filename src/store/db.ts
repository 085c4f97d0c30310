import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { MIGRATIONS, type Migration } from './migrations.js';
import { createPrivateFile, DIR_MODE } from './data-dir.js';

export type Db = Database.Database;

export const DB_FILE = 'oddex.sqlite';

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
