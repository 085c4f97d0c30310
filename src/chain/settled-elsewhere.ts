// The chain of a sequencer whose process leaves the settlement role to a settlement process of its own: it hands
// nothing over (that process follows the journal and learns every accepted fill from it) and reports nothing (that
// process's reports come back as commands over NATS). What it still answers is the backlog the sequencer refuses
// fills past (CHAIN_BACKLOG): every fill the engine holds pending, wherever its settlement stands, which is exactly
// what waits for the chain whether or not a settlement process runs.
import type { SettlementChain } from './settlement-chain.js';

export class SettledElsewhere implements SettlementChain {
  constructor(private readonly pendingFills: () => number) {}

  get inFlight(): number {
    return this.pendingFills();
  }

  submit(): void {}

  stop(): void {}
}
