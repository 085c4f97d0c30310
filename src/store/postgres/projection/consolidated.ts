// Consolidated entries (rm_consolidated) rewritten from a fill's trades whenever a change record touches one of them,
// as the SQLite read model does (src/store/sqlite/consolidated-entries.ts): each entry's latest row of the batch is
// kept here and written once by flush.ts, with the listing totals it changes (from each entry's old and new row).
import type { Change } from '../../../engine/changes.js';
import type { Trade } from '../../../engine/types.js';
import { TradeIndex } from '../../trade-index.js';
import { ChangedTrades } from '../../changed-trades.js';
import { entryFigures, entryOrder } from '../../consolidated-figures.js';
import { tradeOfState } from '../trade-state.js';
import type { BatchRows } from './batch.js';

export interface EntryRecord {
  fill_hash: string;
  bettor: string;
  market_hash: string;
  kind: string;
  quarter_market_hash: string | null;
  exchange_event_id: string;
  maker: boolean;
  status: string;
  settled: boolean;
  ord: number;
  bet_time: number;
  settle_date: number | null;
  outcome: number | null;
  betting_outcome: number;
  total_stake: bigint;
  weighted_odds: bigint;
  net_return: bigint;
  settle_net_return: bigint;
  total_return: bigint;
}

export class ConsolidatedRewrites {
  /** The batch's latest row of each entry it touched, by its key. */
  readonly entries = new Map<string, EntryRecord>();

  constructor(private readonly batch: BatchRows) {}

  /**
   * Rewrites the entries of every fill whose trades changed status or settled, and of `settledFills` (fills whose
   * trades settled as part of a position). Entries of fills still pending on chain are not listed.
   */
  apply(changes: readonly Change[], settledFills?: ReadonlySet<string>): void {
    let fills: Set<string> | undefined = settledFills && new Set(settledFills);
    let changed: ChangedTrades | undefined;
    for (const c of changes) {
      if (c.type !== 'tradeStatusChanged' && c.type !== 'tradeSettled') continue;
      changed ??= new ChangedTrades(changes);
      const fillHash =
        c.type === 'tradeStatusChanged' ? c.trade.fillHash : (changed.trade(c.tradeId)?.fillHash ?? this.batch.trades.get(Number(c.tradeId))?.fillHash);
      if (fillHash !== undefined) (fills ??= new Set()).add(fillHash);
    }
    for (const fillHash of fills ?? []) this.rewriteFill(fillHash, changed?.tradesOfFill(fillHash));
  }

  /** `known`: the fill's trades as the command left them, when its change records describe them all. */
  private rewriteFill(fillHash: string, known?: Trade[]): void {
    const trades = known ?? this.batch.tradesOfFill(fillHash).map(tradeOfState);
    for (const g of new TradeIndex(trades).groups()) {
      const f = entryFigures(g);
      if (f.status === 'PENDING') continue;
      const bettor = f.first.bettor.toLowerCase();
      this.entries.set(`${fillHash}|${bettor}|${g.marketHash}|${g.kind}`, {
        fill_hash: fillHash,
        bettor,
        market_hash: g.marketHash,
        kind: g.kind,
        quarter_market_hash: f.first.quarterLineParentMarketHash ?? null,
        exchange_event_id: f.first.exchangeEventId,
        maker: f.first.maker,
        status: f.status,
        settled: f.settled,
        ord: entryOrder(g),
        bet_time: f.betTime,
        settle_date: f.settleDate ?? null,
        outcome: f.outcome ?? null,
        betting_outcome: f.bettingOutcome,
        total_stake: f.totalStake,
        weighted_odds: f.weightedAverageOdds,
        net_return: f.netReturn,
        settle_net_return: f.settleNetReturn,
        total_return: f.totalReturn,
      });
    }
  }
}
