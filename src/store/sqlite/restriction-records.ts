// Each account's recent shortfalls and posting restriction as its last restrictionChanged change left them
// (rm_restrictions): what the operator's view of an account shows. Written once per address per projected group.
import type { Statement } from 'better-sqlite3';
import { getSetting, putSetting, type Db } from './db.js';
import type { RestrictionQueries } from '../ports.js';
import type { AccountRestriction } from '../../engine/types.js';
import type { ChangeOf } from '../../engine/changes.js';
import { restrictionOfChange, type RestrictionRecord } from '../restriction-record.js';

/** Set once the restrictions of read models projected before rm_restrictions existed were seeded from the engine. */
const RESTRICTIONS_SEEDED = 'restrictions.seeded';

export class RestrictionRecords implements RestrictionQueries {
  private readonly put: Statement;
  private readonly remove: Statement;
  private readonly get: Statement;
  /** The last record of each address the group under way changed. */
  private readonly staged = new Map<string, ChangeOf<'restrictionChanged'>>();

  constructor(private readonly db: Db) {
    this.put = db.prepare(`INSERT INTO rm_restrictions VALUES (?, ?, ?) ON CONFLICT (address) DO UPDATE SET
      restricted_until = excluded.restricted_until, shortfalls = excluded.shortfalls`);
    this.remove = db.prepare('DELETE FROM rm_restrictions WHERE address = ?');
    this.get = db.prepare('SELECT address, restricted_until, shortfalls FROM rm_restrictions WHERE address = ?');
  }

  stage(change: ChangeOf<'restrictionChanged'>): void {
    this.staged.set(change.address, change);
  }

  /** Writes the group's last records (inside the projector's transaction). */
  write(): void {
    for (const c of this.staged.values()) this.putRecord(restrictionOfChange(c));
    this.staged.clear();
  }

  restrictionOf(address: string): AccountRestriction | undefined {
    const r = this.get.get(address) as { address: string; restricted_until: number | null; shortfalls: string } | undefined;
    return r && { address: r.address, restrictedUntil: r.restricted_until, shortfalls: JSON.parse(r.shortfalls) as number[] };
  }

  /** As BalanceRecords.seed: once, from the engine, while both stand at `position`. Returns whether it was the first time. */
  seed(position: number, restrictions: () => Iterable<AccountRestriction>): boolean {
    if (getSetting(this.db, RESTRICTIONS_SEEDED)) return false;
    this.db.transaction(() => {
      if (position > 0) for (const r of restrictions()) this.putRecord(r);
      putSetting(this.db, RESTRICTIONS_SEEDED, '1');
    })();
    return true;
  }

  private putRecord(r: RestrictionRecord): void {
    if ('lifted' in r) this.remove.run(r.address);
    else this.put.run(r.address, r.restrictedUntil, JSON.stringify(r.shortfalls));
  }
}
