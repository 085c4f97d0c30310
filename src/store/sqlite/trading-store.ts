// The trading side's unit of work: journal rows (each command with its change records) and the catalogue statuses
// they set are written in one SQLite transaction (the group commit); read models are derived from the journal after
// it (projector.ts), in their own database.
// Writing and making durable are two steps: `commit` writes (on the calling thread), `sync` makes every written
// commit durable without holding that thread, so the runner can apply the next commands meanwhile.
// Domain code sees only the TradingStore port (../ports.ts); another database implements it the same way.
import Database from 'better-sqlite3';
import { putSetting, type Db } from './db.js';
import { Journal } from './journal.js';
import { StoreBusyError, type JournalEntry, type JournaledChanges, type JournaledCommand, type TradingStore } from '../ports.js';
import { SnapshotStore } from './snapshots.js';
import { CatalogueStatusProjection } from './catalogue-status.js';
import type { EngineSnapshot } from '../../engine/engine.js';
import { COMMITS_ALREADY_DURABLE, type WalSync } from './wal-sync.js';

/** SQLITE_BUSY and its extended codes (SQLITE_BUSY_SNAPSHOT, ...): another connection holds a lock this one needs. */
const isBusy = (err: unknown): boolean => err instanceof Database.SqliteError && /^SQLITE_BUSY(_|$)/.test(err.code);

export class SqliteTradingStore implements TradingStore {
  readonly snapshots: SnapshotStore<EngineSnapshot>;
  private readonly journal: Journal;
  private readonly commitTx;
  /** Restores the connection's wait for a lock another connection holds, which commits turn off. */
  private readonly restoreBusyTimeout: string;

  /** `durability` syncs what `db` commits: the default fits a synchronous=FULL (or in-memory) connection. */
  constructor(
    private readonly db: Db,
    private readonly durability: WalSync = COMMITS_ALREADY_DURABLE,
  ) {
    this.restoreBusyTimeout = `PRAGMA busy_timeout = ${db.pragma('busy_timeout', { simple: true }) as number}`;
    this.journal = new Journal(db);
    this.snapshots = new SnapshotStore(db);
    const catalogueStatus = new CatalogueStatusProjection(db);
    this.commitTx = db.transaction((entries: readonly JournalEntry[]): number => {
      let seq = 0;
      for (const e of entries) {
        seq = this.journal.append(e.cmd, e.changes);
        catalogueStatus.apply(e.changes);
      }
      return seq;
    });
  }

  commit(entries: readonly JournalEntry[]): number {
    // Not in SQLite's busy handler: its sleeps of 1, 2, 5, 10 and 15 ms turn a checkpoint that holds the lock for a
    // few milliseconds into a stall of 8-33. The caller retries at its own pace (the runner: every millisecond).
    // A pragma acts when prepared (SQLite's pragma.c), so each toggle is compiled anew; exec does that without the
    // statement object db.pragma builds (0.8 µs a toggle against 3.6).
    this.db.exec('PRAGMA busy_timeout = 0');
    try {
      return this.commitTx(entries);
    } catch (err) {
      throw isBusy(err) ? new StoreBusyError(err) : err;
    } finally {
      this.db.exec(this.restoreBusyTimeout);
    }
  }

  sync(): Promise<void> {
    return this.durability.sync();
  }

  /** A setting written in the journal's database, as a commit writes it (readiness after a refused commit). */
  probeWrite(): void {
    this.db.exec('PRAGMA busy_timeout = 0');
    try {
      putSetting(this.db, 'storage.lastWriteProbe', String(Date.now()));
    } finally {
      this.db.exec(this.restoreBusyTimeout);
    }
  }

  syncNow(): void {
    this.durability.syncNow();
  }

  /** The journal's pages are read synchronously; the port is async for stores that read over a connection. */
  async *replay(afterSeq = 0): AsyncGenerator<JournaledCommand[]> {
    yield* this.journal.replayPages(afterSeq);
  }

  changesAfter(afterSeq: number, limit?: number): Promise<JournaledChanges[]> {
    return Promise.resolve(this.journal.changesAfter(afterSeq, limit));
  }
}
