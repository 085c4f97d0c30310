// A hot standby sequencer (ODDEX_STANDBY). While another process writes the PostgreSQL journal, this one keeps an
// engine in the state the journal gives: rebuilt from the newest snapshot and the journal as a start does, then every
// row the writer commits applied as it appears (the journal is polled every FOLLOW_POLL_MS). Meanwhile it waits for
// the writer's lock. Once the writer's session ends (a stop, a crash, kill -9) it holds the lock and a new fencing
// epoch, reads the journal to its end one last time (no other writer can append any more) and hands the warm engine
// to the start-up that follows. Until then nothing here answers commands, projects or settles. The results of
// journaled gateway requests (their request id travels with the command) are kept for the repeats of those requests
// a gateway sends while the takeover runs: each is answered as the old writer would have, never applied again.
import type { Engine, EngineSnapshot } from '../engine/engine.js';
import { DomainError } from '../engine/errors.js';
import type { Command, CommandResult } from '../engine/types.js';
import type { JournaledCommand, StoredSnapshot } from '../store/ports.js';
import type { WarmEngine } from '../store/runner.js';

/** How often the journal is read for rows the writer committed since. */
const FOLLOW_POLL_MS = 50;

/** What the standby reads of the journal (postgres/journal-reader.ts). */
export interface JournalSource {
  archivedThrough(): number;
  validSnapshots(): AsyncIterable<StoredSnapshot<EngineSnapshot>>;
  commandsAfter(afterSeq: number): AsyncIterable<readonly JournaledCommand[]>;
}

/** A journaled command that came in a gateway's request, and its result: what a repeat of that request is answered. */
export interface JournaledReply {
  requestId: string;
  cmd: Command;
  result: CommandResult;
  /** The command's journal position. */
  position: number;
}

export interface StandbyDeps<W extends { readonly epoch: string; close(): Promise<void> }> {
  journal: JournalSource;
  /** Builds an engine as the writer does: empty, or in the state a snapshot recorded. */
  createEngine: (snapshot?: EngineSnapshot) => Engine;
  /** Resolves once this process holds the writer's lock under a new epoch; `signal` stops waiting. */
  takeOver: (signal: AbortSignal) => Promise<W>;
  now: () => number;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  /** How long (by the command's time) and how many journaled replies are kept for repeats. */
  remember: { ms: number; max: number };
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

/** Reads new rows every poll until stopped; a failed read is tried again at the next one. */
async function follow(follower: JournalFollower, deps: Pick<StandbyDeps<never>, 'log' | 'pollMs'>, signal: AbortSignal): Promise<void> {
  const pollMs = deps.pollMs ?? FOLLOW_POLL_MS;
  let failing = false;
  while (!signal.aborted) {
    try {
      await follower.readNew();
      failing = false;
    } catch (err) {
      // Logged once per outage, not every poll.
      if (!failing) deps.log.warn({ err }, 'standby: the journal could not be read; trying again');
      failing = true;
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, pollMs);
      function done() {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
      signal.addEventListener('abort', done, { once: true });
    });
  }
}

/** An engine kept in the state the journal gives, with the position it covers. */
class JournalFollower {
  private engine: Engine | undefined;
  position = 0;
  private snapshotSeq = 0;
  /** The engine may not be what the journal gives (a command failed unexpectedly): rebuilt at the next read. */
  private broken = false;
  /** Journaled gateway requests' replies by request id, oldest first. */
  private readonly remembered = new Map<string, JournaledReply>();

  constructor(private readonly deps: Pick<StandbyDeps<never>, 'journal' | 'createEngine' | 'now' | 'remember' | 'log'>) {}

  /** The newest valid snapshot and the journal after it, else the whole journal (as the writer's start-up does). */
  async rebuild(): Promise<void> {
    this.remembered.clear();
    for await (const snap of this.deps.journal.validSnapshots()) {
      let engine: Engine;
      try {
        engine = this.deps.createEngine(snap.state);
      } catch (err) {
        this.deps.log.warn({ err }, `standby: snapshot at ${snap.seq} cannot be restored`);
        continue;
      }
      this.install(engine, snap.seq);
      return this.readNew();
    }
    const archived = this.deps.journal.archivedThrough();
    if (archived > 0) throw new Error(`no valid snapshot, and journal rows through ${archived} are archived: restore them to rebuild`);
    this.install(this.deps.createEngine(), 0);
    return this.readNew();
  }

  private install(engine: Engine, seq: number): void {
    this.engine = engine;
    this.position = seq;
    this.snapshotSeq = seq;
    this.broken = false;
  }

  /** Applies every row journaled after the position. */
  async readNew(): Promise<void> {
    if (this.broken || !this.engine) return this.rebuild();
    for await (const page of this.deps.journal.commandsAfter(this.position)) {
      for (const { seq, cmd } of page) this.apply(seq, cmd);
    }
  }

  private apply(seq: number, cmd: Command): void {
    // Positions have no gaps: a missing row means this engine missed a command.
    if (seq !== this.position + 1) {
      this.broken = true;
      throw new Error(`the journal went from ${this.position} to ${seq}: rebuilding the standby's engine`);
    }
    let result: CommandResult | undefined;
    try {
      result = this.engine!.apply(cmd).result;
    } catch (err) {
      // A refusal changes nothing (the writer's replay passes over it too); anything else leaves the state unknown.
      if (!(err instanceof DomainError)) {
        this.broken = true;
        throw err;
      }
    }
    this.position = seq;
    if (result !== undefined && cmd.requestId !== undefined) this.remember({ requestId: cmd.requestId, cmd, result, position: seq });
  }

  private remember(reply: JournaledReply): void {
    const { ms, max } = this.deps.remember;
    const oldest = this.deps.now() - ms;
    if (reply.cmd.at < oldest) return;
    this.remembered.delete(reply.requestId);
    this.remembered.set(reply.requestId, reply);
    for (const [id, r] of this.remembered) {
      if (this.remembered.size <= max && r.cmd.at >= oldest) break;
      this.remembered.delete(id);
    }
  }

  warm(): WarmEngine {
    return { engine: this.engine!, seq: this.position, snapshotSeq: this.snapshotSeq };
  }

  /** The replies still within the window. */
  replies(): JournaledReply[] {
    const oldest = this.deps.now() - this.deps.remember.ms;
    return [...this.remembered.values()].filter((r) => r.cmd.at >= oldest);
  }
}
