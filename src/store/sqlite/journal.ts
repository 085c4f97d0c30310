// The command journal: every accepted engine command, in order, with the change records it made (row formats:
// command-codec.ts for commands, json-codec.ts for change records).
import type { Db } from './db.js';
import type { Change } from '../../engine/changes.js';
import type { Command } from '../../engine/types.js';
import { decodeCommand as decode, encodeCommand as encode } from '../command-codec.js';
import { decodeJson, encodeJson } from '../json-codec.js';
import type { JournaledChanges, JournaledCommand } from '../ports.js';

const PAGE = 5000;
/** The settings key under which snapshots.ts records the journal position archived through. */
export const ARCHIVED_THROUGH = 'journal_archived_through';

/** What consumers of the journal read (a read-only connection will do). */
export class JournalReader {
  private readonly changesPage;
  constructor(protected readonly db: Db) {
    this.changesPage = db.prepare('SELECT seq, at_ms, changes FROM journal WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?');
  }

  /** At most `limit` (up to one page) commands' change records after `afterSeq` and through `throughSeq`, in order. */
  changesAfter(afterSeq: number, limit = PAGE, throughSeq = Number.MAX_SAFE_INTEGER): JournaledChanges[] {
    const rows = this.changesPage.all(afterSeq, throughSeq, Math.min(limit, PAGE)) as { seq: number; at_ms: number; changes: string | null }[];
    return rows.map((r) => ({ seq: r.seq, at: r.at_ms, changes: r.changes === null ? undefined : decodeJson<Change[]>(r.changes) }));
  }
}

export class Journal extends JournalReader {
  private readonly insert;
  constructor(db: Db) {
    super(db);
    // Positions never go back: SQLite would give a new row the highest remaining seq + 1, so once an archive had
    // emptied the table the next command would reuse archived positions, which the read models' checkpoint and the
    // snapshots already cover (projected never, lost at the next restart). The archived-through mark bounds them.
    this.insert = db.prepare(
      `INSERT INTO journal (seq, at_ms, command, changes) VALUES (
        MAX(COALESCE((SELECT MAX(seq) FROM journal), 0),
            COALESCE((SELECT CAST(value AS INTEGER) FROM settings WHERE key = '${ARCHIVED_THROUGH}'), 0)) + 1,
        ?, ?, ?)`,
    );
  }

  /** Appends one command and its change records (inside the caller's transaction) and returns its position. */
  append(cmd: Command, changes: readonly Change[]): number {
    return Number(this.insert.run(cmd.at, encode(cmd), encodeJson(changes)).lastInsertRowid);
  }

  /** Commands after `afterSeq` in order. */
  *replay(afterSeq = 0): Generator<JournaledCommand> {
    for (const page of this.replayPages(afterSeq)) yield* page;
  }

  /** The same a page at a time, read one by one so the connection stays free between pages. */
  *replayPages(afterSeq = 0): Generator<JournaledCommand[]> {
    const page = this.db.prepare('SELECT seq, command FROM journal WHERE seq > ? ORDER BY seq LIMIT 5000');
    for (let from = afterSeq; ; ) {
      const rows = page.all(from) as { seq: number; command: string }[];
      if (rows.length === 0) return;
      yield rows.map((row) => ({ seq: row.seq, cmd: decode(row.command) }));
      from = rows[rows.length - 1]!.seq;
    }
  }

  count(): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM journal').get() as { n: number }).n;
  }
}
