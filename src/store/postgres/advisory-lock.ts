// Waiting for a session-level advisory lock on a connection of its own (the writer's standby, a projector's): blocked
// in pg_advisory_lock, granted the moment the holder's session ends. A connection that fails while waiting is opened
// again after `retryMs`, doubled per failure in a row up to MAX_RETRY_MS (a database away for a minute costs a dozen
// attempts and warnings, not one every half second); `signal` stops waiting.
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';

/** The longest pause between attempts: what a database back from an outage may wait before the lock is asked again. */
export const MAX_RETRY_MS = 4000;

/**
 * A lock's connection, kept alive on both ends: a holder whose machine vanishes (power, network) without closing its
 * socket loses its session, and the lock with it, within about 11 s of silence rather than the kernel's default of
 * hours, so a standby takes over; and a standby blocked waiting learns of a dead connection the same way.
 */
export function lockConnection(config: pg.ClientConfig): pg.ClientConfig {
  const keepalives = '-c tcp_keepalives_idle=5 -c tcp_keepalives_interval=2 -c tcp_keepalives_count=3';
  return { ...config, keepAlive: true, keepAliveInitialDelayMillis: 5000, options: config.options ? `${config.options} ${keepalives}` : keepalives };
}

export interface LockWait {
  signal?: AbortSignal;
  retryMs?: number;
  onRetry?: (err: unknown) => void;
  /** Called once if another session holds the lock when asked (then it waits). */
  waiting?: () => void;
}

/**
 * Waits for lock `key`, then resolves with what `locked` makes of the connection that holds it (which it keeps; a
 * rejection of `locked` closes it and waits again). `what` names the lock in the error of a stopped wait.
 */
export async function waitForAdvisoryLock<T>(config: pg.ClientConfig, key: number, what: string, opts: LockWait, locked: (client: pg.Client) => Promise<T>): Promise<T> {
  const { signal, retryMs = 500 } = opts;
  let toldWaiting = false;
  for (let pause = retryMs; ; pause = Math.min(pause * 2, Math.max(retryMs, MAX_RETRY_MS))) {
    if (signal?.aborted) throw new Error(`stopped waiting for the ${what}`);
    const client = new pg.Client(lockConnection(config));
    client.on('error', () => {}); // reported by the query under way
    const abort = () => void client.end().catch(() => {});
    signal?.addEventListener('abort', abort, { once: true });
    try {
      await client.connect();
      if (opts.waiting && !toldWaiting) {
        const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [key]);
        if (!rows[0]!.ok) {
          toldWaiting = true;
          opts.waiting();
          await client.query('SELECT pg_advisory_lock($1)', [key]);
        }
      } else await client.query('SELECT pg_advisory_lock($1)', [key]);
      return await locked(client);
    } catch (err) {
      await client.end().catch(() => {});
      if (signal?.aborted) throw new Error(`stopped waiting for the ${what}`);
      opts.onRetry?.(err);
      await sleep(pause, undefined, { signal }).catch(() => {}); // a stop ends the pause; the loop then throws
    } finally {
      signal?.removeEventListener('abort', abort);
    }
  }
}

/** A session-level lock held on a connection of its own (a process's hot-standby lock: the projector's, the settlement's). */
export interface SessionLock {
  /** Resolves with why, once the lock is gone (its connection failed or ended: the server may grant it to another). */
  readonly lost: Promise<Error>;
  release(): Promise<void>;
}

/** Waits for lock `key` and holds it until released or its connection is lost. */
export function takeSessionLock(config: pg.ClientConfig, key: number, what: string, opts: LockWait = {}): Promise<SessionLock> {
  return waitForAdvisoryLock(config, key, what, opts, (client) => {
    let lostWith: (err: Error) => void = () => {};
    const lost = new Promise<Error>((resolve) => (lostWith = resolve));
    client.on('error', (err) => lostWith(err));
    client.on('end', () => lostWith(new Error('the lock connection ended')));
    return Promise.resolve({
      lost,
      release: async () => {
        await client.query('SELECT pg_advisory_unlock($1)', [key]).catch(() => {});
        await client.end().catch(() => {});
      },
    });
  });
}
