// Prepared statements of queries whose SQL is assembled per request from the filters sent (GET /trades,
// GET /trades/consolidated): preparing costs as much as running a small query, and the filter combinations seen in
// practice are few. The least recently used statement is dropped past `capacity`, so odd combinations cannot pile up.
import type { Statement } from 'better-sqlite3';
import type { Db } from './db.js';

export class StatementCache {
  private readonly statements = new Map<string, Statement>();

  constructor(
    private readonly db: Db,
    private readonly capacity = 64,
  ) {}

  /** The statement of `sql`, prepared once while it stays among the recently used. */
  get(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (statement) {
      // Re-inserted: a Map keeps insertion order, so the first key is the least recently used.
      this.statements.delete(sql);
    } else {
      statement = this.db.prepare(sql);
      if (this.statements.size >= this.capacity) this.statements.delete(this.statements.keys().next().value!);
    }
    this.statements.set(sql, statement);
    return statement;
  }

  get size(): number {
    return this.statements.size;
  }
}
