// A process with a hot standby of its own (a projector, a settlement process) works in turns: it waits for its
// role's session lock, works while it holds it, and waits for it again once it lost it (its connection failed, the
// database restarted), until stopped.
import type { LockWait, SessionLock } from './advisory-lock.js';

export interface LockTurns {
  /** Waits for the role's lock (takeProjectorLock, takeSettlementLock). */
  take: (wait: LockWait) => Promise<SessionLock>;
  /** Stops waiting for the lock (work is stopped by its caller). */
  signal: AbortSignal;
  log: { info(msg: string): void; warn(obj: object, msg: string): void };
  /** Log lines: another process holds the lock; the lock was lost (then waited for again). */
  says: { standingBy: string; lost: string; unreachable: string };
  /** Works while the lock is held; resolves with why it stopped if the lock was lost, else undefined (stopped). */
  work: (lost: Promise<Error>) => Promise<Error | undefined>;
}

/** Resolves once stopped. */
export async function workInTurns(turns: LockTurns): Promise<void> {
  const { log, says, signal } = turns;
  while (!signal.aborted) {
    let lock;
    try {
      lock = await turns.take({
        signal,
        waiting: () => log.info(says.standingBy),
        onRetry: (err) => log.warn({ err }, says.unreachable),
      });
    } catch {
      return; // stopped while waiting
    }
    const lost = await turns.work(lock.lost);
    await lock.release();
    if (lost && !signal.aborted) log.warn({ err: lost }, says.lost);
  }
}
