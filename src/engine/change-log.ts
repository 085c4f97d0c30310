// The change records of the command being applied, and the accounts whose balances it touched. Every part emits
// through one log, so a command's records come out in the order things happened.
import type { Change } from './changes.js';
import { SmallSet } from './small-set.js';

/** Outside a command nothing may be emitted: this array is frozen, so a stray emit throws. */
const NO_CHANGES: Change[] = [];
Object.freeze(NO_CHANGES);

export class ChangeLog {
  private changes: Change[] = NO_CHANGES;
  /**
   * Gathered here and copied out once complete (`slice`): an array literal per command is an allocation site V8 moves
   * to old space once fills wait long enough, and a dead old array keeps the young records it points to alive.
   */
  private readonly scratch: Change[] = [];
  /** Accounts whose balance, escrow or exposure the current command touched (cleared per command). */
  readonly touched = new SmallSet();

  begin(): void {
    this.scratch.length = 0;
    this.changes = this.scratch;
  }

  emit(change: Change): void {
    this.changes.push(change);
  }

  touch(address: string): void {
    this.touched.add(address);
  }

  /** The command's records, copied out. */
  records(): Change[] {
    return this.changes.slice();
  }

  end(): void {
    this.scratch.length = 0;
    this.changes = NO_CHANGES;
    this.touched.clear();
  }
}
