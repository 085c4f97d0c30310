// The figures of one consolidated entry computed from its trades alone (no catalogue): what the listing filters and
// sorts on, and what the wire object shows. Shared by the rendering and by the SQL read model of entries.
import { quarterLineOutcome } from '../catalogue/settlement-rules.js';
import type { Outcome, Trade, TradeStatus } from '../engine/types.js';
import { netReturnWei, settleNetReturnWei } from './render.js';
import type { ConsolidatedGroup } from './trade-index.js';

export interface EntryFigures {
  trades: Trade[];
  first: Trade;
  settled: boolean;
  status: TradeStatus;
  totalStake: bigint;
  weightedAverageOdds: bigint;
  totalReturn: bigint;
  netReturn: bigint;
  settleNetReturn: bigint;
  outcome: Outcome | undefined;
  settleDate: number | undefined;
  /** Seconds. */
  betTime: number;
  bettingOutcome: 1 | 2;
}

const sum = (xs: readonly bigint[]) => xs.reduce((s, x) => s + x, 0n);

export function entryFigures(group: ConsolidatedGroup): EntryFigures {
  const trades: Trade[] = group.kind === 'parent' ? group.legs.flatMap((l) => l.trades) : group.trades;
  const first = trades[0]!;
  const settled = trades.every((t) => t.settled) && (group.kind !== 'parent' || group.legs.length === 2);
  const totalStake = sum(trades.map((t) => t.stake));
  return {
    trades,
    first,
    settled,
    status: first.status,
    totalStake,
    weightedAverageOdds: totalStake === 0n ? 0n : sum(trades.map((t) => t.stake * t.odds)) / totalStake,
    totalReturn: sum(trades.map((t) => (t.settled ? (t.payout ?? 0n) : 0n))),
    netReturn: sum(trades.map(netReturnWei)),
    settleNetReturn: sum(trades.map(settleNetReturnWei)),
    outcome: settled ? outcomeOf(group, first) : undefined,
    settleDate: settled ? Math.max(...trades.map((t) => t.settleDate!)) : undefined,
    betTime: Math.floor(Math.min(...trades.map((t) => t.betTime)) / 1000),
    bettingOutcome: first.bettingOutcomeOne ? 1 : 2,
  };
}

/** A parent's outcome is its legs' combined result (a half win or half loss counts as that side). */
function outcomeOf(group: ConsolidatedGroup, first: Trade): Outcome {
  if (group.kind !== 'parent') return first.outcome ?? 0;
  const [lower, higher] = group.legs.map((l) => l.trades[0]!.outcome ?? 0);
  return quarterLineOutcome(lower!, higher!);
}

/**
 * Creation order of entries: by the entry's first trade, a quarter-line parent just before its first leg. Equal to
 * the order a TradeIndex creates groups in when fed trades oldest first.
 */
export function entryOrder(group: ConsolidatedGroup): number {
  const trades = group.kind === 'parent' ? group.legs.flatMap((l) => l.trades) : group.trades;
  const firstId = Math.min(...trades.map((t) => Number(t.id)));
  return firstId * 2 + (group.kind === 'parent' ? 0 : 1);
}
