// The SQLite projector's thread projects only what the writer has acknowledged. The writer commits a group before its
// WAL is synced and acknowledges it after, so the journal may show rows that are not durable yet: read models must
// never lead the durable journal, and the writer's thread publishes a group only once it has handed it over. A stop
// whose last batch the read models' database refuses (a full disk, a lock held) reports that database's message.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, READ_MODELS_FILE } from './db.js';
import { Journal } from './journal.js';
import { ProjectorThread, threadErrorMessage } from '../projector-thread.js';

const dirs: string[] = [];
const threads: ProjectorThread[] = [];
afterEach(async () => {
  for (const t of threads.splice(0)) await t.stop();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A data dir whose journal holds five faucet commands, none projected. */
function dataDirWithFiveCommands(): string {
  const dataDir = mkdtempSync(join(tmpdir(), 'oddex-projector-worker-'));
  dirs.push(dataDir);
  const db = openDatabase(dataDir);
  const journal = new Journal(db);
  const at = 1_700_000_000_000;
  for (let i = 1; i <= 5; i++) journal.append({ kind: 'faucet', at: at + i, address: '0x' + 'a'.repeat(40), amount: BigInt(i) }, []);
  db.close();
  return dataDir;
}

describe('the SQLite projector thread', () => {
  it('stops at the acknowledged position, whatever the journal holds beyond it', async () => {
    const dataDir = dataDirWithFiveCommands();

    const reports: number[] = [];
    const problems: string[] = [];
    let loaded!: () => void;
    const ready = new Promise<void>((resolve) => (loaded = resolve));
    const thread = new ProjectorThread(
      { store: { kind: 'sqlite', dataDir, busyTimeoutMs: 5_000 }, maxBatch: 100, retryMs: 10, delayMs: 0 },
      { loaded: () => loaded(), projected: (position) => reports.push(position), problem: (m) => problems.push(m) },
    );
    threads.push(thread);
    await ready;

    thread.advance(3);
    expect(thread.waitUntil(3, 10_000)).toBe(true);
    // Time enough for the thread to go on if it would.
    await new Promise((r) => setTimeout(r, 200));
    expect([thread.position, reports]).toEqual([3, [3]]);

    thread.advance(5);
    expect(thread.waitUntil(5, 10_000)).toBe(true);
    await new Promise((r) => setTimeout(r, 50));
    expect([thread.position, reports, problems]).toEqual([5, [3, 5], []]);
  });

  it('reports with its message a batch the read models refuse at the stop, rather than `undefined`', async () => {
    const dataDir = dataDirWithFiveCommands();

    const problems: string[] = [];
    let loaded!: () => void;
    const ready = new Promise<void>((resolve) => (loaded = resolve));
    const thread = new ProjectorThread(
      { store: { kind: 'sqlite', dataDir, busyTimeoutMs: 100 }, maxBatch: 100, retryMs: 50, delayMs: 0 },
      { loaded: () => loaded(), projected: () => {}, problem: (m) => problems.push(m) },
    );
    threads.push(thread);
    await ready;
    thread.advance(2);
    expect(thread.waitUntil(2, 10_000)).toBe(true);

    // Another connection holds the read models' write lock: the batches after it, and the stop's, are refused.
    const holder = new Database(join(dataDir, READ_MODELS_FILE));
    holder.exec('BEGIN IMMEDIATE');
    try {
      thread.advance(5);
      for (let i = 0; i < 100 && problems.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      await thread.stop();
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.filter((m) => !/database is locked/.test(m))).toEqual([]);
    expect(problems.at(-1)).toBe('not projected at the stop: database is locked');
    expect(thread.position).toBe(2);
  });

  it("names what a thread's error event carries, whatever crossed", () => {
    expect(threadErrorMessage(new Error('database or disk is full'))).toBe('database or disk is full');
    // A SqliteError thrown out of a worker arrives as a plain object of its enumerable properties.
    expect(threadErrorMessage({ code: 'SQLITE_FULL' })).toBe('{"code":"SQLITE_FULL"}');
    expect(threadErrorMessage({ message: 'gone', code: 'X' })).toBe('gone');
    expect(threadErrorMessage('boom')).toBe('a thrown string: boom');
    expect(threadErrorMessage(undefined)).toBe('a thrown value: undefined');
    expect(threadErrorMessage({ big: 1n })).toBe('[object Object]');
  });
});
