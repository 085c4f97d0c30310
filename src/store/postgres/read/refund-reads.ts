// The read side's capital-efficiency refunds (rm_refunds and rm_refund_totals): whether a bettor was refunded in a
// market, running totals, a bettor's refunds, and pages of refund groups grouped and paged in SQL: a request answers
// only its page, though ordering the groups reads every refund of the bettor (no index keeps groups by latest refund).
import type { AsyncQueries, RefundQueries, RefundQuery } from '../../ports.js';
import type { RefundPaid } from '../../../engine/changes.js';
import { bound, int, type Queryable } from '../trade-state.js';

export interface RefundRow {
  id: string;
  market_hash: string;
  base_token: string;
  bettor: string;
  maker: boolean;
  fill_hash: string;
  amount: string;
  created_at: string;
}

const REFUND_COLUMNS = 'id, market_hash, base_token, bettor, maker, fill_hash, amount, created_at';

export const refundOf = (r: RefundRow): RefundPaid => ({
  id: int(r.id),
  marketHash: r.market_hash,
  baseToken: r.base_token,
  bettor: r.bettor,
  maker: r.maker,
  fillOrderHash: r.fill_hash,
  amount: BigInt(r.amount),
  createdAt: int(r.created_at),
});

/** A bettor's refunds under the optional filters $2..$5 (NULL: any). */
const MATCHING_REFUNDS = `WITH matching AS (SELECT ${REFUND_COLUMNS} FROM rm_refunds WHERE bettor = $1
  AND ($2::text IS NULL OR market_hash = $2) AND ($3::text IS NULL OR lower(base_token) = lower($3))
  AND ($4::text IS NULL OR fill_hash = $4) AND ($5::boolean IS NULL OR maker = $5))`;

/** The refunds of one page of refund groups (per market and token), groups ordered by their latest refund. */
const refundGroupsSql = (dir: 'ASC' | 'DESC') => `${MATCHING_REFUNDS},
  latest AS (SELECT market_hash, lower(base_token) AS token, created_at, id,
    ROW_NUMBER() OVER (PARTITION BY market_hash, lower(base_token) ORDER BY created_at DESC, id DESC) AS rn FROM matching),
  page AS (SELECT market_hash, token, created_at, id FROM latest WHERE rn = 1 ORDER BY created_at ${dir}, id ${dir} LIMIT $6 OFFSET $7)
  SELECT matching.* FROM matching JOIN page ON matching.market_hash = page.market_hash AND lower(matching.base_token) = page.token
  ORDER BY page.created_at ${dir}, page.id ${dir}, matching.id`;

const pairKey = (marketHash: string, bettor: string) => `${marketHash}|${bettor.toLowerCase()}`;

export class PostgresRefundReads implements AsyncQueries<RefundQueries> {
  constructor(private readonly db: Queryable) {}

  /**
   * `hasRefunds` for a page: every (market, bettor) pair of these (trades, say) read in one query. The answer knows
   * those pairs only (it cannot wait for a server): any other reads as not refunded.
   */
  async refundsSeen(trades: readonly { marketHash: string; bettor: string }[]): Promise<(marketHash: string, bettor: string) => boolean> {
    const markets: string[] = [];
    const bettors: string[] = [];
    const asked = new Set<string>();
    for (const t of trades) {
      const key = pairKey(t.marketHash, t.bettor);
      if (asked.has(key)) continue;
      asked.add(key);
      markets.push(t.marketHash);
      bettors.push(t.bettor);
    }
    const { rows } = await this.db.query<{ market: string; bettor: string }>(
      `SELECT p.m AS market, p.b AS bettor FROM unnest($1::text[], $2::text[]) AS p(m, b)
       WHERE EXISTS (SELECT 1 FROM rm_refunds r WHERE r.bettor = p.b::citext AND r.market_hash = p.m)`,
      [markets, bettors],
    );
    const found = new Set(rows.map((r) => pairKey(r.market, r.bettor)));
    return (marketHash, bettor) => found.has(pairKey(marketHash, bettor));
  }

  /** The bettor received capital-efficiency refunds in this market. */
  async hasRefunds(marketHash: string, bettor: string): Promise<boolean> {
    const { rowCount } = await this.db.query('SELECT 1 FROM rm_refunds WHERE bettor = $1 AND market_hash = $2 LIMIT 1', [bettor, marketHash]);
    return rowCount !== 0;
  }

  /** The bettor received a refund in this market before the one with this id (refund ids grow). */
  async hasRefundBefore(marketHash: string, bettor: string, id: number): Promise<boolean> {
    const { rowCount } = await this.db.query('SELECT 1 FROM rm_refunds WHERE bettor = $1 AND market_hash = $2 AND id < $3 LIMIT 1', [bettor, marketHash, bound(id)]);
    return rowCount !== 0;
  }

  /** All refunds the bettor received in this market and token, in wei. */
  async refundTotal(bettor: string, marketHash: string, baseToken: string): Promise<bigint> {
    const { rows } = await this.db.query<{ total: string }>(
      'SELECT total FROM rm_refund_totals WHERE bettor = $1 AND market_hash = $2 AND base_token = $3',
      [bettor, marketHash, baseToken],
    );
    return rows[0] ? BigInt(rows[0].total) : 0n;
  }

  /** Refunds an on-chain escrow has not reported paying yet, oldest first. */
  async refundsUnpaidOnChain(): Promise<RefundPaid[]> {
    const { rows } = await this.db.query<RefundRow>(`SELECT ${REFUND_COLUMNS} FROM rm_refunds WHERE chain_tx_hash IS NULL ORDER BY id`);
    return rows.map(refundOf);
  }

  async refundsOf(bettor: string): Promise<RefundPaid[]> {
    const { rows } = await this.db.query<RefundRow>(`SELECT ${REFUND_COLUMNS} FROM rm_refunds WHERE bettor = $1 ORDER BY id`, [bettor]);
    return rows.map(refundOf);
  }

  /** A bettor's refunds in one market, oldest first. */
  async refundsOfIn(bettor: string, marketHash: string): Promise<RefundPaid[]> {
    const { rows } = await this.db.query<RefundRow>(`SELECT ${REFUND_COLUMNS} FROM rm_refunds WHERE bettor = $1 AND market_hash = $2 ORDER BY id`, [bettor, marketHash]);
    return rows.map(refundOf);
  }

  /**
   * The refunds of one page of a bettor's refund groups (groups ordered by their latest refund; a group's refunds by
   * id) and the number of groups.
   */
  async refundGroupsPage(q: RefundQuery, ascending: boolean, page: { page: number; perPage: number }): Promise<{ refunds: RefundPaid[]; groups: number }> {
    const params = [q.bettor, q.marketHash?.toLowerCase() ?? null, q.baseToken ?? null, q.fillHash?.toLowerCase() ?? null, q.maker ?? null];
    const [events, count] = await Promise.all([
      this.db.query<RefundRow>(refundGroupsSql(ascending ? 'ASC' : 'DESC'), [...params, page.perPage, page.page * page.perPage]),
      this.db.query<{ n: string }>(`${MATCHING_REFUNDS} SELECT COUNT(*) AS n FROM (SELECT 1 FROM matching GROUP BY market_hash, lower(base_token)) g`, params),
    ]);
    return { refunds: events.rows.map(refundOf), groups: Number(count.rows[0]!.n) };
  }
}
