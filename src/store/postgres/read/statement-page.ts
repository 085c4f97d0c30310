// Pages of a wallet's funds statement (rm_statement, projected by ../projection/funds-statement.ts).
import type { AsyncQueries, StatementEntry, StatementKind, StatementQueries } from '../../ports.js';
import { int, type Queryable } from '../trade-state.js';

interface EntryRow {
  id: string;
  kind: string;
  amount: string;
  balance: string;
  market_hash: string | null;
  trade_id: string | null;
  refund_id: string | null;
  at: string;
}

const entryOf = (r: EntryRow): StatementEntry => ({
  id: int(r.id),
  kind: r.kind as StatementKind,
  amount: BigInt(r.amount),
  balance: BigInt(r.balance),
  ...(r.market_hash !== null ? { marketHash: r.market_hash } : {}),
  ...(r.trade_id !== null ? { tradeId: r.trade_id } : {}),
  ...(r.refund_id !== null ? { refundId: int(r.refund_id) } : {}),
  at: int(r.at),
});

export class PostgresStatementPages implements AsyncQueries<StatementQueries> {
  constructor(private readonly db: Queryable) {}

  /** One page of an address's statement, oldest or newest first, and how many entries it has. */
  async page(address: string, ascending: boolean, page: { page: number; perPage: number }): Promise<{ entries: StatementEntry[]; count: number }> {
    const dir = ascending ? 'ASC' : 'DESC';
    const [entries, count] = await Promise.all([
      this.db.query<EntryRow>(`SELECT * FROM rm_statement WHERE address = $1 ORDER BY id ${dir} LIMIT $2 OFFSET $3`, [address, page.perPage, page.page * page.perPage]),
      this.db.query<{ n: string }>('SELECT COUNT(*) AS n FROM rm_statement WHERE address = $1', [address]),
    ]);
    return { entries: entries.rows.map(entryOf), count: Number(count.rows[0]!.n) };
  }
}
