// A trading store whose commits are projected into the read models at once, on the same connection: what a writer
// and its projector leave on disk once the projector has caught up, for tests of what both write.
import type { Db } from '../../src/store/sqlite/db.js';
import { ReadModelProjector } from '../../src/store/sqlite/projector.js';
import { SqliteTradingStore } from '../../src/store/sqlite/trading-store.js';
import type { JournalEntry } from '../../src/store/ports.js';

/** The entries of one commit as the projector takes them, given the position the commit returned for the last. */
export const projectedEntries = (entries: readonly JournalEntry[], last: number) =>
  entries.map((e, i) => ({ seq: last - entries.length + 1 + i, at: e.cmd.at, changes: e.changes }));

export function inlineProjected(db: Db) {
  const store = new SqliteTradingStore(db);
  const projector = new ReadModelProjector(db);
  return {
    store,
    projector,
    readModels: projector.readModels,
    snapshots: store.snapshots,
    replay: (afterSeq?: number) => store.replay(afterSeq),
    /** Journals the entries, then projects them; returns the last one's position. */
    commit(entries: readonly JournalEntry[]): number {
      const last = store.commit(entries);
      projector.project([projectedEntries(entries, last)]);
      return last;
    },
  };
}
