// Fee revenue from rm_fees (each fee the projector recorded with its time): per UTC day and market, for the operator.
import type { Statement } from 'better-sqlite3';
import type { Db } from './db.js';
import type { FeeQueries, FeeRevenue } from '../ports.js';

export class FeeRevenueReads implements FeeQueries {
  private readonly between: Statement;

  constructor(db: Db) {
    this.between = db.prepare('SELECT market_hash, fee, affiliate_fee, charged_at FROM rm_fees WHERE charged_at >= ? AND charged_at < ? ORDER BY id');
  }

  /**
   * Fees taken from `from` up to `to` (ms, end excluded), summed per UTC day and market in wei (summed here, in
   * bigint: SQLite's SUM would round past 2^63), by day then market hash.
   */
  feeRevenue(from: number, to: number): FeeRevenue[] {
    const byKey = new Map<string, FeeRevenue>();
    for (const r of this.between.iterate(from, to) as Iterable<{ market_hash: string; fee: string; affiliate_fee: string; charged_at: number }>) {
      const day = new Date(r.charged_at).toISOString().slice(0, 10);
      const key = `${day}|${r.market_hash}`;
      let sum = byKey.get(key);
      if (!sum) byKey.set(key, (sum = { day, marketHash: r.market_hash, fees: 0n, affiliateFees: 0n, charges: 0 }));
      sum.fees += BigInt(r.fee);
      sum.affiliateFees += BigInt(r.affiliate_fee);
      sum.charges++;
    }
    return [...byKey.values()].sort((a, b) => (a.day !== b.day ? (a.day < b.day ? -1 : 1) : a.marketHash < b.marketHash ? -1 : a.marketHash > b.marketHash ? 1 : 0));
  }
}
