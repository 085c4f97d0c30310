// The figures of one consolidated entry computed from its trades alone (no catalogue): what the listing filters and
// sorts on, and what the wire object shows. Shared by the rendering and by the SQL read model of entries.
import { quarterLineOutcome } from '../engine/quarter-line.js';
import type { Outcome, Trade, TradeStatus } from '../engine/types.js';
import { netReturnWei, settleNetReturnWei } from '../engine/trade-returns.js';
import type { ConsolidatedGroup } from './trade-index.js';
import type { StoredSortField } from './ports.js';

/**
 * The column of rm_consolidated (in either store) each stored sort field orders by exactly; the other sort fields come
 * from the catalogue (see render/consolidated.ts).
 */
export const ENTRY_SORT_COLUMNS = {
  totalStake: 'total_stake',
  totalBetTimeValue: 'total_stake',
  weightedAverageOdds: 'weighted_odds',
  netReturn: 'net_return',
  netReturnBetTimeValue: 'net_return',
  settleNetReturnValue: 'settle_net_return',
  totalReturn: 'total_return',
  outcome: 'outcome',
  bettingOutcome: 'betting_outcome',
  betTime: 'bet_time',
  settleDate: 'settle_date',
} as const satisfies Record<StoredSortField, string>;

export interface EntryFigures {
  trades: Trade[];
  first: Trade;
  settled: boolean;
  status: TradeStatus;
  totalStake: bigint;
  weightedAverageOdds: bigint;
  totalReturn: bigint;
  /** The commission taken on the entry's trades (wei). */
  fee: bigint;
  netReturn: bigint;
  settleNetReturn: bigint;
  outcome: Outcome | undefined;
  settleDate: number | undefined;
  /** Seconds. */
  betTime: number;
  bettingOutcome: 1 | 2;
}

/** Sums and extremes of the entry's trades in one pass: a page renders dozens of entries, so no array per figure. */
export function entryFigures(group: ConsolidatedGroup): EntryFigures {
  const trades: Trade[] = group.kind === 'parent' ? group.legs.flatMap((l) => l.trades) : group.trades;
  const first = trades[0]!;
  let allSettled = true;
  let totalStake = 0n;
  let weightedStake = 0n;
  let totalReturn = 0n;
  let fee = 0n;
  let netReturn = 0n;
  let settleNetReturn = 0n;
  let lastSettleDate = -Infinity;
  let firstBetTime = Infinity;
  for (const t of trades) {
    totalStake += t.stake;
    weightedStake += t.stake * t.odds;
    if (t.settled) {
      totalReturn += t.payout ?? 0n;
      fee += t.fee ?? 0n;
      if (t.settleDate! > lastSettleDate) lastSettleDate = t.settleDate!;
    } else {
      allSettled = false;
    }
    netReturn += netReturnWei(t);
    settleNetReturn += settleNetReturnWei(t);
    if (t.betTime < firstBetTime) firstBetTime = t.betTime;
  }
  const settled = allSettled && (group.kind !== 'parent' || group.legs.length === 2);
  return {
    trades,
    first,
    settled,
    status: first.status,
    totalStake,
    weightedAverageOdds: totalStake === 0n ? 0n : weightedStake / totalStake,
    totalReturn,
    fee,
    netReturn,
    settleNetReturn,
    outcome: settled ? outcomeOf(group, first) : undefined,
    settleDate: settled ? lastSettleDate : undefined,
    betTime: Math.floor(firstBetTime / 1000),
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
