// The command journal: every accepted engine command, in order. Commands are JSON with bigints tagged as {"$n": "..."}.
import type { Db } from './db.js';
import type { Command } from '../engine/types.js';

const encode = (cmd: Command) =>
  JSON.stringify(cmd, (_k, v: unknown) => (typeof v === 'bigint' ? { $n: v.toString() } : v));
const decode = (text: string) =>
  JSON.parse(text, (_k, v: unknown) =>
    v !== null && typeof v === 'object' && '$n' in v && Object.keys(v).length === 1 ? BigInt((v as { $n: string }).$n) : v,
  ) as Command;

export class Journal {
  private readonly insert;
  constructor(private readonly db: Db) {
    this.insert = db.prepare('INSERT INTO journal (at_ms, command) VALUES (?, ?)');
  }

  /** Appends commands in one transaction: the unit of group commit. */
  appendAll(commands: readonly Command[]): void {
    this.db.transaction(() => {
      for (const cmd of commands) this.insert.run(cmd.at, encode(cmd));
    })();
  }

  *replay(): Generator<Command> {
    for (const row of this.db.prepare('SELECT command FROM journal ORDER BY seq').iterate() as Iterable<{ command: string }>) {
      yield decode(row.command);
    }
  }

  count(): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM journal').get() as { n: number }).n;
  }
}
