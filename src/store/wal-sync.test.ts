import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { DB_FILE, openDatabase, openTradingConnection } from './db.js';
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
      await checkpointer.stop();
      trading.close();
      main.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('empties the WAL file under commits that never pause, where passive checkpoints alone let it grow', async () => {
    const { Checkpointer } = await import('./checkpointer.js');
    const walBytesAfterLoad = async (truncateAtFrames: number) => {
      const dir = mkdtempSync(join(tmpdir(), 'oddex-checkpoint-'));
      try {
        const main = openDatabase(dir);
        const trading = openTradingConnection(dir);
        const checkpointer = new Checkpointer(trading, { everyMs: 5, truncateAtFrames, onProblem: () => {} });
        const insert = trading.prepare('INSERT INTO settings (key, value) VALUES (?, ?)');
        // Commits back to back for 1.5 s, yielding only to let the checkpoint thread's messages through.
        let i = 0;
        for (const until = Date.now() + 1500; Date.now() < until; ) {
          for (let j = 0; j < 20; j++) insert.run(`k${i++}`, 'x'.repeat(3000));
          await new Promise((r) => setImmediate(r));
        }
        const bytes = statSync(join(dir, `${DB_FILE}-wal`)).size;
        await checkpointer.stop();
        trading.close();
        main.close();
        return { bytes, commits: i };
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    };
    const bounded = await walBytesAfterLoad(256);
    const passiveOnly = await walBytesAfterLoad(Number.MAX_SAFE_INTEGER);
    // Each commit adds at least one 4 KB page: without truncation the file holds about every commit of the run.
    expect(passiveOnly.bytes).toBeGreaterThan(passiveOnly.commits * 4096 * 0.5);
    expect(bounded.bytes).toBeLessThan(passiveOnly.bytes / 4);
  });
});
