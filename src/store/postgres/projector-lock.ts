// One projector process at a time per database: it holds a session-level advisory lock on a connection of its own
// while it projects, and a second one waits for the lock (a hot standby of the projector). The lock is not what keeps
// the read models right: every batch locks the checkpoint row and leaves out what it covers already, so two
// projectors can never apply one command twice. It keeps a second process from doing the same work for nothing.
import type pg from 'pg';
import { waitForAdvisoryLock, type LockWait } from './advisory-lock.js';

/** The advisory lock key of the projector process (the writer's and migrations' are others). */
const PROJECTOR_LOCK = 0x0dde_0003;

export interface ProjectorLock {
  /** Resolves with why, once the lock is gone (its connection failed or ended: the server may grant it to another). */
  readonly lost: Promise<Error>;
  release(): Promise<void>;
}

/** Waits for the projector's lock; `waiting` is called once if another process holds it. */
export function takeProjectorLock(config: pg.ClientConfig, opts: LockWait = {}): Promise<ProjectorLock> {
  return waitForAdvisoryLock(config, PROJECTOR_LOCK, 'projector lock', opts, (client) => {
    let lostWith: (err: Error) => void = () => {};
    const lost = new Promise<Error>((resolve) => (lostWith = resolve));
    client.on('error', (err) => lostWith(err));
    client.on('end', () => lostWith(new Error('the lock connection ended')));
    return Promise.resolve({
      lost,
      release: async () => {
        await client.query('SELECT pg_advisory_unlock($1)', [PROJECTOR_LOCK]).catch(() => {});
        await client.end().catch(() => {});
      },
    });
  });
}
