// The command port: what the HTTP routes ask of the single writer. In one process it is the Sequencer itself
// (a call); a gateway process reaches the sequencer process over NATS (nats/command-client.ts). Routes depend on
// this, never on the Sequencer class, so they answer the same whichever side of the wire the engine is.
import type { BalanceView, Command, ResultOf } from '../engine/types.js';
import type { Engine } from '../engine/engine.js';

export interface SequencerPort {
  /** Applies a command; resolves with its typed result once it is durable, or rejects with the engine's error. */
  submit<C extends Command>(cmd: C): Promise<ResultOf<C>>;
  /**
   * The journal position of the newest write this process saw acknowledged: the `Oddex-Position` of a write's reply,
   * and what this process's reads wait for (read-your-writes).
   */
  acknowledged(): number;
  /**
   * A journal position at or past every write acknowledged anywhere before the call (by this process or another
   * gateway): what an account's reads wait for, so they see its writes whichever gateway took them.
   */
  latestPosition(): Promise<number>;
  /**
   * An address's balances including every write this process saw acknowledged: the engine's own where it runs here,
   * else the read side once it covers those writes.
   */
  balancesAfterWrite(address: string): Promise<BalanceView>;
  /** The live engine where this process runs it; a gateway throws NOT_ON_GATEWAY (its routes answer that). */
  liveEngine(): Engine;
}

/**
 * An HTTP request a gateway cannot answer itself (the operator routes, a parlay request, best odds and cash-out
 * quotes: the sequencer's catalogue writes and live state), as it hands it to the sequencer's process.
 */
export interface ForwardedRequest {
  method: string;
  /** Path and query string. */
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** The client's address (the sequencer's rate limits and logs see the client, not the gateway). */
  remoteAddress: string;
}

/**
 * The header the sequencer's process injects a forwarded request with, set to a secret of its own (so no client can
 * send it): the gateway counted the request against the client's rate limits already.
 */
export const FORWARDED_MARK = 'x-oddex-forwarded';

/** The sequencer process's reply, sent on by the gateway as it came. */
export interface ForwardedReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A gateway's way to the sequencer's process for the routes it forwards. */
export interface RouteForwarder {
  forward(request: ForwardedRequest): Promise<ForwardedReply>;
}
