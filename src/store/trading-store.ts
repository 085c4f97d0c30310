// The trading side's unit of work: journal rows and the read-model rows their change records produce are written
// in one SQLite transaction (the group commit), so an acknowledged command and what it changed are on disk together.
// Domain code sees only this interface; another database would implement it the same way.
import type { Db } from './db.js';
import type { Change } from '../engine/changes.js';
import type { Command } from '../engine/types.js';
import { Journal } from './journal.js';
import { TradingReadModels } from './read-models.js';
import { SnapshotStore } from './snapshots.js';
import { CatalogueStatusProjection } from './catalogue-status.js';
import type { EngineSnapshot } from '../engine/engine.js';

export interface JournalEntry {
  cmd: Command;
  changes: readonly Change[];
}

export interface TradingStore {
  readonly readModels: TradingReadModels;
  readonly snapshots: SnapshotStore<EngineSnapshot>;
  /** Appends the commands and projects their changes, all or nothing. Returns the last command's position. */
  commit(entries: readonly JournalEntry[]): number;
  /** Journaled commands after `afterSeq` in order, with their positions. */
  replay(afterSeq?: number): Iterable<{ seq: number; cmd: Command }>;
  /** Projects changes of commands already journaled (read models behind the journal after an upgrade). */
  catchUp(entries: readonly { seq: number; changes: readonly Change[] }[]): void;
}

export class SqliteTradingStore implements TradingStore {
  readonly readModels: TradingReadModels;
  readonly snapshots: SnapshotStore<EngineSnapshot>;
  private readonly journal: Journal;
  private readonly commitTx;
  private readonly catchUpTx;

  constructor(db: Db) {
    this.journal = new Journal(db);
    this.readModels = new TradingReadModels(db);
    this.snapshots = new SnapshotStore(db);
    const catalogueStatus = new CatalogueStatusProjection(db);
    this.commitTx = db.transaction((entries: readonly JournalEntry[]): number => {
      let seq = 0;
      for (const e of entries) {
        seq = this.journal.append(e.cmd);
        this.readModels.apply(e.changes);
        catalogueStatus.apply(e.changes);
      }
      if (seq > 0) this.readModels.setPosition(seq);
      return seq;
    });
    this.catchUpTx = db.transaction((entries: readonly { seq: number; changes: readonly Change[] }[]) => {
      for (const e of entries) {
        this.readModels.apply(e.changes);
        catalogueStatus.apply(e.changes);
      }
      const last = entries[entries.length - 1];
      if (last) this.readModels.setPosition(last.seq);
    });
  }

  commit(entries: readonly JournalEntry[]): number {
    return this.commitTx(entries);
  }

  replay(afterSeq = 0): Iterable<{ seq: number; cmd: Command }> {
    return this.journal.replay(afterSeq);
  }

  catchUp(entries: readonly { seq: number; changes: readonly Change[] }[]): void {
    this.catchUpTx(entries);
  }
}
