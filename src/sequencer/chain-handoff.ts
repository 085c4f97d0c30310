// What passes between the engine and the settlement chain, wherever the chain adapter runs: in the sequencer's
// process (sequencer.ts) or in a settlement process following the journal (settlement-node.ts). Fills accepted go to
// the chain with the terms a contract verifies; refunds paid from escrow and markets reported go to an on-chain escrow;
// the chain's reports come back as the engine's commands.
import type { Catalogue } from '../catalogue/catalogue.js';
import { isParlayMarket } from '../catalogue/model.js';
import type { ChainSubmitter } from '../chain/chain-submitter.js';
import type { ChainSink, FillTerms, ReportedMarket } from '../chain/settlement-chain.js';
import type { Change, RefundPaid } from '../engine/changes.js';
import type { Engine } from '../engine/engine.js';
import type { Command } from '../engine/types.js';
import type { ReadModels } from '../store/ports.js';

/** A chain's reports as the engine's commands, each handed to `run` (which journals it) with what it is, for logs. */
export function chainReports(run: (cmd: Command, what: string) => void, now: () => number): ChainSink {
  return {
    executed: (fillHash, chain) => run({ kind: 'confirmFill', at: now(), fillHash, ...(chain ? { chain } : {}) }, `execution of fill ${fillHash}`),
    attempted: (fillHashes, txHash) => run({ kind: 'fillAttempt', at: now(), fillHashes, txHash }, `chain transaction ${txHash}`),
    events: (entries, toBlock, fromBlock, toBlockHash) =>
      run({ kind: 'chainEvents', at: now(), fromBlock, toBlock, ...(toBlockHash ? { toBlockHash } : {}), entries }, `chain events of blocks ${fromBlock}-${toBlock}`),
  };
}

/**
 * What a contract needs to settle a pending fill, copied from the engine now (right after the commit that accepted
 * it, or at start-up): the chain adapter never reads the engine. Only for a chain that needs them.
 */
export function fillTermsOf(chain: ChainSubmitter, engine: Engine, fillHash: string): FillTerms | undefined {
  if (!chain.needsFillTerms) return undefined;
  const fill = engine.pendingFill(fillHash);
  // A pending fill keeps its orders in the engine (an order leaves only once no fill on it is pending).
  return fill && { fill, orders: fill.matches.flatMap((m) => engine.order(m.orderHash) ?? []) };
}

/** Every fill the engine holds pending, to the chain (at start, or a takeover: the chain takes each once). */
export function submitPendingFills(chain: ChainSubmitter, engine: Engine): void {
  for (const fill of engine.pendingFills()) chain.submit(fill.fillHash, fill.acceptedAt, fillTermsOf(chain, engine, fill.fillHash));
}

/** Right after a command applied: its accepted fills go to the chain, and refunds paid from escrow are paid on chain too. */
export function handChangesToChain(chain: ChainSubmitter, engine: Engine, changes: readonly Change[]): void {
  const refunds: RefundPaid[] = [];
  for (const c of changes) {
    if (c.type === 'fillAccepted') chain.submit(c.fillHash, c.acceptedAt, fillTermsOf(chain, engine, c.fillHash));
    else if (c.type === 'refundPaid') refunds.push(c.refund);
  }
  chain.refundsPaid(refunds);
}

/** Which of these markets are parlays' (lower-case hashes): an on-chain escrow settles them at the parlays' rate. */
export type ParlayLookup = (marketHashes: readonly string[]) => Promise<ReadonlySet<string>>;

/** Parlays as the catalogue knows them (settled ones read for the step from a database server's catalogue). */
export function catalogueParlays(catalogue: Pick<Catalogue, 'marketsFor'>): ParlayLookup {
  return async (marketHashes) => {
    const known = await catalogue.marketsFor(marketHashes);
    return new Set([...known].filter(([, market]) => isParlayMarket(market)).map(([hash]) => hash));
  };
}

/** Markets reported, with their bettors, to an on-chain escrow (which records each outcome once and pays each bettor once). */
export async function handReportsToChain(chain: ChainSubmitter, reports: readonly Omit<ReportedMarket, 'parlay'>[], parlays: ParlayLookup): Promise<void> {
  if (!chain.paysOnChain || reports.length === 0) return;
  const parlay = await parlays(reports.map((m) => m.marketHash));
  chain.marketsReported(reports.map((m) => ({ ...m, parlay: parlay.has(m.marketHash.toLowerCase()) })));
}

/**
 * What an on-chain escrow has not reported paying yet, handed again (it pays each once): bounded by what is unpaid,
 * not by history. The read side says what is unpaid: it must cover the journal as far as the caller's engine does.
 */
export async function handUnpaidEscrow(chain: ChainSubmitter, readModels: Pick<ReadModels, 'refunds' | 'positionsUnpaidOnChain'>, parlays: ParlayLookup): Promise<void> {
  if (!chain.paysOnChain) return;
  chain.refundsPaid(await readModels.refunds.refundsUnpaidOnChain());
  await handReportsToChain(chain, await readModels.positionsUnpaidOnChain(), parlays);
}
