// The command journal: every accepted engine command, in order (row formats: command-codec.ts).
import type { Db } from './db.js';
import type { Command } from '../engine/types.js';
import { decodeCommand as decode, encodeCommand as encode } from './command-codec.js';

export class Journal {
  private readonly insert;
  constructor(private readonly db: Db) {
    this.insert = db.prepare('INSERT INTO journal (at_ms, command) VALUES (?, ?)');
  }

  /** Appends one command (inside the caller's transaction) and returns its position. */
  append(cmd: Command): number {
    return Number(this.insert.run(cmd.at, encode(cmd)).lastInsertRowid);
  }

  /** Commands after `afterSeq` in order, read a page at a time so the connection stays free between pages. */
  *replay(afterSeq = 0): Generator<{ seq: number; cmd: Command }> {
    const page = this.db.prepare('SELECT seq, command FROM journal WHERE seq > ? ORDER BY seq LIMIT 5000');
    for (let from = afterSeq; ; ) {
      const rows = page.all(from) as { seq: number; command: string }[];
      if (rows.length === 0) return;
      for (const row of rows) yield { seq: row.seq, cmd: decode(row.command) };
      from = rows[rows.length - 1]!.seq;
    }
  }

  count(): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM journal').get() as { n: number }).n;
  }
}
