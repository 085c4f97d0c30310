// How a transaction changes a listing-totals table (rm_trade_counts: a bettor's trades per settlement state, status,
// side, token and affiliate; rm_consolidated_counts: consolidated entries per settlement state, status, side and
// kind) when it records trades, gives them their fill's outcome or lists a fill's entries: summed in memory per key,
// then written with one upsert per key just before the transaction commits. A market maker's trades and entries of
// one group commit share a key, so they cost one write instead of one each (the triggers this replaces wrote one per
// row, and two per change of state). Rarer changes (settling, deleting) stay with the tables' triggers, which upsert
// deltas too (migration 13), so the totals come out the same whatever order a transaction writes them in.
import type { Statement } from 'better-sqlite3';
import type { Db } from './db.js';

/** A totals row's key columns, in the table's order; text columns compare without case, as the tables' keys do. */
export type CountKey = readonly (string | number)[];

export class CountDeltas {
  private readonly upsert: Statement;
  /** Per key (text in lower case), the key as first seen and its delta. */
  private readonly deltas = new Map<string, { key: CountKey; n: number }>();

  constructor(db: Db, table: 'rm_trade_counts' | 'rm_consolidated_counts', keyColumns: number) {
    const values = Array.from({ length: keyColumns + 1 }, () => '?').join(', ');
    this.upsert = db.prepare(`INSERT INTO ${table} VALUES (${values}) ON CONFLICT DO UPDATE SET n = n + excluded.n`);
  }

  add(key: CountKey, delta: number): void {
    const id = key.map((v) => (typeof v === 'string' ? v.toLowerCase() : v)).join(' ');
    const entry = this.deltas.get(id);
    if (entry) entry.n += delta;
    else this.deltas.set(id, { key, n: delta });
  }

  /** Writes the summed deltas (inside the transaction that made them) and starts afresh. */
  write(): void {
    for (const { key, n } of this.deltas.values()) if (n !== 0) this.upsert.run(...key, n);
    this.deltas.clear();
  }

  /** Forgets deltas a rolled-back transaction made. */
  discard(): void {
    this.deltas.clear();
  }
}
