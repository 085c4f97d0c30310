// Consolidated trades (GET /trades/consolidated, recent_trades_consolidated:global): one entry per fill, bettor and
// market, aggregating that bettor's per-order trades of the fill. A quarter-line bet is three entries: its two legs
// and a synthetic parent on the quarter-line market that sums them.
//
// Units: every amount is in base-token units, exact (no floating point): totalStake and totalReturn (sums of
// `stake` and of settlement payouts), netReturn, crosschainNetReturn, settleNetReturnValue and totalBetTimeValue are
// decimal strings such as "40" or "12.5", netReturnBetTimeValue a number, as netReturn and betTimeValue on /trades;
// weightedAverageOdds stays 10^20-scaled. Returns are 0 until the entry's trades settle.
// Fills still waiting on the chain (PENDING) are not listed: a consolidated trade is SUCCESS or FAILED.
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import type { AppContext } from '../context.js';
import type { MarketRecord } from '../catalogue/catalogue.js';
import { quarterLineOutcome } from '../catalogue/settlement-rules.js';
import type { EngineEvents, Outcome, Trade, TradeStatus } from '../engine/types.js';
import type { Engine } from '../engine/engine.js';
import { toHumanNumber, toHumanUnits } from '../protocol/amounts.js';
import { netReturnWei } from './render.js';
import { settlementViewOf, type SettlementView } from './settlement-credit.js';
import type { ConsolidatedGroup, TradeIndex } from './trade-index.js';

export interface ConsolidatedContext {
  decimals: number;
  chainVersion: string;
  market(marketHash: string): MarketRecord | undefined;
  settlement: SettlementView;
}

/** What the exchange renders entries with: token decimals, chain version, catalogue and refunds. */
export function consolidatedContextOf(ctx: AppContext): ConsolidatedContext {
  return {
    decimals: ctx.config.baseTokenDecimals,
    chainVersion: ctx.config.chainVersion,
    market: (hash) => ctx.catalogue.getMarket(hash),
    settlement: settlementViewOf(ctx.trading.engine),
  };
}

export const CONSOLIDATED_SORT_FIELDS = [
  'totalStake',
  'totalBetTimeValue',
  'weightedAverageOdds',
  'netReturn',
  'netReturnBetTimeValue',
  'settleNetReturnValue',
  'outcome',
  'gameLabel',
  'bettingOutcome',
  'gameTime',
  'leagueLabel',
  'bettingOutcomeLabel',
  'betTime',
  'settleDate',
  'totalReturn',
] as const;
export type ConsolidatedSortField = (typeof CONSOLIDATED_SORT_FIELDS)[number];

/** An entry with the typed values it is filtered and sorted on, and its wire object. */
export interface ConsolidatedEntry {
  seq: number;
  bettor: string;
  maker: boolean;
  marketHash: string;
  /** Legs and parents: the quarter-line market. */
  quarterLineMarketHash?: string;
  exchangeEventId: string;
  tradeStatus: TradeStatus;
  settled: boolean;
  isQuarterLineParent: boolean;
  isQuarterLineLeg: boolean;
  sortKeys: Record<ConsolidatedSortField, bigint | number | string | undefined>;
  /** The wire object; built on demand so a listing only renders its page. */
  render(): Record<string, unknown>;
}

/** The synthetic parent's fillHash: keccak256 of the UTF-8 text "quarter:" + fillHash + lower-case bettor. */
export const quarterLineParentFillHash = (fillHash: string, bettor: string): string =>
  '0x' + bytesToHex(keccak_256(utf8ToBytes(`quarter:${fillHash}${bettor.toLowerCase()}`)));

const sum = (xs: readonly bigint[]) => xs.reduce((s, x) => s + x, 0n);
const iso = (ms: number) => new Date(ms).toISOString();

/** Renders one group (a plain or leg group, or a quarter-line parent) as a consolidated entry. */
export function consolidatedEntry(group: ConsolidatedGroup, cc: ConsolidatedContext): ConsolidatedEntry {
  const trades: Trade[] = group.kind === 'parent' ? group.legs.flatMap((l) => l.trades) : group.trades;
  const first = trades[0]!;
  const settled = trades.every((t) => t.settled) && (group.kind !== 'parent' || group.legs.length === 2);
  const totalStake = sum(trades.map((t) => t.stake));
  const weightedAverageOdds = totalStake === 0n ? 0n : sum(trades.map((t) => t.stake * t.odds)) / totalStake;
  const totalReturn = sum(trades.map((t) => (t.settled ? (t.payout ?? 0n) : 0n)));
  const netReturn = sum(trades.map(netReturnWei));
  const settleNetReturn = sum(trades.map((t) => cc.settlement.settleNetReturnWei(t)));
  const outcome = settled ? outcomeOf(group, first) : undefined;
  const settleDate = settled ? Math.max(...trades.map((t) => t.settleDate!)) : undefined;
  const betTime = Math.floor(Math.min(...trades.map((t) => t.betTime)) / 1000);
  const market = cc.market(group.marketHash);
  const gameLabel = market ? `${market.teamOneName} vs ${market.teamTwoName}` : '';
  const bettingOutcomeLabel = market ? (first.bettingOutcomeOne ? market.outcomeOneName : market.outcomeTwoName) : '';
  const gameTime = market ? market.gameTime : 0;
  const isLeg = group.kind === 'leg';
  const d = cc.decimals;

  const render = (): Record<string, unknown> => ({
    baseToken: first.baseToken,
    bettor: first.bettor,
    marketHash: group.marketHash,
    fillHash: group.kind === 'parent' ? quarterLineParentFillHash(first.fillHash, first.bettor) : first.fillHash,
    fillOrderHash: first.fillHash,
    chainVersion: cc.chainVersion,
    tradeStatus: first.status,
    totalStake: toHumanUnits(totalStake, d),
    totalBetTimeValue: toHumanUnits(totalStake, d),
    weightedAverageOdds: weightedAverageOdds.toString(),
    netReturn: toHumanUnits(netReturn, d),
    totalReturn: toHumanUnits(totalReturn, d),
    // Oddex settles on one chain: nothing is bridged, so the cross-chain net return is the net return.
    crosschainNetReturn: toHumanUnits(netReturn, d),
    netReturnBetTimeValue: toHumanNumber(netReturn, d),
    settleNetReturnValue: toHumanUnits(settleNetReturn, d),
    maker: first.maker,
    settled,
    marketHasRefunds: trades.some((t) => cc.settlement.hasRefunds(t.marketHash, t.bettor)),
    gameLabel,
    leagueLabel: market?.leagueLabel ?? '',
    bettingOutcomeLabel,
    bettingOutcome: first.bettingOutcomeOne ? 1 : 2,
    exchangeEventId: first.exchangeEventId,
    gameTime: iso(gameTime * 1000),
    sportId: market?.sportId ?? 0,
    marketType: market?.type ?? 0,
    betTime,
    quarterLineFillHash: isLeg ? quarterLineParentFillHash(first.fillHash, first.bettor) : null,
    isQuarterLineParent: group.kind === 'parent',
    isQuarterLineLeg: isLeg,
    ...(settled ? { outcome, settleDate: iso(settleDate!) } : {}),
  });
  return {
    seq: group.seq,
    bettor: first.bettor,
    maker: first.maker,
    marketHash: group.marketHash,
    ...(first.quarterLineParentMarketHash ? { quarterLineMarketHash: first.quarterLineParentMarketHash } : {}),
    exchangeEventId: first.exchangeEventId,
    tradeStatus: first.status,
    settled,
    isQuarterLineParent: group.kind === 'parent',
    isQuarterLineLeg: isLeg,
    sortKeys: {
      totalStake,
      totalBetTimeValue: totalStake,
      weightedAverageOdds,
      netReturn,
      netReturnBetTimeValue: netReturn,
      settleNetReturnValue: settleNetReturn,
      outcome,
      gameLabel,
      bettingOutcome: first.bettingOutcomeOne ? 1 : 2,
      gameTime,
      leagueLabel: market?.leagueLabel ?? '',
      bettingOutcomeLabel,
      betTime,
      settleDate,
      totalReturn,
    },
    render,
  };
}

/** A parent's outcome is its legs' combined result (a half win or half loss counts as that side). */
function outcomeOf(group: ConsolidatedGroup, first: Trade): Outcome {
  if (group.kind !== 'parent') return first.outcome ?? 0;
  const [lower, higher] = group.legs.map((l) => l.trades[0]!.outcome ?? 0);
  return quarterLineOutcome(lower!, higher!);
}

export interface ConsolidatedFilter {
  bettor?: string;
  settled: boolean;
  maker?: boolean;
  exchangeEventId?: string;
  tradeStatus?: 'SUCCESS' | 'FAILED';
  /** Matches the entry's market, and for a quarter-line market also its legs. */
  marketHash?: string;
  hideQuarterLineParents?: boolean;
  hideQuarterLineLegs?: boolean;
}

export function matchesFilter(e: ConsolidatedEntry, f: ConsolidatedFilter): boolean {
  return (
    e.settled === f.settled &&
    (f.bettor === undefined || e.bettor.toLowerCase() === f.bettor.toLowerCase()) &&
    (f.maker === undefined || e.maker === f.maker) &&
    (f.exchangeEventId === undefined || e.exchangeEventId === f.exchangeEventId) &&
    (f.tradeStatus === undefined || e.tradeStatus === f.tradeStatus) &&
    (f.marketHash === undefined || e.marketHash === f.marketHash || e.quarterLineMarketHash === f.marketHash) &&
    !(f.hideQuarterLineParents && e.isQuarterLineParent) &&
    !(f.hideQuarterLineLegs && e.isQuarterLineLeg)
  );
}

function compareValues(a: bigint | number | string | undefined, b: bigint | number | string | undefined): number {
  if (a === b) return 0;
  if (a === undefined) return -1; // unsettled entries have no outcome or settleDate: they sort lowest
  if (b === undefined) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Sorts in place by one field; ties keep creation order (in the same direction). */
export function sortEntries(entries: ConsolidatedEntry[], sortBy: ConsolidatedSortField, ascending: boolean): ConsolidatedEntry[] {
  const dir = ascending ? 1 : -1;
  return entries.sort((a, b) => (compareValues(a.sortKeys[sortBy], b.sortKeys[sortBy]) || a.seq - b.seq) * dir);
}

/** Matching entries, sorted, and one page of them. */
export function listConsolidated(
  index: TradeIndex,
  cc: ConsolidatedContext,
  f: ConsolidatedFilter,
  sort: { sortBy: ConsolidatedSortField; ascending: boolean },
  page: { page: number; perPage: number },
): { trades: Record<string, unknown>[]; count: number } {
  // Pre-filter on the group before rendering (a group's status and side are its first trade's); pending fills are not listed.
  const candidates = index.groups(f.bettor).filter((g) => {
    const t = g.kind === 'parent' ? g.legs[0]!.trades[0]! : g.trades[0]!;
    return t.status !== 'PENDING' && (f.maker === undefined || t.maker === f.maker);
  });
  const matching = candidates.map((g) => consolidatedEntry(g, cc)).filter((e) => matchesFilter(e, f));
  sortEntries(matching, sort.sortBy, sort.ascending);
  const start = page.page * page.perPage;
  return { trades: matching.slice(start, start + page.perPage).map((e) => e.render()), count: matching.length };
}

/**
 * Entries to publish after a commit: those holding a changed trade (and their quarter-line parents), plus, for a
 * bettor who got refunds, every entry of theirs on the refunded markets (their marketHasRefunds may have flipped).
 * Pending entries are left out, as on the REST listing.
 */
export function changedConsolidated(engine: Engine, index: TradeIndex, cc: ConsolidatedContext, events: EngineEvents): Record<string, unknown>[] {
  const groups = new Set<ConsolidatedGroup>();
  const refundedMarkets = new Map<string, Set<string>>();
  for (const id of events.trades) {
    const t = engine.tradesById.get(id);
    if (!t) continue;
    for (const g of index.groupsOfTrade(t)) groups.add(g);
    if (events.refunds.has(t.bettor)) {
      const markets = refundedMarkets.get(t.bettor) ?? new Set<string>();
      refundedMarkets.set(t.bettor, markets.add(t.marketHash));
    }
  }
  for (const [bettor, markets] of refundedMarkets) {
    for (const g of index.groups(bettor)) {
      const legMarkets = g.kind === 'parent' ? g.legs.map((l) => l.marketHash) : [g.marketHash];
      if (legMarkets.some((m) => markets.has(m))) groups.add(g);
    }
  }
  return [...groups]
    .sort((a, b) => a.seq - b.seq)
    .map((g) => consolidatedEntry(g, cc))
    .filter((e) => e.tradeStatus !== 'PENDING')
    .map((e) => e.render());
}
