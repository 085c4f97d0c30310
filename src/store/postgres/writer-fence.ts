// One writer per database, fenced. The writer holds a session-level advisory lock on a connection of its own for as
// long as it runs (a second writer is refused at start), and on taking it bumps the fencing epoch in writer_fence.
// Every journal append checks, in its own transaction, that the epoch is still the writer's: a writer that lost its
// lock connection while another one started (a stale process, a standby that wrongly took over) appends nothing
// more, even if it never noticed. The lock keeps writers from starting together; the epoch keeps a stale one out.
import pg from 'pg';
import { lockConnection, waitForAdvisoryLock, type LockWait } from './advisory-lock.js';
import { SetupError } from '../../setup-error.js';

/** The advisory lock key of the writer (migrations use another: migrate.ts). */
const WRITER_LOCK = 0x0dde_0002;

/** Another writer holds the database: this one must not start. */
export class WriterLockedError extends SetupError {
  constructor(holder: string, since: Date | undefined) {
    super(
      `another writer holds this database (${holder || 'unknown'}${since ? `, since ${since.toISOString()}` : ''}): ` +
        'only one exchange writes a database; stop it first',
    );
    this.name = 'WriterLockedError';
  }
}

/** This writer was superseded (or lost its lock): it appended nothing and must stop appending. */
export class WriterFencedError extends Error {
  constructor(reason: string) {
    super(`this writer no longer holds the database, nothing was appended: ${reason}`);
    this.name = 'WriterFencedError';
  }
}

export class WriterFence {
  private lostLock: Error | undefined;
  private lostListener: ((err: Error) => void) | undefined;

  private constructor(
    private readonly lockClient: pg.Client,
    /** The epoch this writer appends under. */
    readonly epoch: string,
  ) {
    // The session's lock ends with its connection; appends are refused from then on.
    lockClient.on('error', (err) => this.lose(err));
    lockClient.on('end', () => this.lose(new Error('the lock connection ended')));
  }

  private lose(err: Error): void {
    if (this.lostLock) return; // released, or already lost
    this.lostLock = err;
    this.lostListener?.(err);
  }

  /** The lock connection failed (or the lock was released): appends are refused. */
  get lost(): boolean {
    return this.lostLock !== undefined;
  }

  /**
   * Calls `listener` once if the lock connection fails (the lock went with it), not on release(): a writer with
   * nothing to append would otherwise learn it only from its next append, holding no lock meanwhile.
   */
  onLost(listener: (err: Error) => void): void {
    this.lostListener = listener;
    const lost = this.lostLock;
    if (lost) queueMicrotask(() => listener(lost));
  }

  /** Takes the writer's lock and a new epoch, or throws WriterLockedError. */
  static async acquire(config: pg.ClientConfig, holder: string): Promise<WriterFence> {
    const client = new pg.Client(lockConnection(config));
    await client.connect();
    try {
      const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [WRITER_LOCK]);
      if (!rows[0]!.ok) {
        const held = await client.query<{ holder: string; since: Date }>('SELECT holder, since FROM writer_fence WHERE id = 1');
        throw new WriterLockedError(held.rows[0]?.holder ?? '', held.rows[0]?.since);
      }
      return new WriterFence(client, await bumpEpoch(client, holder));
    } catch (err) {
      await client.end().catch(() => {});
      throw err;
    }
  }

  /**
   * Waits for the writer's lock, then takes a new epoch (a hot standby). Blocked in pg_advisory_lock on a connection
   * of its own, which the server grants the moment the holder's session ends (a killed writer's socket closes at
   * once): no polling delay. The bump waits for an append still holding the fence's row, then supersedes it. A
   * connection that fails while waiting is opened again after `retryMs`; `signal` stops waiting.
   */
  static waitFor(config: pg.ClientConfig, holder: string, opts: Omit<LockWait, 'waiting'> = {}): Promise<WriterFence> {
    return waitForAdvisoryLock(config, WRITER_LOCK, 'writer lock', opts, async (client) => new WriterFence(client, await bumpEpoch(client, holder)));
  }

  /**
   * After a failure (a server restart ends every session, and the lock with its connection): this writer's fence
   * again, on its old connection if that still answers, else on a new one that takes the lock again; 'lost' if
   * another writer holds the lock or bumped the epoch meanwhile. The epoch stays this writer's: nobody else took it,
   * so nobody else appended. Rejects while the server cannot be reached.
   */
  async regain(config: pg.ClientConfig): Promise<WriterFence | 'lost'> {
    if (!this.lostLock) {
      const kept = await this.lockClient.query<{ epoch: string }>('SELECT epoch FROM writer_fence WHERE id = 1').catch(() => undefined);
      if (kept) return kept.rows[0]?.epoch === this.epoch ? this : 'lost';
      this.lostLock = new Error('the lock connection stopped answering');
    }
    await this.lockClient.end().catch(() => {});
    const client = new pg.Client(lockConnection(config));
    client.on('error', () => {}); // reported by the queries below
    await client.connect();
    try {
      const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [WRITER_LOCK]);
      if (!rows[0]!.ok) {
        await client.end().catch(() => {});
        return 'lost';
      }
      const current = await client.query<{ epoch: string }>('SELECT epoch FROM writer_fence WHERE id = 1');
      if (current.rows[0]?.epoch !== this.epoch) {
        await client.end().catch(() => {});
        return 'lost';
      }
      return new WriterFence(client, this.epoch);
    } catch (err) {
      await client.end().catch(() => {});
      throw err;
    }
  }

  /** The statement an append runs first in its transaction (or as a CTE of its one statement), with `epoch`. */
  static readonly CHECK = 'UPDATE writer_fence SET last_append_at = now() WHERE id = 1 AND epoch = $1';

  /** Throws WriterFencedError if the lock connection failed (the lock went with it). */
  assertLocked(): void {
    if (this.lostLock) throw new WriterFencedError(`its lock connection failed (${this.lostLock.message})`);
  }

  /** Inside the caller's append transaction, first: throws WriterFencedError unless the epoch is still this writer's. */
  async check(tx: pg.ClientBase): Promise<void> {
    this.assertLocked();
    // Also locks the row until the transaction ends: a new writer's bump waits for this append, then supersedes it.
    const res = await tx.query({ name: 'writer-fence-check', text: WriterFence.CHECK, values: [this.epoch] });
    if (res.rowCount !== 1) throw await this.superseded(tx);
  }

  /** The error of an append whose check matched no row: another writer bumped the epoch. */
  async superseded(q: pg.ClientBase | pg.Pool): Promise<WriterFencedError> {
    const { rows } = await q.query<{ epoch: string }>('SELECT epoch FROM writer_fence WHERE id = 1').catch(() => ({ rows: [] as { epoch: string }[] }));
    return new WriterFencedError(`another writer took epoch ${rows[0]?.epoch ?? '?'} after this one's ${this.epoch}`);
  }

  /** Gives the lock back (the epoch stays: a later writer bumps it). */
  async release(): Promise<void> {
    if (!this.lostLock) await this.lockClient.query('SELECT pg_advisory_unlock($1)', [WRITER_LOCK]).catch(() => {});
    this.lostLock ??= new Error('released');
    await this.lockClient.end().catch(() => {});
  }
}

/** The lock is this connection's: a new epoch, which every append of an earlier holder fails against. */
async function bumpEpoch(client: pg.Client, holder: string): Promise<string> {
  const bumped = await client.query<{ epoch: string }>('UPDATE writer_fence SET epoch = epoch + 1, holder = $1, since = now() WHERE id = 1 RETURNING epoch', [holder]);
  return bumped.rows[0]!.epoch;
}
