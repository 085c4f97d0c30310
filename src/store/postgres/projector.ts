// The read-model projector on PostgreSQL (the AsyncProjector port): a consumer of the journal that writes what
// committed commands' change records mean for the read models together with its checkpoint, the journal position
// they cover, in one transaction on one pooled connection. A batch reads what its records change in a few queries
// (projection/batch.ts), applies every record in memory as the SQLite projector does, and writes each table with one
// multi-row statement (projection/flush.ts): a handful of round trips per batch, whatever its size. What it keeps in
// memory between batches (matched volume, statement balances, the newest candles) changes only once a batch
// committed; after a failure, or when another projector wrote since, it is read again. Each batch locks the
// checkpoint row first, so projectors of one database take turns and entries already covered are left out.
import type pg from 'pg';
import type { AsyncProjector, ProjectedEntry } from '../ports.js';
import { migrate } from './migrate.js';
import type { StatementRunner } from './prepared-listings.js';
import { PostgresReadModels } from './read-models.js';
import { BatchRows } from './projection/batch.js';
import { applyCommand } from './projection/apply.js';
import { ConsolidatedRewrites } from './projection/consolidated.js';
import { StatementProjection } from './projection/funds-statement.js';
import { PriceHistoryProjection, type BookOddsReader } from './projection/price-history.js';
import { bestMakerOdds } from './projection/book-odds.js';
import { writeBatch, writeOrders } from './projection/flush.js';
import { int, type Queryable } from './trade-state.js';

export class PostgresProjector implements AsyncProjector {
  readonly readModels: PostgresReadModels;
  /** Matched volume per market as committed (undefined: read at the next batch). */
  private volume: Map<string, bigint> | undefined;
  private readonly statement = new StatementProjection();
  private readonly history = new PriceHistoryProjection();
  /** Batches run one at a time: each continues from the checkpoint the previous one wrote. */
  private queue: Promise<unknown> = Promise.resolve();
  /** The checkpoint this projector's last batch committed: another one found means another projector wrote since. */
  private written: number | undefined;

  /** `listings`: where the read models run a bettor's listings (PostgresReadModels). */
  constructor(
    private readonly pool: pg.Pool,
    listings?: StatementRunner,
  ) {
    this.readModels = new PostgresReadModels(pool, listings);
  }

  /** A projector on a database whose schema is brought up to date first. */
  static async open(pool: pg.Pool, listings?: StatementRunner): Promise<PostgresProjector> {
    await migrate(pool);
    return new PostgresProjector(pool, listings);
  }

  /** The journal position the read models cover (0: none). */
  async position(): Promise<number> {
    return readPosition(this.pool);
  }

  /**
   * Projects groups of consecutive journal entries, in order, with the checkpoint (the last entry's position), in one
   * transaction: all or nothing.
   */
  project(groups: readonly (readonly ProjectedEntry[])[]): Promise<void> {
    const run = this.queue.then(() => this.projectNow(groups));
    this.queue = run.catch(() => {});
    return run;
  }

  private async projectNow(given: readonly (readonly ProjectedEntry[])[]): Promise<void> {
    if (given.every((g) => g.length === 0)) return;
    const client = await this.pool.connect();
    let committed = false;
    let broken: Error | undefined;
    // A backend that dies while the client is checked out is reported as an event, besides failing the statement
    // under way: heard here, it ends this batch instead of the process.
    const onError = (err: Error) => {
      broken = err;
    };
    client.on('error', onError);
    try {
      await client.query('BEGIN');
      // The checkpoint, locked until this transaction ends: projectors of one database take turns, and entries it
      // covers already (projected by another, or again after a failure whose COMMIT did take effect) are left out.
      const { rows: at } = await client.query<{ seq: string }>('SELECT journal_seq AS seq FROM rm_position WHERE id = 1 FOR UPDATE');
      const checkpoint = int(at[0]!.seq);
      if (checkpoint !== this.written) this.forget();
      const groups = given.map((g) => g.filter((e) => e.seq > checkpoint)).filter((g) => g.length > 0);
      const entries = groups.flat();
      if (entries.length === 0) {
        await client.query('COMMIT');
        committed = true;
        this.written = checkpoint;
        return;
      }
      const volume = this.volume ?? (await readVolume(client));
      const commands = entries.map((e) => e.changes);
      const rows = new BatchRows();
      const parts = { rows, statement: this.statement, history: this.history, entries: new ConsolidatedRewrites(rows) };
      await rows.load(client, commands);
      await this.statement.load(client, commands);
      await this.history.load(client, commands);
      // The candles read the book as the batch has written it so far: orders are written first.
      const readOdds: BookOddsReader = async (asks) => {
        await writeOrders(client, rows);
        return bestMakerOdds(client, asks);
      };
      const committedVolume = (market: string) => volume.get(market) ?? 0n;
      for (const group of groups) {
        if (group.length === 0) continue;
        for (const e of group) {
          await this.history.beginCommand(e.changes, readOdds);
          const settledFills = applyCommand(rows, e.changes, committedVolume);
          parts.entries.apply(e.changes, settledFills);
          await this.history.apply(e.changes);
        }
        await this.history.endGroup(readOdds);
        for (const e of group) this.statement.apply(e.changes, e.at);
      }
      await writeBatch(client, parts);
      await client.query('UPDATE rm_position SET journal_seq = $1 WHERE id = 1', [entries[entries.length - 1]!.seq]);
      await client.query('COMMIT');
      committed = true;
      for (const [market, v] of rows.volume) volume.set(market, v);
      this.volume = volume;
      this.written = entries[entries.length - 1]!.seq;
    } catch (err) {
      broken = err instanceof Error ? err : new Error(String(err));
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      this.statement.ended(committed);
      this.history.ended(committed);
      // Whether a failed COMMIT took effect is unknown: what memory holds of the database is read again.
      if (!committed) this.forget();
      client.off('error', onError);
      client.release(broken);
    }
  }

  /** Drops what memory holds of the database (read again by the next batch). */
  private forget(): void {
    this.volume = undefined;
    this.written = undefined;
    this.statement.forget();
    this.history.forget();
  }
}

/** The journal position the read models on `db` cover. */
export async function readPosition(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ seq: string }>('SELECT journal_seq AS seq FROM rm_position WHERE id = 1');
  return int(rows[0]!.seq);
}

async function readVolume(db: Queryable): Promise<Map<string, bigint>> {
  const { rows } = await db.query<{ market_hash: string; volume: string }>('SELECT market_hash, volume FROM rm_volume');
  return new Map(rows.map((r) => [r.market_hash, BigInt(r.volume)]));
}
