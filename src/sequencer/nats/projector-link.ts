// The sequencer's side of a projector that runs in a process of its own (ODDEX_ROLES without `projector` here): it
// tells the projector how far the journal is durable and learns how far the read models reach, from the projector's
// messages and, in case one is lost, from the checkpoint itself, read while the read models are behind. The
// projection loop publishes and wakes readers as it learns; it never waits for the projector, which follows the
// journal on its own (and catches up by itself after a restart, from its checkpoint).
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { RemoteProjector } from '../../store/ports.js';
import { connectInBackground } from './connection.js';
import { HighestPerTurn } from '../../store/highest-per-turn.js';
import {
  decodeSignal,
  encodeSignal,
  JOURNAL_DURABLE_SUBJECT,
  READ_MODELS_PROJECTED_SUBJECT,
} from './projector-signals.js';

/** How often the checkpoint is read while the read models are behind what is durable (a lost message's cost). */
const BEHIND_POLL_MS = 100;

export interface ProjectorLinkEvents {
  projected(position: number, commands: number): void;
  problem(err: unknown): void;
}

export class ProjectorProcessLink implements RemoteProjector {
  readonly apart = true;
  private position_: number;
  /** How far the journal is durable, as told to the projector. */
  private readonly durable = new HighestPerTurn((through) => this.signal(through));
  private nc: NatsConnection | undefined;
  private sub: Subscription | undefined;
  private readonly closeConnection: () => Promise<void>;
  private readonly poll: NodeJS.Timeout;
  private polling = false;
  /** The last read of the checkpoint failed (the database is away): reported once until one succeeds. */
  private unreadable = false;

  constructor(
    natsUrl: string,
    private readonly readCheckpoint: () => Promise<number>,
    position: number,
    private readonly events: ProjectorLinkEvents,
  ) {
    this.position_ = position;
    this.closeConnection = connectInBackground(
      natsUrl,
      'oddex-sequencer-projection',
      (nc) => {
        this.nc = nc;
        this.sub = nc.subscribe(READ_MODELS_PROJECTED_SUBJECT, {
          callback: (err, msg) => {
            if (err) return this.events.problem(err);
            const signal = decodeSignal(msg.string(), ['position', 'commands'] as const);
            if (signal) this.reached(signal.position, signal.commands);
          },
        });
        if (this.durable.highest > 0) this.signal(this.durable.highest);
      },
      (err) => this.events.problem(err),
    );
    this.poll = setInterval(() => void this.readAgain(), BEHIND_POLL_MS);
    this.poll.unref();
  }

  get position(): number {
    return this.position_;
  }

  /** The journal is durable through `through`: one message per turn at most. */
  advance(through: number): void {
    this.durable.offer(through);
  }

  /** Never blocks: the projector is another process, which a flush does not wait for (`apart`). */
  waitUntil(seq: number): boolean {
    return this.position_ >= seq;
  }

  async stop(): Promise<void> {
    clearInterval(this.poll);
    this.sub?.unsubscribe();
    await this.closeConnection();
  }

  private signal(through: number): void {
    try {
      this.nc?.publish(JOURNAL_DURABLE_SUBJECT, encodeSignal({ through }));
    } catch (err) {
      // A closed or draining connection: the projector polls the journal meanwhile.
      this.events.problem(err);
    }
  }

  private reached(position: number, commands: number): void {
    if (position <= this.position_) return;
    this.position_ = position;
    this.events.projected(position, commands);
  }

  private async readAgain(): Promise<void> {
    if (this.polling || this.position_ >= this.durable.highest) return;
    this.polling = true;
    try {
      this.reached(await this.readCheckpoint(), 0);
      this.unreadable = false;
    } catch (err) {
      // Once per outage, not every poll.
      if (!this.unreadable) this.events.problem(err);
      this.unreadable = true;
    } finally {
      this.polling = false;
    }
  }
}
