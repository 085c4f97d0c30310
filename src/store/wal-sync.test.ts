import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { DB_FILE, openDatabase, openTradingConnection } from './db.js';
import { COMMITS_ALREADY_DURABLE, walSyncOf } from './wal-sync.js';
import type { CheckpointRun } from './checkpointer.js';

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

  it('does not keep taking the write lock while a read transaction is left open, and empties the WAL once it closes', async () => {
    const { Checkpointer } = await import('./checkpointer.js');
    const dir = mkdtempSync(join(tmpdir(), 'oddex-checkpoint-'));
    try {
      const main = openDatabase(dir);
      const trading = openTradingConnection(dir);
      const runs: CheckpointRun[] = [];
      const checkpointer = new Checkpointer(trading, { everyMs: 5, truncateAtFrames: 64, onRun: (r) => runs.push(r), onProblem: () => {} });
      const insert = trading.prepare('INSERT INTO settings (key, value) VALUES (?, ?)');
      let i = 0;
      const commitFor = async (ms: number) => {
        for (const until = Date.now() + ms; Date.now() < until; ) {
          for (let j = 0; j < 5; j++) insert.run(`k${i++}`, 'x'.repeat(3000));
          await new Promise((r) => setTimeout(r, 1));
        }
      };
      const reader = openTradingConnection(dir);
      reader.exec('BEGIN');
      reader.prepare('SELECT count(*) FROM settings').get();
      await commitFor(1000);
      // Each TRUNCATE attempt held commits back while it waited for the reader: at most the first one is made.
      const whileHeld = runs.splice(0).map((r) => r.emptying);
      expect(whileHeld.length).toBeGreaterThan(10);
      expect(whileHeld.filter((e) => e !== 'none').length).toBeLessThanOrEqual(1);
      reader.exec('COMMIT');
      reader.close();
      await commitFor(500);
      expect(runs.map((r) => r.emptying)).toContain('emptied');
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
        let i = 0;
        const groupCommit = trading.transaction(() => {
          for (let j = 0; j < 20; j++) insert.run(`k${i++}`, 'x'.repeat(3000));
        });
        // Group commits back to back for 1.5 s, yielding only to let the checkpoint thread's messages through.
        for (const until = Date.now() + 1500; Date.now() < until; ) {
          groupCommit();
          await new Promise((r) => setImmediate(r));
        }
        const bytes = statSync(join(dir, `${DB_FILE}-wal`)).size;
        await checkpointer.stop();
        trading.close();
        main.close();
        return { bytes, rows: i };
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    };
    const bounded = await walBytesAfterLoad(256);
    const passiveOnly = await walBytesAfterLoad(Number.MAX_SAFE_INTEGER);
    // Each 3,000-byte row fills most of a 4 KB page: without truncation the file holds about every row of the run.
    expect(passiveOnly.bytes).toBeGreaterThan(passiveOnly.rows * 4096 * 0.5);
    expect(bounded.bytes).toBeLessThan(passiveOnly.bytes / 4);
  });
});
