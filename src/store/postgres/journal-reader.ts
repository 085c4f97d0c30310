// What a hot standby reads of the journal without being its writer: the snapshots, the archived-through mark and
// the commands after a position. Reads only, on a small pool of its own: the writer's fence is never touched here
// (taking over goes through PostgresTradingStore.open with waitForLock).
import type pg from 'pg';
import type { EngineSnapshot } from '../../engine/engine.js';
import type { JournaledCommand, StoredSnapshot } from '../ports.js';
import { migrate } from './migrate.js';
import { openPool } from './pool.js';
import { ARCHIVED_THROUGH, PostgresSnapshots } from './snapshots.js';
import { journalCommandsAfter } from './trading-store.js';

export class JournalReader {
  private constructor(
    private readonly pool: pg.Pool,
    private readonly snapshots: PostgresSnapshots<EngineSnapshot>,
    private readonly archived: number,
  ) {}

  /** Brings the schema up to date (as any process of the exchange does at start), then reads. */
  static async open(connectionString: string): Promise<JournalReader> {
    const pool = openPool(connectionString, 2);
    try {
      await migrate(pool);
      const { rows } = await pool.query<{ value: string | null }>('SELECT value FROM store_settings WHERE key = $1', [ARCHIVED_THROUGH]);
      const archived = Number(rows[0]?.value ?? 0);
      const readOnly = () => Promise.reject(new Error('a journal reader writes no snapshot'));
      return new JournalReader(pool, new PostgresSnapshots(pool, archived, readOnly), archived);
    } catch (err) {
      await pool.end().catch(() => {});
      throw err;
    }
  }

  /** The journal position through which rows were archived when this reader opened (0: none). */
  archivedThrough(): number {
    return this.archived;
  }

  /** Snapshots whose checksum holds, newest first. */
  validSnapshots(): AsyncGenerator<StoredSnapshot<EngineSnapshot>> {
    return this.snapshots.valid();
  }

  /** Commands after `afterSeq` in order, a page at a time. */
  commandsAfter(afterSeq: number): AsyncGenerator<JournaledCommand[]> {
    return journalCommandsAfter(this.pool, afterSeq);
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}
