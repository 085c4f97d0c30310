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

describe('WAL checkpoints off the writer thread', () => {
  it('turns the writer connection\'s automatic checkpoints off and checkpoints its commits from its own thread', async () => {
    const { Checkpointer } = await import('./checkpointer.js');
    const dir = mkdtempSync(join(tmpdir(), 'oddex-checkpoint-'));
    try {
      const main = openDatabase(dir);
      const trading = openTradingConnection(dir);
      const runs: { walFrames: number; checkpointed: number }[] = [];
      const problems: unknown[] = [];
      const checkpointer = new Checkpointer(trading, { everyMs: 20, onRun: (r) => runs.push(r), onProblem: (e) => problems.push(e) });
      expect(trading.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
      const insert = trading.prepare('INSERT INTO settings (key, value) VALUES (?, ?)');
      for (let i = 0; i < 50; i++) insert.run(`k${i}`, 'x'.repeat(2000));
      for (let i = 0; i < 100 && !runs.some((r) => r.checkpointed === r.walFrames); i++) await new Promise((r) => setTimeout(r, 20));
      const done = runs.find((r) => r.checkpointed === r.walFrames);
      expect(done?.walFrames).toBeGreaterThanOrEqual(50);
      expect(problems).toEqual([]);
      checkpointer.stop();
      trading.close();
      main.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
