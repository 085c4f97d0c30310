// Fee revenue from rm_fees (each fee the projector recorded with its time), per UTC day and market, for the operator.
import type { AsyncQueries, FeeQueries, FeeRevenue } from '../../ports.js';
import { bound, type Queryable } from '../trade-state.js';

export class PostgresFeeRevenue implements AsyncQueries<FeeQueries> {
  constructor(private readonly db: Queryable) {}

  /**
   * Fees taken from `from` up to `to` (ms, end excluded), summed per UTC day and market in wei (numeric sums are
   * exact), by day then market hash (byte order, as the SQLite version compares them).
   */
  async feeRevenue(from: number, to: number): Promise<FeeRevenue[]> {
    const { rows } = await this.db.query<{ day: string; market_hash: string; fees: string; affiliate_fees: string; charges: string }>(
      `SELECT to_char(DATE '1970-01-01' + (charged_at / 86400000)::integer, 'YYYY-MM-DD') AS day, market_hash,
         SUM(fee) AS fees, SUM(affiliate_fee) AS affiliate_fees, COUNT(*) AS charges
       FROM rm_fees WHERE charged_at >= $1 AND charged_at < $2 GROUP BY 1, 2 ORDER BY 1, 2`,
      [bound(from), bound(to)],
    );
    return rows.map((r) => ({ day: r.day, marketHash: r.market_hash, fees: BigInt(r.fees), affiliateFees: BigInt(r.affiliate_fees), charges: Number(r.charges) }));
  }
}
