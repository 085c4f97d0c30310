// The read models' projector following a PostgreSQL journal by itself: each batch reads the journal rows after the
// read models' checkpoint and projects their change records with the checkpoint in one transaction. Used by the
// projector's thread of a sequencer process (projector-worker.ts) and by a projector process of its own
// (projector-node.ts); whoever drives it decides when to ask for the next batch.
import type pg from 'pg';
import type { ProjectedEntry } from '../ports.js';
import { PostgresProjector } from './projector.js';
import { journalChangesAfter } from './trading-store.js';

export interface ProjectedBatch {
  /** The journal position the read models cover after it. */
  position: number;
  commands: number;
  ms: number;
}

export class JournalProjection {
  private readonly projector: PostgresProjector;
  /** The checkpoint as last read or written; undefined: read it again (at first, and after a failure). */
  private position_: number | undefined;

  constructor(
    private readonly pool: pg.Pool,
    private readonly maxBatch: number,
  ) {
    this.projector = new PostgresProjector(pool);
  }

  /** The position the read models cover, as this projection last knew it (undefined until it read it). */
  get position(): number | undefined {
    return this.position_;
  }

  /** Reads the checkpoint (again): whether an earlier batch committed, or another projector wrote since. */
  async readPosition(): Promise<number> {
    this.position_ = await this.projector.position();
    return this.position_;
  }

  /**
   * Projects the journal rows after the checkpoint, up to `maxBatch`; undefined when the journal holds nothing more.
   * A failure leaves the checkpoint to be read again by the next call.
   */
  async next(): Promise<ProjectedBatch | undefined> {
    try {
      const from = this.position_ ?? (await this.readPosition());
      const rows = await journalChangesAfter(this.pool, from, this.maxBatch);
      if (rows.length === 0) return undefined;
      // Positions have no gaps: a missing row was archived before these read models covered it (a restored backup of
      // the read models, say). Projecting on would skip its changes for good, so this refuses until it is restored.
      if (rows[0]!.seq !== from + 1) {
        throw new Error(`journal rows ${from + 1} to ${rows[0]!.seq - 1} are archived but not projected: restore them into the journal`);
      }
      const entries: ProjectedEntry[] = rows.map((r) => {
        if (!r.changes) throw new Error(`journal row ${r.seq} holds no change records: the sequencer projects it at its start-up`);
        return { seq: r.seq, at: r.at, changes: r.changes };
      });
      const started = performance.now();
      await this.projector.project([entries]);
      this.position_ = entries[entries.length - 1]!.seq;
      return { position: this.position_, commands: entries.length, ms: performance.now() - started };
    } catch (err) {
      this.position_ = undefined;
      throw err;
    }
  }
}
