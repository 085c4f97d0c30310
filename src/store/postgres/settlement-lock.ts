// One settlement process at a time per database: the chain's one signer and its nonces. It holds a session-level
// advisory lock on a connection of its own while it settles; a second one follows the journal meanwhile and takes the
// lock, and the chain, the moment that session ends (a stop, kill -9, a machine gone silent: lockConnection's
// keepalives). Reports repeated across the hand-over are harmless (the engine ignores a fill no longer pending).
import type pg from 'pg';
import { takeSessionLock, type LockWait, type SessionLock } from './advisory-lock.js';

/** The advisory lock key of the settlement process (the writer's, migrations' and projector's are others). */
const SETTLEMENT_LOCK = 0x0dde_0004;

/** Waits for the settlement lock; `waiting` is called once if another process holds it. */
export function takeSettlementLock(config: pg.ClientConfig, opts: LockWait = {}): Promise<SessionLock> {
  return takeSessionLock(config, SETTLEMENT_LOCK, 'settlement lock', opts);
}
