// The trading side's unit of work: journal rows (each command with its change records) and the catalogue statuses
// they set are written in one SQLite transaction (the group commit); read models are derived from the journal after
// it (projector.ts), in their own database.
// Writing and making durable are two steps: `commit` writes (on the calling thread), `sync` makes every written
// commit durable without holding that thread, so the runner can apply the next commands meanwhile.
// Domain code sees only the TradingStore port (../ports.ts); another database implements it the same way.
import Database from 'better-sqlite3';
import { dirname } from 'node:path';
import { putSetting, type Db } from './db.js';
import { probeWritable } from './data-dir.js';
import { encodeCommand } from '../command-codec.js';
import { encodeJson } from '../json-codec.js';
import { Journal } from './journal.js';
import { StoreBusyError, type JournalEntry, type JournaledChanges, type JournaledCommand, type TradingStore } from '../ports.js';
import { SnapshotStore } from './snapshots.js';
import { CatalogueStatusProjection } from './catalogue-status.js';
import type { EngineSnapshot } from '../../engine/engine.js';
import { COMMITS_ALREADY_DURABLE, type WalSync } from './wal-sync.js';

/** SQLITE_BUSY and its extended codes (SQLITE_BUSY_SNAPSHOT, ...): another connection holds a lock this one needs. */
const isBusy = (err: unknown): boolean => err instanceof Database.SqliteError && /^SQLITE_BUSY(_|$)/.test(err.code);

/**
 * The least free space readiness asks for after a refused commit, whatever the refused group's size: a disk with less
 * than this is about to refuse the next group anyway.
 */
const MIN_PROBE_ROOM_BYTES = 1024 * 1024;
/**
 * A write probe that failed is not made again for this long (readiness checks meanwhile get the same refusal): each
 * writes and syncs a file of at least 1 MiB on the event loop, and readiness checks are not rate-limited.
 */
const PROBE_RETRY_MS = 1000;
/** WAL frame header: each page a commit changes is appended to the WAL with one. */
const WAL_FRAME_HEADER_BYTES = 24;

/**
 * The WAL bytes a commit of `entries` needs, generously: its rows' text on pages half full (B-tree splits, the
 * index entries), plus the pages every commit changes besides (the B-trees' inner pages, the catalogue's statuses),
 * twice over: the free space readiness asks for before it says the exchange can commit again.
 */
function roomFor(entries: readonly JournalEntry[], pageSize: number): number {
  let bytes = 0;
  for (const e of entries) bytes += encodeCommand(e.cmd).length + encodeJson(e.changes).length + 64;
  const pages = Math.ceil(bytes / (pageSize / 2)) + 16;
  return Math.max(MIN_PROBE_ROOM_BYTES, 2 * pages * (pageSize + WAL_FRAME_HEADER_BYTES));
}

export class SqliteTradingStore implements TradingStore {
  readonly snapshots: SnapshotStore<EngineSnapshot>;
  private readonly journal: Journal;
  private readonly commitTx;
  /** Restores the connection's wait for a lock another connection holds, which commits turn off. */
  private readonly restoreBusyTimeout: string;
  /** The dir of the database's file, where the write probe checks for room (none for an in-memory database). */
  private readonly dir: string | undefined;
  private readonly pageSize: number;
  /** Free space the last refused commit needed (roomFor), until a commit succeeds: what the write probe asks for. */
  private refusedRoom = 0;
  /** The last write probe's failure (when, on the monotonic clock, and why), until a probe succeeds. */
  private probeFailed: { at: number; err: Error } | undefined;

  /** `durability` syncs what `db` commits: the default fits a synchronous=FULL (or in-memory) connection. */
  constructor(
    private readonly db: Db,
    private readonly durability: WalSync = COMMITS_ALREADY_DURABLE,
  ) {
    this.restoreBusyTimeout = `PRAGMA busy_timeout = ${db.pragma('busy_timeout', { simple: true }) as number}`;
    this.dir = db.memory || db.name === '' ? undefined : dirname(db.name);
    this.pageSize = db.pragma('page_size', { simple: true }) as number;
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
      const seq = this.commitTx(entries);
      this.refusedRoom = 0;
      return seq;
    } catch (err) {
      if (isBusy(err)) throw new StoreBusyError(err);
      this.refusedRoom = roomFor(entries, this.pageSize);
      throw err;
    } finally {
      this.db.exec(this.restoreBusyTimeout);
    }
  }

  sync(): Promise<void> {
    return this.durability.sync();
  }

  /**
   * Readiness after a refused commit: room on the disk for the group that was refused (a file that size, at least
   * 1 MiB, written, synced and removed), then a setting written in the journal's database, as a commit writes it. A
   * one-row write alone fits in the few pages an operator's cleanup or another program frees, while the next real
   * group would still be refused; the file gives its room back, so the probe does not fill the disk it measures. A
   * failed probe is made again a second later at the soonest.
   */
  probeWrite(): void {
    if (this.probeFailed && performance.now() - this.probeFailed.at < PROBE_RETRY_MS) throw this.probeFailed.err;
    const write = () => putSetting(this.db, 'storage.lastWriteProbe', String(Date.now()));
    this.db.exec('PRAGMA busy_timeout = 0');
    try {
      if (this.dir === undefined) write();
      else {
        const reason = probeWritable(this.dir, write, this.refusedRoom);
        if (reason !== undefined) throw new Error(`the data dir has no room for a commit yet: ${reason}`);
      }
      this.probeFailed = undefined;
    } catch (err) {
      this.probeFailed = { at: performance.now(), err: err instanceof Error ? err : new Error(String(err)) };
      throw err;
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
