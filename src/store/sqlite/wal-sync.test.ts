import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { DB_FILE, openDatabase, openTradingConnection, type Db } from './db.js';
import { COMMITS_ALREADY_DURABLE, walSyncOf } from './wal-sync.js';
import type { CheckpointRun, CheckpointerOptions } from './checkpointer.js';

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

/**
 * Runs `body` on a fresh data dir's two connections with a checkpoint thread on the trading one, then stops and removes
 * all. `beforeStart` runs before the thread starts: the thread runs in parallel from its start, so what a test needs in
 * place before the first checkpoint cannot wait for `body`.
 */
async function withCheckpointer<T>(
  opts: Omit<CheckpointerOptions, 'onProblem'> & { onProblem?: CheckpointerOptions['onProblem'] },
  body: (db: { dir: string; trading: Db; insertRow: (key: string) => void }) => Promise<T>,
  beforeStart: (dir: string) => void = () => {},
): Promise<T> {
  const { Checkpointer } = await import('./checkpointer.js');
  const dir = mkdtempSync(join(tmpdir(), 'oddex-checkpoint-'));
  try {
    const main = openDatabase(dir);
    const trading = openTradingConnection(dir);
    beforeStart(dir);
    const checkpointer = new Checkpointer(trading, { onProblem: () => {}, ...opts });
    const insert = trading.prepare('INSERT INTO settings (key, value) VALUES (?, ?)');
    try {
      return await body({ dir, trading, insertRow: (key) => insert.run(key, 'x'.repeat(3000)) });
    } finally {
      await checkpointer.stop();
      trading.close();
      main.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A read transaction left open on a data dir (an operator's shell, a backup): `hold` opens it, `release` ends it. */
function openReader() {
  let reader: Db | undefined;
  return {
    hold: (dir: string) => {
      reader = openTradingConnection(dir);
      reader.exec('BEGIN');
      reader.prepare('SELECT count(*) FROM settings').get();
    },
    release: () => {
      reader?.exec('COMMIT');
      reader?.close();
    },
  };
}

describe('WAL checkpoints off the writer thread', () => {
  it('turns the writer connection\'s automatic checkpoints off and checkpoints its commits from its own thread', async () => {
    const runs: CheckpointRun[] = [];
    const problems: unknown[] = [];
    await withCheckpointer({ everyMs: 20, onRun: (r) => runs.push(r), onProblem: (e) => problems.push(e) }, async ({ trading, insertRow }) => {
      expect(trading.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
      for (let i = 0; i < 50; i++) insertRow(`k${i}`);
      for (let i = 0; i < 100 && !runs.some((r) => r.checkpointed === r.walFrames); i++) await new Promise((r) => setTimeout(r, 20));
    });
    const done = runs.find((r) => r.checkpointed === r.walFrames);
    expect(done?.walFrames).toBeGreaterThanOrEqual(50);
    expect(problems).toEqual([]);
  });

  it('does not keep taking the write lock while a read transaction is left open, and restarts the WAL once it closes', async () => {
    const runs: CheckpointRun[] = [];
    // The reader holds its snapshot before the first checkpoint: a RESTART made before it would let the next commit
    // start the WAL afresh, which counts as progress and allows one more (blocked) attempt.
    const reader = openReader();
    await withCheckpointer({ everyMs: 5, restartAtFrames: 64, onRun: (r) => runs.push(r) }, async ({ insertRow }) => {
      let i = 0;
      const commitFor = async (ms: number) => {
        for (const until = Date.now() + ms; Date.now() < until; ) {
          for (let j = 0; j < 5; j++) insertRow(`k${i++}`);
          await new Promise((r) => setTimeout(r, 1));
        }
      };
      await commitFor(1000);
      // Each RESTART attempt held commits back while it waited for the reader: one is made, not one per run. (Under
      // load a second can be: the checkpoint thread's first runs may see the WAL before the writer's commits and
      // after them, and each of those looks like progress.)
      const whileHeld = runs.splice(0).map((r) => r.restart);
      expect(whileHeld.length).toBeGreaterThan(10);
      expect(whileHeld.filter((e) => e !== 'none').length).toBeLessThanOrEqual(2);
      reader.release();
      await commitFor(500);
    }, reader.hold);
    expect(runs.map((r) => r.restart)).toContain('done');
  });

  it('tries a RESTART past an open read transaction once, not on every run while nothing is committed', async () => {
    const runs: CheckpointRun[] = [];
    const reader = openReader();
    // The schema's own frames are past 16, and all of them are copied: with no commits, each run finds nothing left to
    // copy, which alone would count as progress and let every run take the write lock again for the reader.
    await withCheckpointer({ everyMs: 5, restartAtFrames: 16, onRun: (r) => runs.push(r) }, async () => {
      for (let i = 0; i < 200 && runs.length < 20; i++) await new Promise((r) => setTimeout(r, 10));
      reader.release();
    }, reader.hold);
    expect(runs.length).toBeGreaterThanOrEqual(20);
    expect(runs.filter((r) => r.restart !== 'none')).toEqual([expect.objectContaining({ restart: 'busy' })]);
  });

  it('keeps the WAL file bounded under group commits without pauses a passive checkpoint can use, where it alone lets the file grow', async () => {
    const runs: CheckpointRun[] = [];
    const commitUntil = (until: () => boolean) =>
      async ({ dir, trading, insertRow }: { dir: string; trading: Db; insertRow: (key: string) => void }) => {
        let rows = 0;
        const groupCommit = trading.transaction(() => {
          for (let j = 0; j < 20; j++) insertRow(`k${rows++}`);
        });
        // Group commits with a millisecond between them, as while the server syncs a group: too short for a passive
        // checkpoint to catch up with the writer.
        while (!until()) {
          groupCommit();
          await new Promise((r) => setTimeout(r, 1));
        }
        return { bytes: statSync(join(dir, `${DB_FILE}-wal`)).size };
      };
    const passiveEnd = Date.now() + 1500;
    const passiveOnly = await withCheckpointer({ everyMs: 5, restartAtFrames: Number.MAX_SAFE_INTEGER }, commitUntil(() => Date.now() > passiveEnd));
    // Passive checkpoints alone leave the file past 4 times the 256 frames (4 KB pages) at which it restarts below;
    // how far past depends on how often the writer let one catch up (about every row's page when it never did).
    expect(passiveOnly.bytes).toBeGreaterThan(256 * 4096 * 4);
    // The same commits with restarts past 256 frames: they happen (on a loaded machine it may take a few runs), and a
    // commit after a restart cuts the file to at most twice that.
    const boundedEnd = Date.now() + 10_000;
    const bounded = await withCheckpointer(
      { everyMs: 5, restartAtFrames: 256, onRun: (r) => runs.push(r) },
      commitUntil(() => (runs.some((r) => r.restart === 'done') && Date.now() > passiveEnd + 1500) || Date.now() > boundedEnd),
    );
    expect(runs.map((r) => r.restart)).toContain('done');
    expect(bounded.bytes).toBeLessThanOrEqual(256 * 4096 * 4);
  });
});
