// An engine kept in the state a PostgreSQL journal gives while another process writes it: rebuilt from the newest
// snapshot and the journal as a start does, then every row the writer commits applied as it appears (`follow` reads
// the journal every FOLLOW_POLL_MS). A hot standby sequencer (standby.ts) follows to take over warm; a settlement
// process (settlement-node.ts) follows to learn the pending fills and, through a watcher, what each new command
// changed (fills accepted, markets reported, refunds paid).
import type { Engine, EngineSnapshot } from '../engine/engine.js';
import type { Change } from '../engine/changes.js';
import { DomainError } from '../engine/errors.js';
import { SetupError } from '../setup-error.js';
import type { Command, CommandResult } from '../engine/types.js';
import type { JournaledCommand, StoredSnapshot } from '../store/ports.js';
import type { WarmEngine } from '../store/runner.js';

/** How often the journal is read for rows the writer committed since. */
const FOLLOW_POLL_MS = 50;

/** What a follower reads of the journal (postgres/journal-reader.ts). */
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

/**
 * Called before each command read after the follower's first rebuild (not while a rebuild replays old ones), with
 * the engine as it stands before it; what it returns is called with the command's change records once applied.
 */
export type CommandWatcher = (cmd: Command, before: Engine) => ((changes: readonly Change[]) => void) | undefined;

export interface FollowerDeps {
  journal: JournalSource;
  /** Builds an engine as the writer does: empty, or in the state a snapshot recorded. */
  createEngine: (snapshot?: EngineSnapshot) => Engine;
  now: () => number;
  log: { warn(obj: object, msg: string): void };
  /** How long (by the command's time) and how many journaled replies are kept for repeats. */
  remember: { ms: number; max: number };
  watch?: CommandWatcher;
  /** The engine was rebuilt (at first, or after a gap): what a watcher would have seen meanwhile is in its state. */
  rebuilt?: (engine: Engine) => void;
}

/** Reads new rows every poll until stopped; a failed read is tried again at the next one. */
export async function follow(follower: JournalFollower, deps: { log: { warn(obj: object, msg: string): void }; pollMs?: number }, signal: AbortSignal): Promise<void> {
  const pollMs = deps.pollMs ?? FOLLOW_POLL_MS;
  let failing = false;
  while (!signal.aborted) {
    try {
      await follower.readNew();
      failing = false;
    } catch (err) {
      // Logged once per outage, not every poll.
      if (!failing) deps.log.warn({ err }, 'the journal could not be read; trying again');
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
export class JournalFollower {
  private engine: Engine | undefined;
  position = 0;
  private snapshotSeq = 0;
  /** When the oldest command applied after that snapshot was journaled (undefined: none yet). */
  private uncoveredSince: number | undefined;
  /** The engine may not be what the journal gives (a command failed unexpectedly): rebuilt at the next read. */
  private broken = false;
  /** Journaled gateway requests' replies by request id, oldest first. */
  private readonly remembered = new Map<string, JournaledReply>();

  /** Rebuilt (snapshot and journal) rather than read on: its commands are not watched. */
  private rebuilding = false;
  /** The read under way: the next one starts after it. */
  private reading: Promise<void> = Promise.resolve();

  constructor(private readonly deps: FollowerDeps) {}

  /** The engine in the state the journal gives through `position` (after the first rebuild). */
  get replica(): Engine {
    return this.engine!;
  }

  /** The newest valid snapshot and the journal after it, else the whole journal (as the writer's start-up does). */
  async rebuild(): Promise<void> {
    this.rebuilding = true;
    try {
      await this.rebuildFromSnapshot();
    } finally {
      this.rebuilding = false;
    }
    this.deps.rebuilt?.(this.engine!);
  }

  private async rebuildFromSnapshot(): Promise<void> {
    this.remembered.clear();
    for await (const snap of this.deps.journal.validSnapshots()) {
      let engine: Engine;
      try {
        engine = this.deps.createEngine(snap.state);
      } catch (err) {
        this.deps.log.warn({ err }, `journal follower: snapshot at ${snap.seq} cannot be restored`);
        continue;
      }
      this.install(engine, snap.seq);
      return this.readPending();
    }
    const archived = this.deps.journal.archivedThrough();
    if (archived > 0) throw new SetupError(`no valid snapshot, and journal rows through ${archived} are archived: restore them to rebuild`);
    this.install(this.deps.createEngine(), 0);
    return this.readPending();
  }

  private install(engine: Engine, seq: number): void {
    this.engine = engine;
    this.position = seq;
    this.snapshotSeq = seq;
    this.uncoveredSince = undefined;
    this.broken = false;
  }

  /** Applies every row journaled after the position; one read at a time, however many callers ask. */
  readNew(): Promise<void> {
    const read = this.reading.then(() => this.readPending());
    this.reading = read.catch(() => {});
    return read;
  }

  private async readPending(): Promise<void> {
    if (this.broken || !this.engine) return this.rebuild();
    for await (const page of this.deps.journal.commandsAfter(this.position)) {
      for (const { seq, cmd } of page) this.apply(seq, cmd);
    }
  }

  private apply(seq: number, cmd: Command): void {
    // Positions have no gaps: a missing row means this engine missed a command.
    if (seq !== this.position + 1) {
      this.broken = true;
      throw new Error(`the journal went from ${this.position} to ${seq}: rebuilding the follower's engine`);
    }
    this.uncoveredSince ??= cmd.at;
    let result: CommandResult | undefined;
    const watched = this.rebuilding ? undefined : this.deps.watch?.(cmd, this.engine!);
    try {
      const applied = this.engine!.apply(cmd);
      result = applied.result;
      watched?.(applied.changes);
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
    return { engine: this.engine!, seq: this.position, snapshotSeq: this.snapshotSeq, ...(this.uncoveredSince !== undefined ? { uncoveredSince: this.uncoveredSince } : {}) };
  }

  /** The replies still within the window. */
  replies(): JournaledReply[] {
    const oldest = this.deps.now() - this.deps.remember.ms;
    return [...this.remembered.values()].filter((r) => r.cmd.at >= oldest);
  }
}
