// Consolidated trades (GET /trades/consolidated, recent_trades_consolidated:global): one entry per fill, bettor and
// market, aggregating that bettor's per-order trades of the fill. A quarter-line bet is three entries: its two legs
// and a synthetic parent on the quarter-line market that sums them.
//
// Units: every amount is in base-token units, exact (no floating point): totalStake and totalReturn (sums of
// `stake` and of settlement payouts), netReturn, crosschainNetReturn, settleNetReturnValue and totalBetTimeValue are
// decimal strings such as "40" or "12.5", netReturnBetTimeValue a number, as netReturn and betTimeValue on /trades;
// weightedAverageOdds stays 10^20-scaled. Returns are 0 until the entry's trades settle.
// Fills still waiting on the chain (PENDING) are not listed: a consolidated trade is SUCCESS or FAILED.
import { keccakText } from '../protocol/keccak.js';
import type { MarketRecord } from '../catalogue/catalogue.js';
import type { Trade, TradeStatus } from '../engine/types.js';
import { toHumanNumber, toHumanUnits } from '../protocol/amounts.js';
import { entryFigures, type EntryFigures } from '../store/consolidated-figures.js';
import { isoTime } from '../protocol/iso-time.js';
import type { ChangedTrades } from '../store/changed-trades.js';
import { TradeIndex, type ConsolidatedGroup } from '../store/trade-index.js';
import { isStoredSortField, type EntryQuery, type ReadModels } from '../store/ports.js';
import type { Static } from '@sinclair/typebox';
import type { ConsolidatedTrade } from '../protocol/wire/trades.js';

type ConsolidatedItem = Static<typeof ConsolidatedTrade>;

/** What entries are rendered with: token decimals, chain version and the catalogue. */
export interface ConsolidatedContext {
  decimals: number;
  chainVersion: string;
  market(marketHash: string): MarketRecord | undefined;
  /**
   * A context whose `market` also answers for these for as long as it is used (a database server's settled markets,
   * read for one rendering step); absent where `market` answers for every market already.
   */
  withMarkets?(marketHashes: Iterable<string>): Promise<ConsolidatedContext>;
}

/** The context `cc` with the markets of these trades found for the step that renders them. */
const forMarkets = (cc: ConsolidatedContext, trades: readonly Trade[]): Promise<ConsolidatedContext> | ConsolidatedContext =>
  cc.withMarkets ? cc.withMarkets(marketsOfTrades(trades)) : cc;

/** The markets trades name: their own and, for quarter-line legs, their parents. */
export function marketsOfTrades(trades: Iterable<Pick<Trade, 'marketHash' | 'quarterLineParentMarketHash'>>): string[] {
  const hashes = new Set<string>();
  for (const t of trades) {
    hashes.add(t.marketHash);
    if (t.quarterLineParentMarketHash) hashes.add(t.quarterLineParentMarketHash);
  }
  return [...hashes];
}

/** What the read side answers about the entries being rendered, read once for a listing's or a publication's trades. */
export interface EntryFacts {
  hasRefunds(marketHash: string, bettor: string): boolean;
  /** A cash out's fill: what its taker was paid at once (before the fee) and the cash-out fee, in wei. */
  cashOutOf(fillHash: string): { amount: bigint; fee: bigint } | undefined;
}

/** The facts of these trades: their refund flags and their fills' cash outs, one read each. */
export async function readEntryFacts(readModels: Pick<ReadModels, 'refunds' | 'fillsOnChain'>, trades: readonly Trade[]): Promise<EntryFacts> {
  const [hasRefunds, onChain] = await Promise.all([readModels.refunds.refundsSeen(trades), readModels.fillsOnChain([...new Set(trades.map((t) => t.fillHash))])]);
  return { hasRefunds, cashOutOf: (fillHash) => onChain(fillHash)?.cashOut };
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
  /** The entry's trades, oldest first (a parent's: both legs'). */
  trades: readonly Trade[];
  /** The wire object; built on demand so a listing only renders its page (and reads the facts of its page only). */
  render(facts: EntryFacts): ConsolidatedItem;
}

/** The synthetic parent's fillHash: keccak256 of the UTF-8 text "quarter:" + fillHash + lower-case bettor. */
export const quarterLineParentFillHash = (fillHash: string, bettor: string): string =>
  keccakText(`quarter:${fillHash}${bettor.toLowerCase()}`);

const gameLabelOf = (market: MarketRecord | undefined) => (market ? `${market.teamOneName} vs ${market.teamTwoName}` : '');
const bettingOutcomeLabelOf = (market: MarketRecord | undefined, first: Trade) =>
  market ? (first.bettingOutcomeOne ? market.outcomeOneName : market.outcomeTwoName) : '';

/**
 * The wire object of one group, from its figures; `marketHasRefunds`: its bettor was refunded on its trades'
 * markets.
 */
function renderEntry(
  group: ConsolidatedGroup,
  f: EntryFigures,
  market: MarketRecord | undefined,
  cc: ConsolidatedContext,
  marketHasRefunds: boolean,
  cashOutOf: EntryFacts['cashOutOf'],
): ConsolidatedItem {
  const { first, settled, totalStake, netReturn } = f;
  const isLeg = group.kind === 'leg';
  const d = cc.decimals;
  const o: ConsolidatedItem = {
    baseToken: first.baseToken,
    bettor: first.bettor,
    marketHash: group.marketHash,
    fillHash: group.kind === 'parent' ? quarterLineParentFillHash(first.fillHash, first.bettor) : first.fillHash,
    fillOrderHash: first.fillHash,
    chainVersion: cc.chainVersion,
    tradeStatus: first.status,
    totalStake: toHumanUnits(totalStake, d),
    totalBetTimeValue: toHumanUnits(totalStake, d),
    weightedAverageOdds: f.weightedAverageOdds.toString(),
    netReturn: toHumanUnits(netReturn, d),
    totalReturn: toHumanUnits(f.totalReturn, d),
    // Oddex settles on one chain: nothing is bridged, so the cross-chain net return is the net return.
    crosschainNetReturn: toHumanUnits(netReturn, d),
    netReturnBetTimeValue: toHumanNumber(netReturn, d),
    settleNetReturnValue: toHumanUnits(f.settleNetReturn, d),
    maker: first.maker,
    settled,
    marketHasRefunds,
    gameLabel: gameLabelOf(market),
    leagueLabel: market?.leagueLabel ?? '',
    bettingOutcomeLabel: bettingOutcomeLabelOf(market, first),
    bettingOutcome: first.bettingOutcomeOne ? 1 : 2,
    exchangeEventId: first.exchangeEventId,
    gameTime: isoTime((market ? market.gameTime : 0) * 1000),
    sportId: market?.sportId ?? 0,
    marketType: market?.type ?? 0,
    betTime: f.betTime,
    quarterLineFillHash: isLeg ? quarterLineParentFillHash(first.fillHash, first.bettor) : null,
    isQuarterLineParent: group.kind === 'parent',
    isQuarterLineLeg: isLeg,
  };
  if (settled) {
    o.outcome = f.outcome;
    o.settleDate = isoTime(f.settleDate!);
    o.fee = toHumanUnits(f.fee, d);
  }
  // The taker's entry of a cash out's fill (its hedge; never a quarter line) shows what the cash out paid, as its trades do.
  const cashOut = first.maker || group.kind === 'parent' ? undefined : cashOutOf(first.fillHash);
  if (cashOut) {
    o.cashOutAmount = toHumanUnits(cashOut.amount, d);
    o.cashOutFee = toHumanUnits(cashOut.fee, d);
  }
  return o;
}

/** Renders one group (a plain or leg group, or a quarter-line parent) as a consolidated entry. */
export function consolidatedEntry(group: ConsolidatedGroup, cc: ConsolidatedContext): ConsolidatedEntry {
  const f = entryFigures(group);
  const { trades, first, settled, totalStake, weightedAverageOdds, totalReturn, netReturn, settleNetReturn, outcome, settleDate, betTime } = f;
  const market = cc.market(group.marketHash);
  const isLeg = group.kind === 'leg';
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
      gameLabel: gameLabelOf(market),
      bettingOutcome: first.bettingOutcomeOne ? 1 : 2,
      gameTime: market ? market.gameTime : 0,
      leagueLabel: market?.leagueLabel ?? '',
      bettingOutcomeLabel: bettingOutcomeLabelOf(market, first),
      betTime,
      settleDate,
      totalReturn,
    },
    trades,
    render: (facts) => renderEntry(group, f, market, cc, trades.some((t) => facts.hasRefunds(t.marketHash, t.bettor)), facts.cashOutOf),
  };
}

/** Filters of a consolidated listing: the read side's entry query. */
export type ConsolidatedFilter = EntryQuery;

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

/**
 * Matching entries, sorted, and one page of them. Sorts on the entry's own figures are paged in SQL and render only
 * the page; sorts on catalogue labels and game time group the matching trades here.
 */
export async function listConsolidated(
  readModels: Pick<ReadModels, 'entries' | 'tradesOf' | 'refunds' | 'fillsOnChain'>,
  cc: ConsolidatedContext,
  f: ConsolidatedFilter,
  sort: { sortBy: ConsolidatedSortField; ascending: boolean },
  page: { page: number; perPage: number },
): Promise<{ trades: ConsolidatedItem[]; count: number }> {
  if (!isStoredSortField(sort.sortBy)) return listConsolidatedInMemory(readModels, cc, f, sort, page);
  const { entries, count, cashOutOf: pageCashOuts } = await readModels.entries.page(f, sort.sortBy, sort.ascending, page.page * page.perPage, page.perPage);
  // The page query read each entry's trades and refund flag (and, on a database server, their fills' cash outs):
  // render straight from them and the page's cash outs.
  let cashOutOf = pageCashOuts;
  if (!cashOutOf) {
    const onChain = await readModels.fillsOnChain([...new Set(entries.flatMap((e) => e.trades.map((t) => t.fillHash)))]);
    cashOutOf = (fillHash: string) => onChain(fillHash)?.cashOut;
  }
  const rendering = await forMarkets(cc, entries.flatMap((e) => e.trades));
  const trades: ConsolidatedItem[] = [];
  for (const e of entries) {
    const group = new TradeIndex(e.trades).groups().find((g) => g.kind === e.kind && g.marketHash === e.marketHash);
    if (group) trades.push(renderEntry(group, entryFigures(group), rendering.market(group.marketHash), rendering, e.refunded, cashOutOf));
  }
  return { trades, count };
}

/** The same listing computed from the matching trades (sorts the SQL table cannot order by). */
export async function listConsolidatedInMemory(
  readModels: Pick<ReadModels, 'tradesOf' | 'refunds' | 'fillsOnChain'>,
  cc: ConsolidatedContext,
  f: ConsolidatedFilter,
  sort: { sortBy: ConsolidatedSortField; ascending: boolean },
  page: { page: number; perPage: number },
): Promise<{ trades: ConsolidatedItem[]; count: number }> {
  // Pre-filter on the group before rendering (a group's status and side are its first trade's); pending fills are not listed.
  // A group is settled when all its trades are: unsettled groups sit in fills with an unsettled trade, settled ones
  // in fills with a settled trade, so only those fills are read.
  const all = await readModels.tradesOf(f.bettor, { settled: f.settled });
  const matching = matchingEntries(all, await forMarkets(cc, all), f);
  sortEntries(matching, sort.sortBy, sort.ascending);
  const start = page.page * page.perPage;
  const shown = matching.slice(start, start + page.perPage);
  const facts = await readEntryFacts(readModels, shown.flatMap((e) => e.trades));
  return { trades: shown.map((e) => e.render(facts)), count: matching.length };
}

/** The entries of these trades (whole fills) that a listing with filter `f` shows, in creation order. */
export function matchingEntries(trades: readonly Trade[], cc: ConsolidatedContext, f: ConsolidatedFilter): ConsolidatedEntry[] {
  const candidates = new TradeIndex(trades).groups(f.bettor).filter((g) => {
    const t = g.kind === 'parent' ? g.legs[0]!.trades[0]! : g.trades[0]!;
    return t.status !== 'PENDING' && (f.maker === undefined || t.maker === f.maker);
  });
  return candidates.map((g) => consolidatedEntry(g, cc)).filter((e) => matchesFilter(e, f));
}

/**
 * Entries to publish after a commit: those holding a changed trade (and their quarter-line parents), plus, for a
 * bettor whose first refund in a market was just paid, their entries on that market (marketHasRefunds flipped).
 * Later refunds change no entry, so nothing else is republished. Pending entries are left out, as on the REST listing.
 */
export async function changedConsolidated(
  readModels: Pick<ReadModels, 'tradesOfFill' | 'tradesOfBettorIn' | 'refunds' | 'fillsOnChain'>,
  cc: ConsolidatedContext,
  changedTrades: readonly Trade[],
  firstRefunds: readonly { bettor: string; marketHash: string }[],
  changed?: ChangedTrades,
): Promise<ConsolidatedItem[]> {
  // A fill's trades share its status, and so do its entries: a pending trade's entries are not listed, and reading
  // its fill's trades would be for nothing.
  const listed = changedTrades.filter((t) => t.status !== 'PENDING');
  const refunded = (await Promise.all(firstRefunds.map(({ bettor, marketHash }) => readModels.tradesOfBettorIn(bettor, marketHash)))).flat();
  const byFill = new Map<string, TradeIndex>();
  const fillTrades: Trade[] = [];
  const read = [...new Set([...listed, ...refunded].map((t) => t.fillHash))].map(async (fillHash) => {
    const trades = changed?.tradesOfFill(fillHash) ?? (await readModels.tradesOfFill(fillHash));
    fillTrades.push(...trades);
    byFill.set(fillHash, new TradeIndex(trades));
  });
  await Promise.all(read);
  const withMarkets = await forMarkets(cc, fillTrades); // what the entries render with
  // Creation order: by the group's first trade, a quarter-line parent before its legs (lower line first).
  const entries = new Map<string, { order: number; entry: ConsolidatedEntry }>();
  const add = (g: ConsolidatedGroup) => {
    const trades = g.kind === 'parent' ? g.legs.flatMap((l) => l.trades) : g.trades;
    const first = trades[0]!;
    const key = `${first.fillHash}|${g.kind}|${g.marketHash}|${first.bettor.toLowerCase()}`;
    if (entries.has(key)) return;
    const rank = g.kind === 'parent' ? 0 : g.kind === 'leg' && g.parent?.legs[1] === g ? 2 : 1;
    const minId = Math.min(...trades.map((t) => Number(t.id)));
    entries.set(key, { order: minId * 4 + rank, entry: consolidatedEntry(g, withMarkets) });
  };
  for (const t of [...listed, ...refunded]) for (const g of byFill.get(t.fillHash)!.groupsOfTrade(t)) add(g);
  const shown = [...entries.values()]
    .sort((a, b) => a.order - b.order)
    .map((e) => e.entry)
    .filter((e) => e.tradeStatus !== 'PENDING');
  const facts = await readEntryFacts(readModels, shown.flatMap((e) => e.trades));
  // A cash out executed in this group is in its change records, which the read models may not show yet.
  const cashOutOf = (fillHash: string) => changed?.fillOnChain(fillHash)?.cashOut ?? facts.cashOutOf(fillHash);
  return shown.map((e) => e.render({ hasRefunds: facts.hasRefunds, cashOutOf }));
}
