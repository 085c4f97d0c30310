// Makes a WAL-mode connection's commits durable without holding the event loop: an fdatasync of the WAL file runs
// on libuv's thread pool while the writer thread goes on. The connection commits with synchronous=NORMAL, so each
// commit is already in the WAL (a process kill keeps it); the sync is what makes it survive power loss too. WAL
// frames are appended in commit order, so one sync covers every commit written before it started.
import { closeSync, fdatasync, fdatasyncSync, openSync } from 'node:fs';
import type { Db } from './db.js';

export interface WalSync {
  /** Resolves once every commit written before the call is durable; rejects if the disk refused the sync. */
  sync(): Promise<void>;
  /** The same, blocking (shutdown, snapshots taken on request). */
  syncNow(): void;
  close(): void;
}

/** For connections whose commits are durable when they return (synchronous=FULL, or in memory). */
export const COMMITS_ALREADY_DURABLE: WalSync = {
  sync: () => Promise.resolve(),
  syncNow() {},
  close() {},
};

/** Syncs the WAL file of `db`, which must be an opened file database in WAL mode. */
export function walSyncOf(db: Db): WalSync {
  if (db.memory) return COMMITS_ALREADY_DURABLE;
  // SQLite keeps the WAL file (the same inode) while any connection is open; it is reset in place, never replaced.
  const fd = openSync(`${db.name}-wal`, 'r');
  let open = true;
  return {
    sync: () =>
      new Promise((resolve, reject) => {
        fdatasync(fd, (err) => (err ? reject(err) : resolve()));
      }),
    syncNow: () => fdatasyncSync(fd),
    close() {
      if (!open) return;
      open = false;
      closeSync(fd);
    },
  };
}
