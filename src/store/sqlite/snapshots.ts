// Engine snapshots: the state as of a journal position, checksummed. The newest valid one plus the journal's tail
// rebuilds the engine; a damaged one is skipped for the one before it. Journal rows at or below the oldest kept
// snapshot (and projected into the read models) can be archived to a compressed file and deleted (an operator's
// command).
import { createHash } from 'node:crypto';
import type { Db } from './db.js';
import { getSetting, putSetting } from './db.js';
import { decodeJson, encodeJson } from '../json-codec.js';
import type { SnapshotPort, StoredSnapshot } from '../ports.js';
import { writeArchiveFile, type ArchivedRange, type ArchivedRow } from '../journal-archive-file.js';
import { ARCHIVED_THROUGH } from './journal.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

export class SnapshotStore<T> implements SnapshotPort<T> {
  constructor(
    private readonly db: Db,
    /** How many snapshots to keep: older ones are the fallback when the newest is damaged. */
    private readonly keep = 2,
  ) {}

  /** Writes a snapshot of the state as of journal position `seq` and drops the ones beyond `keep`. */
  write(seq: number, state: T, takenAt: number): void {
    const body = encodeJson(state);
    this.db.transaction(() => {
      this.db.prepare('INSERT OR REPLACE INTO snapshots (journal_seq, taken_at, body, sha256) VALUES (?, ?, ?, ?)').run(seq, takenAt, body, sha256(body));
      this.db
        .prepare('DELETE FROM snapshots WHERE journal_seq NOT IN (SELECT journal_seq FROM snapshots ORDER BY journal_seq DESC LIMIT ?)')
        .run(this.keep);
    })();
  }

  /**
   * Snapshots whose checksum holds, newest first, decoded one at a time (a bad one is skipped by the caller too).
   * Read synchronously; the port is async for stores read over a connection.
   */
  async *valid(): AsyncGenerator<StoredSnapshot<T>> {
    const seqs = (this.db.prepare('SELECT journal_seq AS seq FROM snapshots ORDER BY journal_seq DESC').all() as { seq: number }[]).map((r) => r.seq);
    for (const seq of seqs) {
      const row = this.db.prepare('SELECT body, sha256 FROM snapshots WHERE journal_seq = ?').get(seq) as { body: string; sha256: string };
      if (sha256(row.body) !== row.sha256) continue;
      let state: T;
      try {
        state = decodeJson<T>(row.body);
      } catch {
        continue;
      }
      yield { seq, state };
    }
  }

  /** The journal position through which rows were archived (0: the journal is whole). */
  archivedThrough(): number {
    return Number(getSetting(this.db, ARCHIVED_THROUGH) ?? 0);
  }

  /** See SnapshotPort.archiveJournal. */
  async archiveJournal(dir: string, projectedThrough: number): Promise<ArchivedRange | undefined> {
    const oldest = this.db.prepare('SELECT MIN(journal_seq) AS seq FROM snapshots').get() as { seq: number | null };
    const from = this.archivedThrough() + 1;
    const to = Math.min(oldest.seq ?? 0, projectedThrough);
    if (to < from) return undefined;
    const rows = this.db.prepare('SELECT seq, at_ms, command, changes FROM journal WHERE seq BETWEEN ? AND ? ORDER BY seq').all(from, to) as ArchivedRow[];
    const written = await writeArchiveFile(dir, from, to, (async function* () {
      yield rows;
    })());
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM journal WHERE seq BETWEEN ? AND ?').run(from, to);
      putSetting(this.db, ARCHIVED_THROUGH, String(to));
    })();
    return { from, to, ...written };
  }
}
