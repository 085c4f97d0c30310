// How a transaction changes rm_trade_counts (a bettor's trades per settlement state, status, side, token and
// affiliate) when it records trades or gives them their fill's outcome: summed in memory per counted key, then
// written with one upsert per key just before the transaction commits. A market maker's trades of one group commit
// share a key, so they cost one write instead of one per trade (the trigger this replaces wrote a row per trade, and
// two per status change). Settling and deleting trades are rare and stay with the table's triggers (migration 13).
import type { Statement } from 'better-sqlite3';
import type { Db } from './db.js';
import type { TradeStatus } from '../engine/types.js';

/** A row of rm_trade_counts without its count: the columns it is keyed by, as the trade row holds them. */
export type TradeCountKey = [bettor: string, settled: 0 | 1, status: TradeStatus, maker: 0 | 1, baseToken: string, affiliate: string];

export class TradeCountDeltas {
  private readonly upsert: Statement;
  /** Per key (addresses in lower case, as the table's NOCASE key compares them), the key's row and its delta. */
  private readonly deltas = new Map<string, { key: TradeCountKey; n: number }>();

  constructor(db: Db) {
    this.upsert = db.prepare('INSERT INTO rm_trade_counts VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET n = n + excluded.n');
  }

  add(key: TradeCountKey, delta: number): void {
    const [bettor, settled, status, maker, baseToken, affiliate] = key;
    const id = `${bettor.toLowerCase()} ${settled} ${status} ${maker} ${baseToken.toLowerCase()} ${affiliate.toLowerCase()}`;
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
