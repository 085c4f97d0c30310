import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openDatabase, openTradingConnection } from './db.js';
import { COMMITS_ALREADY_DURABLE, walSyncOf } from './wal-sync.js';

describe('WAL sync of the trading connection', () => {
  it('commits on the trading connection without syncing (NORMAL) and syncs the WAL file off the thread', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'oddex-walsync-'));
    try {
      const main = openDatabase(dir);
      const trading = openTradingConnection(dir);
      // 2 = FULL, 1 = NORMAL.
      expect([main.pragma('synchronous', { simple: true }), trading.pragma('synchronous', { simple: true })]).toEqual([2, 1]);
      const wal = walSyncOf(trading);
      trading.prepare('INSERT INTO settings (key, value) VALUES (?, ?)').run('k', 'v');
      await expect(wal.sync()).resolves.toBeUndefined();
      expect(() => wal.syncNow()).not.toThrow();
      // The other connection sees the commit.
      expect(main.prepare('SELECT value FROM settings WHERE key = ?').get('k')).toEqual({ value: 'v' });
      wal.close();
      trading.close();
      main.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('has nothing to sync for an in-memory database', () => {
    expect(walSyncOf(new Database(':memory:'))).toBe(COMMITS_ALREADY_DURABLE);
  });
});
