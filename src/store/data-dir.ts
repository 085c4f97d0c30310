// The data dir: private to the exchange's user, and used by one process at a time.
import Database from 'better-sqlite3';
import { chmodSync, closeSync, fsyncSync, mkdirSync, openSync, readdirSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** Owner only: the dir holds the admin token, the realtime signing secret and every account's data. */
export const DIR_MODE = 0o700;
export const FILE_MODE = 0o600;
export const LOCK_FILE = 'oddex.lock';

export class DataDirInUseError extends Error {
  constructor(readonly dataDir: string) {
    super(
      `data dir ${dataDir} is in use by another Oddex process (it holds ${join(dataDir, LOCK_FILE)}); ` +
        'stop that process or give this one another --data-dir',
    );
  }
}

/** Creates the dir 0700 and tightens an existing one and its files (created by an older version) to 0700/0600. */
export function prepareDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: DIR_MODE });
  chmodSync(dataDir, DIR_MODE);
  for (const name of readdirSync(dataDir)) {
    const path = join(dataDir, name);
    if (statSync(path).isFile()) chmodSync(path, FILE_MODE);
  }
}

/** Creates an empty file 0600 unless it exists, so SQLite (which copies the database's mode to -wal and -shm) and
 * every later writer start from owner-only permissions whatever the umask. */
export function createPrivateFile(path: string): void {
  closeSync(openSync(path, 'a', FILE_MODE));
  chmodSync(path, FILE_MODE);
}

export interface DataDirLock {
  release(): void;
}

/**
 * Takes the data dir for this process: an exclusive SQLite lock on `oddex.lock`, held until release or process
 * exit (the kernel drops it when the process dies, even on SIGKILL, so a crash never leaves a stale lock).
 * SQLite's lock also excludes a second connection inside the same process.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  const path = join(dataDir, LOCK_FILE);
  createPrivateFile(path);
  const db = new Database(path, { timeout: 0 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code === 'SQLITE_BUSY') throw new DataDirInUseError(dataDir);
    throw err;
  }
  let held = true;
  return {
    release() {
      if (!held) return;
      held = false;
      db.exec('ROLLBACK');
      db.close();
    },
  };
}

/**
 * Writes, syncs and removes a probe file in the dir, then commits a row to the database: the reason the data dir
 * cannot be written (disk full, read-only, the database locked by another program), or undefined when it can.
 */
export function probeWritable(dataDir: string, writeDb: () => void): string | undefined {
  const probe = join(dataDir, '.write-probe');
  try {
    const fd = openSync(probe, 'w', FILE_MODE);
    try {
      writeSync(fd, 'probe');
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    rmSync(probe, { force: true });
    writeDb();
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}
