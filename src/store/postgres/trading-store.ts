// The writer's journal on PostgreSQL (the TradingStore port). `commit` runs on the writer's thread and cannot wait
// for a server: it encodes the entries, gives them the next positions (the writer alone appends, under its fence,
// so the journal's end is known since open) and holds them. `sync` writes everything held since the last sync in
// one transaction (the fence's check and one multi-row INSERT: a single statement, one round trip; with the snapshot
// taken meanwhile, BEGIN ... COMMIT around the three) and resolves after its commit, which synchronous_commit=on
// makes durable: the group commit. A failed sync rolls back (or, failing in its
// COMMIT, leaves it unknown whether it committed); memory then holds positions the database may not, so the store
// refuses every later commit and sync until `heal` finds the database answering again and this writer still its
// only writer, and reads back where the journal ends (the runner then rebuilds from the database).
// A group whose change records set a catalogue status writes it in the same transaction (catalogue-status.ts).
import { hostname } from 'node:os';
import pg from 'pg';
import type { EngineSnapshot } from '../../engine/engine.js';
import type { Change } from '../../engine/changes.js';
import { decodeCommand, encodeCommand } from '../command-codec.js';
import { decodeJson, encodeJson } from '../json-codec.js';
import type { JournalEntry, JournaledChanges, JournaledCommand, TradingStore } from '../ports.js';
import { migrate } from './migrate.js';
import { ARCHIVED_THROUGH, PostgresSnapshots, type PendingSnapshot } from './snapshots.js';
import { WriterFence } from './writer-fence.js';
import { applyCatalogueStatus, catalogueStatusChanges, type CatalogueStatusChange } from './catalogue-status.js';

const PAGE = 5000;

export interface PostgresStoreOptions {
  /** postgres://user:password@host:port/database */
  connectionString: string;
  /** Who holds the writer's lock, as writer_fence and a refused second writer show it. */
  holder?: string;
  poolSize?: number;
  /**
   * Wait for the writer's lock rather than refuse when another writer holds it (a hot standby taking over);
   * `signal` stops waiting.
   */
  waitForLock?: { signal?: AbortSignal; onRetry?: (err: unknown) => void };
}

interface HeldRows {
  seqs: number[];
  ats: number[];
  commands: string[];
  changes: string[];
  /** The catalogue statuses the group's change records set. */
  catalogue: CatalogueStatusChange[];
}

/**
 * A group's journal rows as the statement takes them: a multi-row VALUES list, four plain parameters a row. The
 * change records go to the server as they are: inside a JSON array (json_to_recordset, measured before) each was
 * escaped again as a JSON string and parsed back, 18-19 ms a row against 8 ms for a 500-order command's row.
 * The first row's casts type the list (a VALUES under SELECT would read the parameters as text). Statements stay
 * unnamed: their text changes with the group's size, and a named one's generic plan was measured slower.
 */
const journalValues = (rows: HeldRows, from: number, to: number, first: number): { text: string; values: unknown[] } => {
  const tuples: string[] = [];
  const values: unknown[] = [];
  for (let i = from; i < to; i++) {
    const p = first + values.length;
    tuples.push(i === from ? `($${p}::bigint, $${p + 1}::bigint, $${p + 2}::text, $${p + 3}::text)` : `($${p}, $${p + 1}, $${p + 2}, $${p + 3})`);
    values.push(rows.seqs[i], rows.ats[i], rows.commands[i], rows.changes[i]);
  }
  return { text: `VALUES ${tuples.join(', ')}`, values };
};
/** Rows per statement: PostgreSQL takes at most 65,535 parameters in one. */
const ROWS_PER_STATEMENT = 10_000;

const noRows = (): HeldRows => ({ seqs: [], ats: [], commands: [], changes: [], catalogue: [] });

/** Journaled change records after `afterSeq`, in order, at most `limit` commands' (any connection may read them). */
export async function journalChangesAfter(db: pg.Pool | pg.ClientBase, afterSeq: number, limit: number): Promise<JournaledChanges[]> {
  const { rows } = await db.query<{ seq: string; at_ms: string; changes: string | null }>({
    name: 'journal-changes',
    text: 'SELECT seq, at_ms, changes FROM journal WHERE seq > $1 ORDER BY seq LIMIT $2',
    values: [afterSeq, limit],
  });
  return rows.map((r) => ({ seq: Number(r.seq), at: Number(r.at_ms), changes: r.changes === null ? undefined : decodeJson<Change[]>(r.changes) }));
}

/**
 * Journaled commands after `afterSeq`, in order, a page per query, the next page read while this one is applied (any
 * connection may read them: the writer at start-up, a standby following it).
 */
export async function* journalCommandsAfter(db: pg.Pool, afterSeq: number): AsyncGenerator<JournaledCommand[]> {
  type Row = { seq: string; command: string };
  const page = (from: number): Promise<{ rows: Row[] }> =>
    db.query<Row>({
      name: 'journal-replay',
      text: `SELECT seq, command FROM journal WHERE seq > $1 ORDER BY seq LIMIT ${PAGE}`,
      values: [from],
    });
  const none: Row[] = [];
  let next = page(afterSeq);
  for (;;) {
    const { rows } = await next;
    if (rows.length === 0) return;
    const last = Number(rows[rows.length - 1]!.seq);
    next = rows.length < PAGE ? Promise.resolve({ rows: none }) : page(last);
    next.catch(() => {}); // a caller that stops early never awaits it; one that goes on gets its error
    yield rows.map((r) => ({ seq: Number(r.seq), cmd: decodeCommand(r.command) }));
  }
}

export class PostgresTradingStore implements TradingStore {
  readonly snapshots: PostgresSnapshots<EngineSnapshot>;
  private held = noRows();
  /** The last position given out (held or written). */
  private last: number;
  /** Syncs run one after the other, each writing what was held when it was called. */
  private tail: Promise<void> = Promise.resolve();
  private failed: unknown;
  private holdLost: ((err: Error) => void) | undefined;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly config: pg.ClientConfig,
    private fence: WriterFence,
    last: number,
    archived: number,
  ) {
    this.last = last;
    this.snapshots = new PostgresSnapshots(pool, archived, (tx) => this.fence.check(tx));
  }

  /** Migrates the schema, takes the writer's lock and epoch (WriterLockedError if another writer holds them). */
  static async open(opts: PostgresStoreOptions): Promise<PostgresTradingStore> {
    const config: pg.PoolConfig = {
      connectionString: opts.connectionString,
      max: opts.poolSize ?? 4,
      // Whatever the server's default: a sync resolves only once its transaction is on the server's disk.
      options: '-c synchronous_commit=on',
    };
    const pool = new pg.Pool(config);
    // A connection's failure (a server restart, a killed backend) is reported by the query it fails, or the next
    // one that needs a connection: not as an uncaught error event, idle (the pool's) or checked out (the client's).
    pool.on('error', () => {});
    pool.on('connect', (client) => client.on('error', () => {}));
    try {
      await migrate(pool);
      const holder = opts.holder ?? `${hostname()} pid ${process.pid}`;
      const fence = opts.waitForLock ? await WriterFence.waitFor(config, holder, opts.waitForLock) : await WriterFence.acquire(config, holder);
      // Read after the epoch was bumped: a superseded writer's append that committed before is counted, and none
      // can commit after.
      const { rows } = await pool.query<{ last: string | null; archived: string | null }>(
        `SELECT (SELECT max(seq) FROM journal) AS last, (SELECT value FROM store_settings WHERE key = $1) AS archived`,
        [ARCHIVED_THROUGH],
      );
      const archived = Number(rows[0]!.archived ?? 0);
      return new PostgresTradingStore(pool, config, fence, Math.max(Number(rows[0]!.last ?? 0), archived), archived);
    } catch (err) {
      await pool.end().catch(() => {});
      throw err;
    }
  }

  /** Tells `lost` when the writer's lock goes with its connection (a server restart, a killed session). */
  watchHold(lost: (err: Error) => void): void {
    this.holdLost = lost;
    this.fence.onLost(lost);
  }

  /** The epoch this writer appends under. */
  get epoch(): string {
    return this.fence.epoch;
  }

  commit(entries: readonly JournalEntry[]): number {
    if (this.failed !== undefined) throw this.failed;
    // Encoded first: an entry that cannot be encoded takes no position.
    const commands = entries.map((e) => encodeCommand(e.cmd));
    const changes = entries.map((e) => encodeJson(e.changes));
    for (let i = 0; i < entries.length; i++) {
      this.held.seqs.push(++this.last);
      this.held.ats.push(entries[i]!.cmd.at);
      this.held.commands.push(commands[i]!);
      this.held.changes.push(changes[i]!);
      this.held.catalogue.push(...catalogueStatusChanges(entries[i]!.changes));
    }
    return this.last;
  }

  sync(): Promise<void> {
    const rows = this.held;
    this.held = noRows();
    const snapshot = this.snapshots.takePending();
    const done = this.tail.then(() => this.write(rows, snapshot));
    this.tail = done.catch(() => {});
    return done;
  }

  /** A server's answer cannot be waited for on the thread: shut the runner down with `drain()`, not `stop()`. */
  syncNow(): void {
    throw new Error('the PostgreSQL store makes commits durable asynchronously only (sync), not blocking the thread');
  }

  private async write(rows: HeldRows, snapshot: PendingSnapshot | undefined): Promise<void> {
    if (this.failed !== undefined) throw this.failed;
    if (rows.seqs.length === 0 && !snapshot) return;
    if (!snapshot && rows.catalogue.length === 0 && rows.seqs.length <= ROWS_PER_STATEMENT) return this.append(rows);
    let client: pg.PoolClient | undefined;
    try {
      client = await this.pool.connect();
      await client.query('BEGIN');
      await this.fence.check(client);
      // One statement for a group of up to ROWS_PER_STATEMENT commands.
      for (let from = 0; from < rows.seqs.length; from += ROWS_PER_STATEMENT) {
        const list = journalValues(rows, from, Math.min(from + ROWS_PER_STATEMENT, rows.seqs.length), 1);
        await client.query(`INSERT INTO journal (seq, at_ms, command, changes) ${list.text}`, list.values);
      }
      await applyCatalogueStatus(client, rows.catalogue);
      if (snapshot) await this.snapshots.store(client, snapshot);
      await client.query('COMMIT');
      client.release();
    } catch (err) {
      this.failed = err;
      if (client) {
        await client.query('ROLLBACK').catch(() => {});
        client.release(true); // its state is unknown: not back to the pool
      }
      throw err;
    }
  }

  /**
   * A group without a snapshot in one statement, so one round trip: the fence's check as a CTE every row joins, so
   * a superseded writer's statement inserts none (and one that fails, as any statement, writes nothing).
   */
  private async append(rows: HeldRows): Promise<void> {
    try {
      this.fence.assertLocked();
      const list = journalValues(rows, 0, rows.seqs.length, 2);
      const res = await this.pool.query(
        `WITH fence AS (${WriterFence.CHECK} RETURNING 1)
         INSERT INTO journal (seq, at_ms, command, changes) SELECT r.* FROM (${list.text}) AS r, fence`,
        [this.fence.epoch, ...list.values],
      );
      if (res.rowCount !== rows.seqs.length) throw await this.fence.superseded(this.pool);
    } catch (err) {
      this.failed = err;
      throw err;
    }
  }

  /** Commands after `afterSeq` in order, a page per query, the next page read while this one is applied. */
  replay(afterSeq = 0): AsyncGenerator<JournaledCommand[]> {
    return journalCommandsAfter(this.pool, afterSeq);
  }

  changesAfter(afterSeq: number, limit = PAGE): Promise<JournaledChanges[]> {
    return journalChangesAfter(this.pool, afterSeq, Math.min(limit, PAGE));
  }

  async heal(): Promise<'healed' | 'lost'> {
    if (this.failed === undefined && !this.fence.lost) return 'healed';
    await this.tail;
    const fence = await this.fence.regain(this.config);
    if (fence === 'lost') return 'lost';
    if (fence !== this.fence && this.holdLost) fence.onLost(this.holdLost);
    this.fence = fence;
    // Healed only once the database takes this writer's writes again (a server answering read-only, a role whose
    // privileges were revoked, refuses them): the fence's own check, a write that changes nothing else. Until then
    // the runner keeps trying with backoff and commands are refused, rather than rebuilding after every refused one.
    const check = await this.pool.query(WriterFence.CHECK, [fence.epoch]);
    if (check.rowCount !== 1) return 'lost';
    const { rows } = await this.pool.query<{ last: string | null }>('SELECT max(seq) AS last FROM journal');
    // Whatever was held or pending was refused to its callers; the journal says what the failed sync wrote.
    this.held = noRows();
    this.snapshots.takePending();
    this.last = Math.max(Number(rows[0]!.last ?? 0), this.snapshots.archivedThrough());
    this.failed = undefined;
    return 'healed';
  }

  /** Gives the writer's lock back and closes the connections (after the last sync). */
  async close(): Promise<void> {
    await this.tail;
    await this.fence.release();
    await this.pool.end();
  }
}
