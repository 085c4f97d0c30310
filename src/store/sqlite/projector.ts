// The read-model projector: a consumer of the journal. It writes what committed commands' change records mean for
// the read models (orders, fills, trades, consolidated entries, refunds, settlement credits, listing totals, matched
// volume, price history, funds statement) together with its checkpoint, the journal position they cover, in one
// transaction of the read models' own database. A crash at any point leaves the read models equal to a projection
// of the journal up to the checkpoint, and projecting resumes from there; the writer never waits for it.
import type { Db } from './db.js';
import { TradingReadModels } from './read-models.js';
import type { ProjectedEntry, Projector } from '../ports.js';

export class ReadModelProjector implements Projector {
  readonly readModels: TradingReadModels;
  private readonly projectTx;

  constructor(private readonly db: Db) {
    this.readModels = new TradingReadModels(db);
    this.projectTx = db.transaction((groups: readonly (readonly ProjectedEntry[])[]) => {
      let seq = 0;
      for (const entries of groups) {
        if (entries.length === 0) continue;
        this.readModels.applyGroup(entries.map((e) => e.changes));
        for (const e of entries) this.readModels.statement.apply(e.changes, e.at);
        seq = entries[entries.length - 1]!.seq;
      }
      if (seq > 0) this.readModels.setPosition(seq);
    });
  }

  /** The journal position the read models cover (0: none). */
  position(): number {
    return this.readModels.position();
  }

  /** Projects in one transaction of the read models' database. */
  project(groups: readonly (readonly ProjectedEntry[])[]): void {
    try {
      this.projectTx(groups);
    } catch (err) {
      this.readModels.transactionEnded(false);
      throw err;
    }
    this.readModels.transactionEnded(true);
  }

  changedElsewhere(): void {
    this.readModels.changedElsewhere();
  }
}
