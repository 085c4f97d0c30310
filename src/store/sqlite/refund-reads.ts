// The read side's capital-efficiency refunds (rm_refunds and rm_refund_totals, projected by read-models.ts): whether
// a bettor was refunded in a market, running totals, a bettor's refunds, and pages of refund groups grouped and paged
// in SQL: a request answers only its page, though ordering the groups reads every refund of the bettor (no index keeps
// groups by their latest refund).
import type { Statement } from 'better-sqlite3';
import type { Db } from './db.js';
import type { RefundQueries, RefundQuery } from '../ports.js';
import type { RefundPaid } from '../../engine/changes.js';

export interface RefundRow {
  id: number;
  market_hash: string;
  base_token: string;
  bettor: string;
  maker: number;
  fill_hash: string;
  amount: string;
  created_at: number;
}

export const refundOf = (r: RefundRow): RefundPaid => ({
  id: r.id,
  marketHash: r.market_hash,
  baseToken: r.base_token,
  bettor: r.bettor,
  maker: r.maker === 1,
  fillOrderHash: r.fill_hash,
  amount: BigInt(r.amount),
  createdAt: r.created_at,
});

const MATCHING_REFUNDS = `WITH matching AS (SELECT * FROM rm_refunds WHERE bettor = @bettor
  AND (@market IS NULL OR market_hash = @market) AND (@token IS NULL OR base_token = @token COLLATE NOCASE)
  AND (@fill IS NULL OR fill_hash = @fill) AND (@maker IS NULL OR maker = @maker))`;

/**
 * The events of one page of refund groups (per market and token), groups ordered by their latest event. The page of
 * groups is computed once (MATERIALIZED) and drives the join (CROSS JOIN keeps it the outer loop): each group's
 * events are then found through the (bettor, market_hash) index. Joined the other way round, SQLite ran the page's
 * window and sort again for every one of the bettor's refunds, a cost that grew with the square of their number.
 */
export const refundGroupsSql = (dir: 'ASC' | 'DESC') => `${MATCHING_REFUNDS},
  latest AS (SELECT market_hash, lower(base_token) AS token, created_at, id,
    ROW_NUMBER() OVER (PARTITION BY market_hash, lower(base_token) ORDER BY created_at DESC, id DESC) AS rn FROM matching),
  page AS MATERIALIZED (SELECT market_hash, token, created_at, id FROM latest WHERE rn = 1 ORDER BY created_at ${dir}, id ${dir} LIMIT @limit OFFSET @offset)
  SELECT r.* FROM page CROSS JOIN rm_refunds r ON r.bettor = @bettor AND r.market_hash = page.market_hash AND lower(r.base_token) = page.token
    AND (@fill IS NULL OR r.fill_hash = @fill) AND (@maker IS NULL OR r.maker = @maker)
  ORDER BY page.created_at ${dir}, page.id ${dir}, r.id`;

export class RefundReads implements RefundQueries {
  private readonly s: Record<string, Statement>;

  constructor(db: Db) {
    const p = (sql: string) => db.prepare(sql);
    this.s = {
      hasRefunds: p('SELECT 1 FROM rm_refunds WHERE bettor = ? AND market_hash = ? LIMIT 1'),
      refundedPairs: p(`SELECT k.value ->> 0 AS bettor, k.value ->> 1 AS market FROM json_each(?) k
        WHERE EXISTS (SELECT 1 FROM rm_refunds r WHERE r.bettor = k.value ->> 0 AND r.market_hash = k.value ->> 1)`),
      refundBefore: p('SELECT 1 FROM rm_refunds WHERE bettor = ? AND market_hash = ? AND id < ? LIMIT 1'),
      refundTotal: p('SELECT total FROM rm_refund_totals WHERE bettor = ? AND market_hash = ? AND base_token = ?'),
      refundsOf: p('SELECT * FROM rm_refunds WHERE bettor = ? ORDER BY id'),
      refundGroupsAsc: p(refundGroupsSql('ASC')),
      refundGroupsDesc: p(refundGroupsSql('DESC')),
      refundGroupCount: p(`${MATCHING_REFUNDS} SELECT COUNT(*) AS n FROM (SELECT 1 FROM matching GROUP BY market_hash, lower(base_token))`),
      refundsOfIn: p('SELECT * FROM rm_refunds WHERE bettor = ? AND market_hash = ? ORDER BY id'),
      refundsUnpaidOnChain: p('SELECT * FROM rm_refunds WHERE chain_tx_hash IS NULL ORDER BY id'),
    };
  }

  /**
   * `hasRefunds` for a page: every (market, bettor) pair of these (trades, say) read in one query, not one per
   * trade. Pairs outside the page are still answered, one at a time.
   */
  refundsSeen(trades: readonly { marketHash: string; bettor: string }[]): (marketHash: string, bettor: string) => boolean {
    const pairKey = (marketHash: string, bettor: string) => `${marketHash}|${bettor}`;
    const asked = new Map<string, [string, string]>();
    for (const t of trades) asked.set(pairKey(t.marketHash, t.bettor), [t.bettor, t.marketHash]);
    const found = new Set<string>();
    for (const row of this.s.refundedPairs!.all(JSON.stringify([...asked.values()])) as { bettor: string; market: string }[]) {
      found.add(pairKey(row.market, row.bettor));
    }
    return (marketHash, bettor) => {
      const key = pairKey(marketHash, bettor);
      return asked.has(key) ? found.has(key) : this.hasRefunds(marketHash, bettor);
    };
  }
  /** The bettor received capital-efficiency refunds in this market. */
  hasRefunds(marketHash: string, bettor: string): boolean {
    return this.s.hasRefunds!.get(bettor, marketHash) !== undefined;
  }
  /** The bettor received a refund in this market before the one with this id (refund ids grow). */
  hasRefundBefore(marketHash: string, bettor: string, id: number): boolean {
    return this.s.refundBefore!.get(bettor, marketHash, id) !== undefined;
  }
  /** All refunds the bettor received in this market and token, in wei. */
  refundTotal(bettor: string, marketHash: string, baseToken: string): bigint {
    const row = this.s.refundTotal!.get(bettor, marketHash, baseToken) as { total: string } | undefined;
    return row ? BigInt(row.total) : 0n;
  }
  /** Refunds an on-chain escrow has not reported paying yet, oldest first (handed to the chain again at start). */
  refundsUnpaidOnChain(): RefundPaid[] {
    return (this.s.refundsUnpaidOnChain!.all() as RefundRow[]).map(refundOf);
  }
  refundsOf(bettor: string): RefundPaid[] {
    return (this.s.refundsOf!.all(bettor) as RefundRow[]).map(refundOf);
  }
  /**
   * The refunds of one page of a bettor's refund groups (groups ordered by their latest refund) and the number of
   * groups: SQL groups and pages them (reading every refund of the bettor to order the groups).
   */
  refundGroupsPage(q: RefundQuery, ascending: boolean, page: { page: number; perPage: number }): { refunds: RefundPaid[]; groups: number } {
    const params = {
      bettor: q.bettor,
      market: q.marketHash?.toLowerCase() ?? null,
      token: q.baseToken ?? null,
      fill: q.fillHash?.toLowerCase() ?? null,
      maker: q.maker === undefined ? null : q.maker ? 1 : 0,
    };
    const rows = (ascending ? this.s.refundGroupsAsc! : this.s.refundGroupsDesc!).all({
      ...params,
      limit: page.perPage,
      offset: page.page * page.perPage,
    }) as RefundRow[];
    return { refunds: rows.map(refundOf), groups: (this.s.refundGroupCount!.get(params) as { n: number }).n };
  }
  /** A bettor's refunds in one market, oldest first (through the (bettor, market_hash) index). */
  refundsOfIn(bettor: string, marketHash: string): RefundPaid[] {
    return (this.s.refundsOfIn!.all(bettor, marketHash) as RefundRow[]).map(refundOf);
  }
}
