// One projector process at a time per database: it holds a session-level advisory lock on a connection of its own
// while it projects, and a second one waits for the lock (a hot standby of the projector). The lock is not what keeps
// the read models right: every batch locks the checkpoint row and leaves out what it covers already, so two
// projectors can never apply one command twice. It keeps a second process from doing the same work for nothing.
import type pg from 'pg';
import { takeSessionLock, type LockWait, type SessionLock } from './advisory-lock.js';

/** The advisory lock key of the projector process (the writer's and migrations' are others). */
const PROJECTOR_LOCK = 0x0dde_0003;

/** Waits for the projector's lock; `waiting` is called once if another process holds it. */
export function takeProjectorLock(config: pg.ClientConfig, opts: LockWait = {}): Promise<SessionLock> {
  return takeSessionLock(config, PROJECTOR_LOCK, 'projector lock', opts);
}
