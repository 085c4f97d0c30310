// A gateway's end of the NATS command transport: the command port (port.ts) of a process that runs no engine. Each
// command is one request with an id of its own; while no sequencer answers (NATS down, no responder, a reply that
// does not come: a sequencer being replaced) it is sent again, same id, with backoff, for a bounded time, then
// refused with SEQUENCER_UNAVAILABLE. A repeat is harmless: the sequencer answers a repeated id with its first reply,
// and the engine refuses a repeated order hash, fill salt or cancel salt.
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { BalanceView, Command, ResultOf } from '../../engine/types.js';
import type { Engine } from '../../engine/engine.js';
import { ExchangeError } from '../../protocol/errors.js';
import type { ReadModels } from '../../store/ports.js';
import type { ForwardedReply, ForwardedRequest, RouteForwarder, SequencerPort } from '../port.js';
import { COMMAND_SUBJECT, decodeReply, encodeRequest, FORWARD_SUBJECT, POSITION_SUBJECT, resultOfReply } from './wire.js';
import { RetryingRequester } from './retrying-requester.js';

export interface RemoteSequencerOptions {
  url: string;
  /** How long one attempt waits for a reply, and for how long attempts are repeated. */
  attemptTimeoutMs: number;
  retryForMs: number;
  /** The read side, for balances after a write, and how long such a read waits for it. */
  balances: ReadModels['balances'];
  projection: { waitFor(seq: number, timeoutMs: number): Promise<boolean> };
  readWaitMs: number;
  log: Pick<FastifyBaseLogger, 'warn'>;
}

export class RemoteSequencer implements SequencerPort, RouteForwarder {
  /** The newest journal position a reply carried. */
  private acknowledged_ = 0;
  private readonly requester: RetryingRequester;
  /** The position request in flight, and the one after it, which calls made while the first flies wait for. */
  private asking: Promise<number> | undefined;
  private askingNext: Promise<number> | undefined;

  /**
   * Connects in the background, so a gateway started before NATS (or while it is down) serves reads, and answers
   * commands once NATS is there. Reconnects for ever: a NATS restart is ridden through like a sequencer takeover.
   */
  constructor(private readonly opts: RemoteSequencerOptions) {
    this.requester = new RetryingRequester(opts.url, 'oddex-gateway', opts.log);
  }

  acknowledged(): number {
    return this.acknowledged_;
  }

  /**
   * Asks the sequencer. Calls share requests, but never one sent before they were made: its answer could predate a
   * write acknowledged meanwhile. While no sequencer answers (a takeover), the newest position this gateway knows.
   */
  latestPosition(): Promise<number> {
    if (!this.asking) return this.askPosition();
    return (this.askingNext ??= this.asking.then(() => {
      this.askingNext = undefined;
      return this.askPosition();
    }));
  }

  private askPosition(): Promise<number> {
    const bounds = { attemptTimeoutMs: this.opts.readWaitMs, retryForMs: this.opts.readWaitMs / 2 };
    const asked = this.askSequencer('position request', bounds)
      .then((position) => Math.max(this.acknowledged_, position))
      .catch(() => this.acknowledged_)
      .finally(() => {
        if (this.asking === asked) this.asking = undefined;
      });
    this.asking = asked;
    return asked;
  }

  /**
   * Readiness: resolves once a sequencer answered a position request within `withinMs`; otherwise throws
   * SEQUENCER_UNAVAILABLE saying why (NATS not connected, or no sequencer answered), as every write would end then.
   */
  async assertSequencerAnswers(withinMs: number): Promise<void> {
    if (!this.requester.connected) {
      throw new ExchangeError('SEQUENCER_UNAVAILABLE', `not connected to NATS (${this.opts.url}): commands cannot reach the sequencer; reads are served`);
    }
    try {
      await this.askSequencer('readiness check', { attemptTimeoutMs: withinMs, retryForMs: withinMs });
    } catch {
      throw new ExchangeError('SEQUENCER_UNAVAILABLE', `no sequencer answered over NATS within ${withinMs} ms: commands cannot be taken; reads are served`);
    }
  }

  /** The position the sequencer has acknowledged writes through (wire.ts POSITION_SUBJECT). */
  private async askSequencer(what: string, bounds: { attemptTimeoutMs: number; retryForMs: number }): Promise<number> {
    const position = (JSON.parse(await this.requester.request(POSITION_SUBJECT, '', what, true, bounds)) as { position?: unknown }).position;
    if (!Number.isSafeInteger(position)) throw new Error(`the sequencer answered a position request with ${String(position)}`);
    return position as number;
  }

  async submit<C extends Command>(cmd: C): Promise<ResultOf<C>> {
    const reply = decodeReply(await this.request(COMMAND_SUBJECT, encodeRequest({ id: randomUUID(), command: cmd }), 'command', true));
    if (reply.ok) this.acknowledged_ = Math.max(this.acknowledged_, reply.position);
    return resultOfReply<C>(reply);
  }

  /**
   * A request only the sequencer's process answers, answered by it. A read is repeated like a command; a write is
   * repeated only while no process is there to take it (no responders), never after one may have taken it: it has
   * no request id to be answered once by.
   */
  async forward(request: ForwardedRequest): Promise<ForwardedReply> {
    const read = request.method === 'GET' || request.method === 'HEAD';
    const reply = JSON.parse(await this.request(FORWARD_SUBJECT, JSON.stringify(request), 'request', read)) as ForwardedReply;
    const position = Number(reply.headers['oddex-position']);
    // A forwarded write's position is this gateway's to wait for, as a command's is.
    if (!read && reply.status < 400 && Number.isSafeInteger(position)) this.acknowledged_ = Math.max(this.acknowledged_, position);
    return reply;
  }

  async balancesAfterWrite(address: string): Promise<BalanceView> {
    // The read side's balances, once they cover every write this gateway saw acknowledged.
    if (!(await this.opts.projection.waitFor(this.acknowledged_, this.opts.readWaitMs))) {
      throw new ExchangeError('READ_MODEL_BEHIND', `the read models have not reached journal position ${this.acknowledged_} yet; retry shortly`);
    }
    return this.opts.balances.balanceOf(address);
  }

  liveEngine(): Engine {
    throw new ExchangeError('NOT_ON_GATEWAY');
  }

  close(): Promise<void> {
    return this.requester.close();
  }

  private request(subject: string, payload: string, what: string, repeatable: boolean): Promise<string> {
    return this.requester.request(subject, payload, what, repeatable, this.opts);
  }
}
