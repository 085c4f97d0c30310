// NATS request/reply to the sequencer's process, repeated while no sequencer answers: a gateway's commands and
// forwarded routes (command-client.ts) and a settlement process's chain reports (chain-report-sender.ts). It connects
// in the background and reconnects for ever, so a NATS restart is ridden through like a sequencer takeover.
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { ExchangeError } from '../../protocol/errors.js';

const FIRST_BACKOFF_MS = 25;
/**
 * A takeover leaves no sequencer for about half a second: a longer wait between attempts would add to what clients
 * see (with 1 s, a write was answered 1.1-1.6 s after the leader's kill -9). A refused attempt costs NATS one
 * no-responders reply.
 */
const MAX_BACKOFF_MS = 250;

export interface RequestBounds {
  /** How long one attempt waits for a reply, and for how long attempts are repeated. */
  attemptTimeoutMs: number;
  retryForMs: number;
}

export class RetryingRequester {
  /** Undefined until NATS first answers: requests meanwhile are retried within their bound like any other. */
  private nc: NatsConnection | undefined;
  private closed = false;
  /** Whether the connection to NATS is up now (false before it first is, and between a disconnect and a reconnect). */
  private up = false;

  constructor(url: string, name: string, log: { warn(obj: object, msg: string): void }) {
    connect({ servers: url, name, maxReconnectAttempts: -1, reconnectTimeWait: 250, waitOnFirstConnect: true }).then(
      (nc) => {
        if (this.closed) return void nc.close();
        this.nc = nc;
        this.up = true;
        void (async () => {
          for await (const s of nc.status()) {
            if (s.type === 'disconnect' || s.type === 'reconnect') {
              this.up = s.type === 'reconnect';
              log.warn({ nats: s.type }, `NATS ${s.type}`);
            }
          }
        })();
      },
      (err: unknown) => log.warn({ err }, 'NATS connection failed'),
    );
  }

  /**
   * One request, repeated while no reply comes, within the bound; after an attempt that timed out only if
   * `repeatable` (a reply may have been lost after the request was applied). Refused with SEQUENCER_UNAVAILABLE past
   * the bound.
   */
  async request(subject: string, payload: string, what: string, repeatable: boolean, bounds: RequestBounds): Promise<string> {
    const { attemptTimeoutMs, retryForMs } = bounds;
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
      if (left <= 0 || this.closed) {
        throw new ExchangeError('SEQUENCER_UNAVAILABLE', `no sequencer answered the ${what} in ${retryForMs} ms (${attempts} attempts; last: ${why}); it may have been applied: retrying it is safe`);
      }
      await new Promise((r) => setTimeout(r, Math.min(backoff, left)));
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    }
  }

  /** Whether NATS is connected now: without it no request can reach a sequencer. */
  get connected(): boolean {
    return this.up && !this.closed;
  }

  async close(): Promise<void> {
    this.closed = true;
    const nc = this.nc;
    if (nc) await nc.drain().catch(() => nc.close());
  }
}

/** A request no process was subscribed to take (NATS answers at once): sending it again cannot apply it twice. */
function noResponders(err: unknown): boolean {
  const e = err as { isNoResponders?: () => boolean } | undefined;
  return typeof e?.isNoResponders === 'function' && e.isNoResponders();
}
