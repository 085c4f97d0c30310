// Each address's balance record as its last balanceChanged change left it (rm_balances): balance, escrow, open-order
// exposure and pending taker stakes. An address's records change several times in a group of commands; only the last
// is written, once per group.
import type { Statement } from 'better-sqlite3';
import { getSetting, putSetting, type Db } from './db.js';
import type { BalanceQueries } from '../ports.js';
import type { BalanceView } from '../../engine/types.js';

/** Set once the balances of read models projected before rm_balances existed were seeded from the engine. */
const BALANCES_SEEDED = 'balances.seeded';

const ZERO: BalanceView = { balance: 0n, escrowed: 0n, openExposure: 0n, pendingTakerStake: 0n };

interface BalanceRow {
  balance: string;
  escrowed: string;
  open_exposure: string;
  pending_taker_stake: string;
}

export class BalanceRecords implements BalanceQueries {
  private readonly put: Statement;
  private readonly get: Statement;
  /** The last record of each address the group under way changed. */
  private readonly staged = new Map<string, BalanceView>();

  constructor(private readonly db: Db) {
    this.put = db.prepare(`INSERT INTO rm_balances VALUES (?, ?, ?, ?, ?) ON CONFLICT (address) DO UPDATE SET balance = excluded.balance,
      escrowed = excluded.escrowed, open_exposure = excluded.open_exposure, pending_taker_stake = excluded.pending_taker_stake`);
    this.get = db.prepare('SELECT balance, escrowed, open_exposure, pending_taker_stake FROM rm_balances WHERE address = ?');
  }

  /** A balance record of the group under way. */
  stage(record: BalanceView & { address: string }): void {
    this.staged.set(record.address, record);
  }

  /** Writes the group's last records (inside the projector's transaction). */
  write(): void {
    for (const [address, b] of this.staged) this.putRecord(address, b);
    this.staged.clear();
  }

  balanceOf(address: string): BalanceView {
    const r = this.get.get(address) as BalanceRow | undefined;
    if (!r) return ZERO;
    return { balance: BigInt(r.balance), escrowed: BigInt(r.escrowed), openExposure: BigInt(r.open_exposure), pendingTakerStake: BigInt(r.pending_taker_stake) };
  }

  /**
   * Read models projected before balances were kept get every address's records from the engine, once, while both
   * stand at the same journal position `position` (start-up, after the read models caught up). Returns whether it
   * was the first time.
   */
  seed(position: number, holders: () => Iterable<[string, BalanceView]>): boolean {
    if (getSetting(this.db, BALANCES_SEEDED)) return false;
    this.db.transaction(() => {
      if (position > 0) for (const [address, b] of holders()) this.putRecord(address, b);
      putSetting(this.db, BALANCES_SEEDED, '1');
    })();
    return true;
  }

  private putRecord(address: string, b: BalanceView): void {
    this.put.run(address, b.balance.toString(), b.escrowed.toString(), b.openExposure.toString(), b.pendingTakerStake.toString());
  }
}
