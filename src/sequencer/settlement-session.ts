// The chain adapter at work in a settlement process (settlement-node.ts) while it holds the settlement lock: fed from
// an engine replica that follows the journal rather than from the sequencer's commits. At its start every fill the
// replica holds pending goes to the chain (the chain takes each once: the EVM adapter finds a fill it settled before
// by its event), and an on-chain escrow is handed what it has not paid; from then on each new command's change
// records hand over its accepted fills, refunds paid and markets reported, as the sequencer's own process does.
import type { Engine } from '../engine/engine.js';
import type { Command } from '../engine/types.js';
import type { Change } from '../engine/changes.js';
import { ChainSubmitter, type ChainSubmitterOptions } from '../chain/chain-submitter.js';
import type { ChainSink, SettlementChain } from '../chain/settlement-chain.js';
import type { ReadModels } from '../store/ports.js';
import { chainReports, handChangesToChain, handReportsToChain, handUnpaidEscrow, submitPendingFills, type ParlayLookup } from './chain-handoff.js';

export interface SettlementSessionDeps {
  /** The replica: the engine in the state the journal gives as far as it was read. */
  engine: () => Engine;
  createChain: (sink: ChainSink, engine: () => Engine) => SettlementChain;
  /** Sends a chain report to the sequencer (as a command). */
  report: (cmd: Command, what: string) => void;
  now: () => number;
  submit: Omit<ChainSubmitterOptions, 'onFailure'>;
  log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  /**
   * For an on-chain escrow: what is unpaid (once the read side covers the replica's position; undefined if `cancelled`
   * says the session ended first), and which markets are parlays'.
   */
  escrow: { unpaid: (cancelled: () => boolean) => Promise<Pick<ReadModels, 'refunds' | 'positionsUnpaidOnChain'> | undefined>; parlays: ParlayLookup };
}

export class SettlementSession {
  readonly chain: ChainSubmitter;
  private stopped = false;

  constructor(private readonly deps: SettlementSessionDeps) {
    this.chain = new ChainSubmitter(deps.createChain(chainReports(deps.report, deps.now), deps.engine), {
      ...deps.submit,
      onFailure: ({ fillHash, attempt, retryInMs, err }) =>
        deps.log.warn({ err, fillHash, attempt, retryInMs }, 'settlement chain did not take a fill; it stays PENDING and is retried'),
    });
  }

  /** Starts the chain and hands it what the replica holds pending. */
  start(): void {
    this.chain.start();
    this.resubmit();
    if (this.chain.paysOnChain) {
      void this.deps.escrow
        .unpaid(() => this.stopped)
        .then((readModels) => (this.stopped || !readModels ? undefined : handUnpaidEscrow(this.chain, readModels, this.deps.escrow.parlays)))
        .catch((err: unknown) => this.deps.log.error({ err }, 'unpaid refunds and positions not handed to the escrow; they are at the next takeover'));
    }
  }

  /** Every pending fill again (after a rebuild of the replica: commands it replayed were not watched). */
  resubmit(): void {
    submitPendingFills(this.chain, this.deps.engine());
  }

  /** A journal command about to apply to the replica: what its change records hand to the chain. */
  watch(cmd: Command, before: Engine): (changes: readonly Change[]) => void {
    // Who holds positions, read before the report settles them: an on-chain escrow pays each of them.
    const bettors = cmd.kind === 'reportMarkets' && this.chain.paysOnChain ? new Map(cmd.reports.map((r) => [r.marketHash, before.bettorsIn(r.marketHash)])) : undefined;
    return (changes) => {
      if (this.stopped) return;
      handChangesToChain(this.chain, this.deps.engine(), changes);
      if (!bettors) return;
      const reported = changes.flatMap((c) => (c.type === 'marketReported' ? [{ marketHash: c.marketHash, outcome: c.outcome, bettors: bettors.get(c.marketHash) ?? [] }] : []));
      handReportsToChain(this.chain, reported, this.deps.escrow.parlays).catch((err: unknown) =>
        this.deps.log.error({ err }, 'reported markets not handed to the escrow; they are at the next takeover'),
      );
    };
  }

  stop(): void {
    this.stopped = true;
    this.chain.stop();
  }
}
