// A gateway's end of the NATS command transport: the command port (port.ts) of a process that runs no engine. Each
// command is one request with an id of its own; while no sequencer answers (NATS down, no responder, a reply that
// does not come: a sequencer being replaced) it is sent again, same id, with backoff, for a bounded time, then
// refused with SEQUENCER_UNAVAILABLE. A repeat is harmless: the sequencer answers a repeated id with its first reply,
// and the engine refuses a repeated order hash, fill salt or cancel salt.
import { randomUUID } from 'node:crypto';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { FastifyBaseLogger } from 'fastify';
import type { BalanceView, Command, ResultOf } from '../../engine/types.js';
import type { Engine } from '../../engine/engine.js';
import { ExchangeError } from '../../protocol/errors.js';
import type { ReadModels } from '../../store/ports.js';
import type { ForwardedReply, ForwardedRequest, RouteForwarder, SequencerPort } from '../port.js';
import { COMMAND_SUBJECT, decodeReply, encodeRequest, FORWARD_SUBJECT, resultOfReply } from './wire.js';

const FIRST_BACKOFF_MS = 25;
/**
 * A takeover leaves no sequencer for about half a second: a longer wait between attempts would add to what clients
 * see (with 1 s, a write was answered 1.1-1.6 s after the leader's kill -9). A refused attempt costs NATS one
 * no-responders reply.
 */
const MAX_BACKOFF_MS = 250;

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
  /** Undefined until NATS first answers: commands meanwhile are retried within their bound like any other. */
  private nc: NatsConnection | undefined;
  private closed = false;

  /**
   * Connects in the background, so a gateway started before NATS (or while it is down) serves reads, and answers
   * commands once NATS is there. Reconnects for ever: a NATS restart is ridden through like a sequencer takeover.
   */
  constructor(private readonly opts: RemoteSequencerOptions) {
    connect({ servers: opts.url, name: 'oddex-gateway', maxReconnectAttempts: -1, reconnectTimeWait: 250, waitOnFirstConnect: true }).then(
      (nc) => {
        if (this.closed) return void nc.close();
        this.nc = nc;
        void (async () => {
          for await (const s of nc.status()) if (s.type === 'disconnect' || s.type === 'reconnect') opts.log.warn({ nats: s.type }, `NATS ${s.type}`);
        })();
      },
      (err: unknown) => opts.log.warn({ err }, 'NATS connection failed'),
    );
  }

  acknowledged(): number {
    return this.acknowledged_;
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

  async close(): Promise<void> {
    this.closed = true;
    const nc = this.nc;
    if (nc) await nc.drain().catch(() => nc.close());
  }

  /**
   * One request, repeated while no reply comes, within the bound; after an attempt that timed out only if
   * `repeatable` (a reply may have been lost after the request was applied).
   */
  private async request(subject: string, payload: string, what: string, repeatable: boolean): Promise<string> {
    const { attemptTimeoutMs, retryForMs } = this.opts;
    const deadline = Date.now() + retryForMs;
    let backoff = FIRST_BACKOFF_MS;
    let attempts = 0;
    for (;;) {
      attempts++;
      let lastError: unknown;
      try {
        if (!this.nc) throw new Error('not connected to NATS yet');
        const timeout = Math.max(10, Math.min(attemptTimeoutMs, deadline - Date.now()));
        return (await this.nc.request(subject, payload, { timeout })).string();
      } catch (err) {
        lastError = err;
      }
      const why = lastError instanceof Error ? lastError.message : String(lastError);
      if (!repeatable && this.nc && !noResponders(lastError)) {
        throw new ExchangeError('SEQUENCER_UNAVAILABLE', `the sequencer did not answer the ${what} in time (${why}); it may have been applied: check before sending it again`);
      }
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new ExchangeError('SEQUENCER_UNAVAILABLE', `no sequencer answered the ${what} in ${retryForMs} ms (${attempts} attempts; last: ${why}); it may have been applied: retrying it is safe`);
      }
      await new Promise((r) => setTimeout(r, Math.min(backoff, left)));
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    }
  }
}

/** A request no process was subscribed to take (NATS answers at once): sending it again cannot apply it twice. */
function noResponders(err: unknown): boolean {
  const e = err as { isNoResponders?: () => boolean } | undefined;
  return typeof e?.isNoResponders === 'function' && e.isNoResponders();
}
