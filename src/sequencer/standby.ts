// A hot standby sequencer (ODDEX_STANDBY). While another process writes the PostgreSQL journal, this one keeps an
// engine in the state the journal gives: rebuilt from the newest snapshot and the journal as a start does, then every
// row the writer commits applied as it appears (journal-follower.ts). Meanwhile it waits for
// the writer's lock. Once the writer's session ends (a stop, a crash, kill -9) it holds the lock and a new fencing
// epoch, reads the journal to its end one last time (no other writer can append any more) and hands the warm engine
// to the start-up that follows. Until then nothing here answers commands, projects or settles. The results of
// journaled gateway requests (their request id travels with the command) are kept for the repeats of those requests
// a gateway sends while the takeover runs: each is answered as the old writer would have, never applied again.
import type { WarmEngine } from '../store/runner.js';
import { follow, JournalFollower, type FollowerDeps, type JournaledReply, type JournalSource } from './journal-follower.js';

export type { JournaledReply, JournalSource };

export interface StandbyDeps<W extends { readonly epoch: string; close(): Promise<void> }> extends Omit<FollowerDeps, 'watch' | 'rebuilt'> {
  /** Resolves once this process holds the writer's lock under a new epoch; `signal` stops waiting. */
  takeOver: (signal: AbortSignal) => Promise<W>;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  pollMs?: number;
}

export interface TakenOver<W> {
  writer: W;
  warm: WarmEngine;
  replies: JournaledReply[];
}

/** Follows the journal until the writer's lock is this process's; resolves with it and the warm engine. */
export async function standBy<W extends { readonly epoch: string; close(): Promise<void> }>(deps: StandbyDeps<W>): Promise<TakenOver<W>> {
  const follower = new JournalFollower(deps);
  await follower.rebuild();
  deps.log.info({ position: follower.position }, `standing by: following the journal at position ${follower.position}`);
  const stop = new AbortController();
  const following = follow(follower, deps, stop.signal);
  let writer: W;
  try {
    writer = await deps.takeOver(stop.signal);
  } finally {
    stop.abort();
    await following;
  }
  try {
    // The old writer can append nothing more: this read reaches the journal's end.
    await follower.readNew();
  } catch (err) {
    await writer.close().catch(() => {});
    throw err;
  }
  deps.log.info(
    { position: follower.position, epoch: writer.epoch },
    `took over as the writer at position ${follower.position}, epoch ${writer.epoch}`,
  );
  return { writer, warm: follower.warm(), replies: follower.replies() };
}

