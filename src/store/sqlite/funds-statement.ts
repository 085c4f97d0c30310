// The statement of a wallet's funds (GET /account/statement): every movement of its balance with the balance after
// it, projected from the change records in the commit that writes them. Stakes leave the balance when their trade is
// confirmed, refunds, cash outs and payouts return to it; whatever else moved the balance in a command (the faucet, demo funds,
// transfers, token movements seen on chain) is the difference between the balance the command left and the sum of
// those, entered as a deposit or a withdrawal. So the last entry's balance is always the balance GET /balances shows.
import type { Statement } from 'better-sqlite3';
import type { Db } from './db.js';
import type { StatementEntry, StatementKind } from '../ports.js';
import type { Change } from '../../engine/changes.js';
import { forEachStatedBalance, type Movement } from '../statement-movements.js';

interface EntryRow {
  id: number;
  kind: string;
  amount: string;
  balance: string;
  market_hash: string | null;
  trade_id: string | null;
  refund_id: number | null;
  at: number;
}

const entryOf = (r: EntryRow): StatementEntry => ({
  id: r.id,
  kind: r.kind as StatementKind,
  amount: BigInt(r.amount),
  balance: BigInt(r.balance),
  ...(r.market_hash !== null ? { marketHash: r.market_hash } : {}),
  ...(r.trade_id !== null ? { tradeId: r.trade_id } : {}),
  ...(r.refund_id !== null ? { refundId: r.refund_id } : {}),
  at: r.at,
});

export class FundsStatement {
  private readonly s: Record<'balance' | 'putBalance' | 'insert' | 'count' | 'pageAsc' | 'pageDesc', Statement>;
  /**
   * The balance each wallet's last entry left, as committed: every command touching a wallet compares against it, so
   * it is read from the database once per wallet, not per command.
   */
  private readonly balances = new Map<string, bigint>();
  /** What the transaction under way entered: it joins `balances` only if it commits (see `transactionEnded`). */
  private readonly staged = new Map<string, bigint>();

  constructor(db: Db) {
    const page = (dir: 'ASC' | 'DESC') => db.prepare(`SELECT * FROM rm_statement WHERE address = ? ORDER BY id ${dir} LIMIT ? OFFSET ?`);
    this.s = {
      balance: db.prepare('SELECT balance FROM rm_statement_balances WHERE address = ?').pluck(),
      putBalance: db.prepare('INSERT INTO rm_statement_balances VALUES (?, ?) ON CONFLICT DO UPDATE SET balance = excluded.balance'),
      insert: db.prepare(`INSERT INTO rm_statement (address, kind, amount, balance, market_hash, trade_id, refund_id, at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
      count: db.prepare('SELECT COUNT(*) FROM rm_statement WHERE address = ?').pluck(),
      pageAsc: page('ASC'),
      pageDesc: page('DESC'),
    };
  }

  /** Enters one command's movements; `at` is the command's time (of the movements no record dates). */
  apply(changes: readonly Change[], at: number): void {
    forEachStatedBalance(changes, (address, balance, movements) => this.enter(address, balance, movements, at));
  }

  /** Writes an address's movements of one command, with what they leave unexplained as a deposit or withdrawal. */
  private enter(address: string, balance: bigint, movements: readonly Movement[], at: number): void {
    const s = this.s;
    const key = address.toLowerCase();
    const before = this.staged.get(key) ?? this.balances.get(key) ?? this.stored(key);
    if (balance === before && movements.length === 0) return;
    let other = balance - before;
    for (const m of movements) other -= m.amount;
    const all = other === 0n ? movements : [{ kind: other > 0n ? 'deposit' : 'withdrawal', amount: other, at } as Movement, ...movements];
    let running = before;
    for (const m of all) {
      running += m.amount;
      s.insert.run(address, m.kind, m.amount.toString(), running.toString(), m.marketHash ?? null, m.tradeId ?? null, m.refundId ?? null, m.at);
    }
    s.putBalance.run(address, balance.toString());
    this.staged.set(key, balance);
  }

  private stored(key: string): bigint {
    const balance = BigInt((this.s.balance.get(key) as string | undefined) ?? '0');
    this.balances.set(key, balance);
    return balance;
  }

  /** The transaction that projected the last commands committed, or rolled back (what it entered is gone). */
  transactionEnded(committed: boolean): void {
    if (committed) for (const [key, balance] of this.staged) this.balances.set(key, balance);
    this.staged.clear();
  }

  /** One page of an address's statement, oldest first or newest first, and how many entries it has. */
  page(address: string, ascending: boolean, page: { page: number; perPage: number }): { entries: StatementEntry[]; count: number } {
    const rows = (ascending ? this.s.pageAsc : this.s.pageDesc).all(address, page.perPage, page.page * page.perPage) as EntryRow[];
    return { entries: rows.map(entryOf), count: this.s.count.get(address) as number };
  }
}
