// rm_trade_counts kept by the writer: the trades a commit records and the status changes of its fills are summed
// per bettor and filter values in memory and written once per commit, where a trigger ran two statements per trade.
import type { Db } from './db.js';
import type { Statement } from 'better-sqlite3';

/** A trade's counted values (the columns of rm_trade_counts but n). */
export interface CountedTrade {
  bettor: string;
  settled: number;
  status: string;
  maker: number;
  base_token: string;
  affiliate: string;
}

export class TradeCounts {
  private readonly deltas = new Map<string, { trade: CountedTrade; n: number }>();
  private readonly add: Statement | undefined;

  constructor(db: Db) {
    // A schema from before the counts keeps none: migration 11 computes them from the rows.
    if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'rm_trade_counts'").get() === undefined) return;
    // Adding either sign through one upsert keeps the changes commutative with the settlement trigger's within a
    // commit (it runs at once, these at its end): a row may pass through zero or below, never the sums.
    this.add = db.prepare('INSERT INTO rm_trade_counts VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET n = n + excluded.n');
  }

  /** Counts `n` (±) trades with these values; written by `write`. */
  count(t: CountedTrade, n: number): void {
    if (!this.add) return;
    // The columns compare without case (COLLATE NOCASE): so do the keys, so that one row takes one statement.
    const key = `${t.bettor.toLowerCase()}|${t.settled}|${t.status}|${t.maker}|${t.base_token.toLowerCase()}|${t.affiliate.toLowerCase()}`;
    const d = this.deltas.get(key);
    if (d) d.n += n;
    else this.deltas.set(key, { trade: t, n });
  }

  /** Writes the counted changes (inside the commit's transaction) and starts afresh. */
  write(): void {
    for (const { trade: t, n } of this.deltas.values()) {
      if (n !== 0) this.add!.run(t.bettor, t.settled, t.status, t.maker, t.base_token, t.affiliate, n);
    }
    this.deltas.clear();
  }

  /** Drops changes not written (their transaction rolled back). */
  discard(): void {
    this.deltas.clear();
  }
}
