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
   * An address's balances including every write this process saw acknowledged: the engine's own where it runs here,
   * else the read side once it covers those writes.
   */
  balancesAfterWrite(address: string): Promise<BalanceView>;
  /** The live engine where this process runs it; a gateway throws NOT_ON_GATEWAY (its routes answer that). */
  liveEngine(): Engine;
}
