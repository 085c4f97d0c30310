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

/** The files the exchange keeps in its data dir (the database with its -wal/-shm, the lock, the admin token). */
const isOwnFile = (name: string) => name.startsWith('oddex.') || name === 'admin-token';

/**
 * Creates the dir 0700, or tightens one the exchange already uses (an older version may have left it and its
 * files readable) to 0700 and its own files to 0600. A dir that also holds other things (say /tmp) is not the
 * exchange's to chmod: only its own files are tightened, and the answer says the dir is shared.
 */
export function prepareDataDir(dataDir: string): { shared: boolean } {
  mkdirSync(dataDir, { recursive: true, mode: DIR_MODE });
  const names = readdirSync(dataDir);
  const shared = names.some((name) => !isOwnFile(name));
  if (!shared) chmodSync(dataDir, DIR_MODE);
  for (const name of names.filter(isOwnFile)) {
    const path = join(dataDir, name);
    if (statSync(path).isFile()) chmodSync(path, FILE_MODE);
  }
  return { shared: shared && (statSync(dataDir).mode & 0o077) !== 0 };
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
 * Writes, syncs and removes a probe file of `bytes` (at least a few) in the dir, then commits a row to the database:
 * the reason the data dir cannot be written (disk full, read-only, the database locked by another program), or
 * undefined when it can. The file is removed whether or not it could be written whole, so a probe leaves the disk as
 * it found it.
 */
export function probeWritable(dataDir: string, writeDb: () => void, bytes = 0): string | undefined {
  const probe = join(dataDir, 'oddex.write-probe');
  try {
    try {
      const fd = openSync(probe, 'w', FILE_MODE);
      try {
        writeSync(fd, 'probe');
        const chunk = Buffer.alloc(Math.min(bytes, PROBE_CHUNK_BYTES));
        for (let written = 5; written < bytes; ) written += writeSync(fd, chunk, 0, Math.min(chunk.length, bytes - written));
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    } finally {
      rmSync(probe, { force: true });
    }
    writeDb();
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

const PROBE_CHUNK_BYTES = 256 * 1024;
