// Engine snapshots on PostgreSQL, as the SQLite store keeps them (sqlite/snapshots.ts): the state as of a journal
// position, checksummed, the newest `keep` kept. The writer takes a snapshot between commits, where the engine is
// exactly as the journal it wrote; `write` only encodes it, and the store's next sync writes it in the transaction
// of the journal rows it covers, so a snapshot never reaches the database ahead of them.
import { ExchangeError } from '../../protocol/errors.js';
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { decodeJson, encodeJson } from '../json-codec.js';
import type { SnapshotPort, StoredSnapshot } from '../ports.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
export const ARCHIVED_THROUGH = 'journal_archived_through';

export interface PendingSnapshot {
  seq: number;
  takenAt: number;
  body: string;
  sha256: string;
}

export class PostgresSnapshots<T> implements SnapshotPort<T> {
  private pending: PendingSnapshot | undefined;

  constructor(
    private readonly pool: pg.Pool,
    private readonly archived: number,
    /** How many snapshots to keep: older ones are the fallback when the newest is damaged. */
    private readonly keep = 2,
  ) {}

  write(seq: number, state: T, takenAt: number): void {
    const body = encodeJson(state);
    this.pending = { seq, takenAt, body, sha256: sha256(body) };
  }

  /** The snapshot written since the last sync, for the sync's transaction. */
  takePending(): PendingSnapshot | undefined {
    const p = this.pending;
    this.pending = undefined;
    return p;
  }

  /** Inside the sync's transaction. */
  async store(tx: pg.ClientBase, s: PendingSnapshot): Promise<void> {
    await tx.query({
      name: 'snapshot-put',
      text: `INSERT INTO snapshots (journal_seq, taken_at, body, sha256) VALUES ($1, $2, $3, $4)
             ON CONFLICT (journal_seq) DO UPDATE SET taken_at = EXCLUDED.taken_at, body = EXCLUDED.body, sha256 = EXCLUDED.sha256`,
      values: [s.seq, s.takenAt, s.body, s.sha256],
    });
    await tx.query({
      name: 'snapshot-trim',
      text: 'DELETE FROM snapshots WHERE journal_seq NOT IN (SELECT journal_seq FROM snapshots ORDER BY journal_seq DESC LIMIT $1)',
      values: [this.keep],
    });
  }

  /** Snapshots whose checksum holds, newest first, each read and decoded only when the one before was passed over. */
  async *valid(): AsyncGenerator<StoredSnapshot<T>> {
    const { rows } = await this.pool.query<{ seq: string }>('SELECT journal_seq AS seq FROM snapshots ORDER BY journal_seq DESC');
    for (const { seq } of rows) {
      const found = await this.pool.query<{ body: string; sha256: string }>('SELECT body, sha256 FROM snapshots WHERE journal_seq = $1', [seq]);
      const row = found.rows[0];
      if (!row || sha256(row.body) !== row.sha256) continue;
      let state: T;
      try {
        state = decodeJson<T>(row.body);
      } catch {
        continue;
      }
      yield { seq: Number(seq), state };
    }
  }

  archivedThrough(): number {
    return this.archived;
  }

  archiveJournal(): never {
    // Needs an asynchronous port member (the SQLite one blocks); the operator's archive command comes with it.
    throw new ExchangeError('JOURNAL_ARCHIVE_NOT_AVAILABLE');
  }
}
