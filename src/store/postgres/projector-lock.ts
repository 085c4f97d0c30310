// One projector process at a time per database: it holds a session-level advisory lock on a connection of its own
// while it projects, and a second one waits for the lock (a hot standby of the projector). The lock is not what keeps
// the read models right: every batch locks the checkpoint row and leaves out what it covers already, so two
// projectors can never apply one command twice. It keeps a second process from doing the same work for nothing.
import pg from 'pg';
import { lockConnection } from './writer-fence.js';

/** The advisory lock key of the projector process (the writer's and migrations' are others). */
const PROJECTOR_LOCK = 0x0dde_0003;

export interface ProjectorLock {
  /** Resolves with why, once the lock is gone (its connection failed or ended: the server may grant it to another). */
  readonly lost: Promise<Error>;
  release(): Promise<void>;
}

/**
 * Waits for the projector's lock: blocked in pg_advisory_lock, granted the moment the holder's session ends. `waiting`
 * is called once if another process holds it; a connection that fails meanwhile is opened again after `retryMs`.
 */
export async function takeProjectorLock(
  config: pg.ClientConfig,
  opts: { signal?: AbortSignal; retryMs?: number; waiting?: () => void; onRetry?: (err: unknown) => void } = {},
): Promise<ProjectorLock> {
  const { signal, retryMs = 500 } = opts;
  let toldWaiting = false;
  for (;;) {
    if (signal?.aborted) throw new Error('stopped waiting for the projector lock');
    const client = new pg.Client(lockConnection(config));
    let lostWith: (err: Error) => void = () => {};
    const lost = new Promise<Error>((resolve) => (lostWith = resolve));
    client.on('error', (err) => lostWith(err));
    client.on('end', () => lostWith(new Error('the lock connection ended')));
    const abort = () => void client.end().catch(() => {});
    signal?.addEventListener('abort', abort, { once: true });
    try {
      await client.connect();
      const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [PROJECTOR_LOCK]);
      if (!rows[0]!.ok) {
        if (!toldWaiting) opts.waiting?.();
        toldWaiting = true;
        await client.query('SELECT pg_advisory_lock($1)', [PROJECTOR_LOCK]);
      }
      return {
        lost,
        release: async () => {
          await client.query('SELECT pg_advisory_unlock($1)', [PROJECTOR_LOCK]).catch(() => {});
          await client.end().catch(() => {});
        },
      };
    } catch (err) {
      await client.end().catch(() => {});
      if (signal?.aborted) throw new Error('stopped waiting for the projector lock');
      opts.onRetry?.(err);
      await new Promise((resolve) => setTimeout(resolve, retryMs));
    } finally {
      signal?.removeEventListener('abort', abort);
    }
  }
}
