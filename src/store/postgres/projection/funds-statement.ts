// The funds statement (rm_statement) projected as SQLite projects it (src/store/sqlite/funds-statement.ts): every
// movement of a wallet's balance with the balance after it; what the records do not explain is a deposit or a
// withdrawal. Entries are numbered here, the next after the largest id, so a rolled-back batch leaves no gap.
import type { Change } from '../../../engine/changes.js';
import { forEachStatedBalance, type Movement } from '../../statement-movements.js';
import type { StatementKind } from '../../ports.js';
import type { Queryable } from '../trade-state.js';

export interface StatementRecord {
  id: number;
  address: string;
  kind: StatementKind;
  amount: bigint;
  balance: bigint;
  market_hash: string | null;
  trade_id: string | null;
  refund_id: number | null;
  at: number;
}

export class StatementProjection {
  /** The balance each wallet's last entry left, as committed (read once per wallet). */
  private readonly committed = new Map<string, bigint>();
  /** What the batch under way entered, by address in lower case; joins `committed` only if it commits. */
  readonly staged = new Map<string, { address: string; balance: bigint }>();
  readonly entries: StatementRecord[] = [];
  private nextId = 0;

  /** Reads the next entry id and the last balances of the batch's addresses not known yet. */
  async load(db: Queryable, commands: readonly (readonly Change[])[]): Promise<void> {
    const unknown = new Set<string>();
    for (const changes of commands) {
      for (const c of changes) if (c.type === 'balanceChanged' && !this.committed.has(c.address.toLowerCase())) unknown.add(c.address.toLowerCase());
    }
    const next = await db.query<{ next: string }>('SELECT COALESCE(MAX(id), 0) + 1 AS next FROM rm_statement');
    const balances =
      unknown.size === 0
        ? undefined
        : await db.query<{ address: string; balance: string }>('SELECT lower(address) AS address, balance FROM rm_statement_balances WHERE address = ANY($1::citext[])', [[...unknown]]);
    this.nextId = Number(next.rows[0]!.next);
    for (const key of unknown) this.committed.set(key, 0n);
    for (const r of balances?.rows ?? []) this.committed.set(r.address, BigInt(r.balance));
  }

  /** Enters one command's movements; `at` is the command's time (of the movements no record dates). */
  apply(changes: readonly Change[], at: number): void {
    forEachStatedBalance(changes, (address, balance, movements) => this.enter(address, balance, movements, at));
  }

  private enter(address: string, balance: bigint, movements: readonly Movement[], at: number): void {
    const key = address.toLowerCase();
    const staged = this.staged.get(key);
    const before = staged?.balance ?? this.committed.get(key) ?? 0n;
    if (balance === before && movements.length === 0) return;
    let other = balance - before;
    for (const m of movements) other -= m.amount;
    const all: readonly Movement[] = other === 0n ? movements : [{ kind: other > 0n ? 'deposit' : 'withdrawal', amount: other, at }, ...movements];
    let running = before;
    for (const m of all) {
      running += m.amount;
      this.entries.push({
        id: this.nextId++, address, kind: m.kind, amount: m.amount, balance: running, market_hash: m.marketHash ?? null,
        trade_id: m.tradeId ?? null, refund_id: m.refundId ?? null, at: m.at,
      });
    }
    this.staged.set(key, { address: staged?.address ?? address, balance });
  }

  /** The batch ended: what it entered is kept in memory if it committed, and forgotten either way. */
  ended(committed: boolean): void {
    if (committed) for (const [key, s] of this.staged) this.committed.set(key, s.balance);
    this.staged.clear();
    this.entries.length = 0;
  }

  /** Forgets every balance held (another writer may have changed them). */
  forget(): void {
    this.committed.clear();
  }
}
