// Where accepted fills go to settle. The chain decides when a fill executes and reports back in journaled commands:
// the local chain by a bare confirmation (the in-process ledger then decides by its balances), an on-chain
// settlement by its blocks' events in log order (wallets moved, fills executed or failed, escrow payouts), which the
// engine's mirror of the wallets follows (see src/engine/wallets/wallets.ts).
import type { ChainEntry, ChainExecution, FillRecord, Outcome, SignedOrderTerms } from '../engine/types.js';
import type { RefundPaid } from '../engine/changes.js';

/** A market the operator reported, with every bettor holding a position in it. */
export interface ReportedMarket {
  marketHash: string;
  outcome: Outcome;
  bettors: string[];
  /** A parlay's market: an on-chain escrow settles it at the parlays' commission rate (else the singles'). */
  parlay?: boolean;
}

/** What a chain reports back; each call becomes one journaled engine command. */
export interface ChainSink {
  /** The fill executed or failed; without `execution` the engine decides by its own ledger (the local chain). */
  executed(fillHash: string, execution?: ChainExecution): void;
  /** These fills were sent to the chain in transaction `txHash`. */
  attempted(fillHashes: string[], txHash: string): void;
  /** What the chain did in its blocks `fromBlock` to `toBlock` (inclusive, the last with hash `toBlockHash`), in log order. */
  events(entries: ChainEntry[], toBlock: number, fromBlock: number, toBlockHash?: string): void;
}
/**
 * What a contract needs to settle a fill: the fill as the engine accepted it (the taker's signed request, its
 * matches) and the signed terms of the orders it matched. Copies the sequencer takes when it hands the fill over,
 * so a chain adapter never reads the engine's state.
 */
export interface FillTerms {
  fill: FillRecord;
  orders: readonly SignedOrderTerms[];
}

export interface SettlementChain {
  /** Whether `submit` needs the fill's terms (a contract verifies them); the in-process ledger does not. */
  readonly needsFillTerms?: boolean;
  /**
   * A fill was accepted at `acceptedAt` (ms); the chain calls back once it has executed. May be async: it
   * resolves once the chain has taken the fill, and throwing or rejecting means "not taken, try again".
   * Must be idempotent per fill hash: a submit that timed out may be repeated while the first still runs.
   * `terms` come with every submit of a chain that needs them.
   */
  submit(fillHash: string, acceptedAt: number, terms?: FillTerms): void | Promise<void>;
  /** Fills the chain has taken but not yet reported on (sent, not mined or not yet seen). */
  readonly inFlight?: number;
  /** Markets were reported: an on-chain escrow records the outcome and pays the bettors. Idempotent. */
  marketsReported?(markets: ReportedMarket[]): void;
  /** Capital-efficiency refunds the engine paid from escrow: an on-chain escrow pays them too. Idempotent. */
  refundsPaid?(refunds: readonly RefundPaid[]): void;
  /** Called once the engine is rebuilt from the journal, before pending fills are resubmitted. */
  start?(): void;
  stop(): void;
}

/** The default chain: in process, every fill executes a fixed delay after it was accepted. */
export class LocalChain implements SettlementChain {
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopped = false;

  constructor(
    private readonly confirmationDelayMs: number,
    private readonly now: () => number,
    private readonly sink: Pick<ChainSink, 'executed'>,
  ) {}

  submit(fillHash: string, acceptedAt: number): void {
    if (this.stopped) return;
    // Wall-clock time can jump back (NTP, a restored VM): a fill accepted "in the future" still waits at most
    // one confirmation delay from now, so no clock change can strand it.
    const wait = Math.min(this.confirmationDelayMs, Math.max(0, acceptedAt + this.confirmationDelayMs - this.now()));
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.sink.executed(fillHash);
    }, wait);
    this.timers.add(timer);
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }
}
