// Reporting results: one journaled engine command cancels the markets' orders, pays their trades and, in the same
// commit, sets their catalogue status SETTLED (and suspends quarter-line parents left with one settled leg, and
// finishes a fixture whose result it is). Quarter-line parents follow their legs.
import { ExchangeError } from '../protocol/errors.js';
import type { Catalogue, MarketRecord, Settlement } from './catalogue.js';
import type { FixtureStatusChange, MarketResult } from '../engine/types.js';
import { ACTIVE_FIXTURE_STATUSES, FixtureStatus, type Outcome } from './model.js';
import { outcomeFor, quarterLineOutcome } from './settlement-rules.js';
import { parlayOutcome } from './parlay-rules.js';
import { setFixtureStatus, type CommandSink, type StatusDeps } from './market-status.js';

/**
 * Adds the quarter-line parents the batch completes: a parent whose two legs are both settled (before or in this
 * batch) is settled with the outcome its legs give it. Parents with only one leg settled are returned to suspend,
 * since their fills would land on a settled leg.
 */
export function withQuarterLineParents(
  catalogue: Catalogue,
  batch: Settlement[],
): { settlements: Settlement[]; toSuspend: MarketRecord[] } {
  const inBatch = new Map(batch.map((s) => [s.marketHash, s]));
  const legOutcome = (hash: string): Settlement | undefined => {
    if (inBatch.has(hash)) return inBatch.get(hash);
    const m = catalogue.getMarket(hash);
    return m?.status === 'SETTLED' && m.outcome !== undefined ? { marketHash: hash, outcome: m.outcome } : undefined;
  };
  const events = new Set(batch.map((s) => catalogue.getMarket(s.marketHash)?.exchangeEventId));
  const settlements = [...batch];
  const toSuspend: MarketRecord[] = [];
  for (const eventId of events) {
    for (const parent of catalogue.openMarketsOfEvent(eventId ?? '')) {
      const legs = parent.legMarketHashes;
      if (!legs || inBatch.has(parent.marketHash)) continue;
      if (!legs.some((h) => inBatch.has(h))) continue;
      const [lower, higher] = legs.map(legOutcome);
      if (lower && higher) {
        const scored = inBatch.get(legs[0]) ?? inBatch.get(legs[1])!;
        settlements.push({
          marketHash: parent.marketHash,
          outcome: quarterLineOutcome(lower.outcome, higher.outcome),
          ...scoresOf(scored),
        });
      } else if (parent.status === 'ACTIVE') {
        toSuspend.push(parent);
      }
    }
  }
  return { settlements, toSuspend };
}

/**
 * Adds the parlays the batch completes: a parlay all of whose legs are settled (before or in this batch) is
 * settled by its legs' outcomes (parlay-rules.ts). A parlay with a leg still open waits for it.
 */
export function withParlays(catalogue: Pick<Catalogue, 'getMarket' | 'parlaysWithLegs'>, batch: Settlement[]): Settlement[] {
  const inBatch = new Map(batch.map((s) => [s.marketHash, s.outcome]));
  const outcomeOf = (hash: string): Outcome | undefined => {
    if (inBatch.has(hash)) return inBatch.get(hash);
    const m = catalogue.getMarket(hash);
    return m?.status === 'SETTLED' ? m.outcome : undefined;
  };
  const parlays: Settlement[] = [];
  for (const parlay of catalogue.parlaysWithLegs(inBatch.keys())) {
    if (inBatch.has(parlay.marketHash)) continue;
    const legs = parlay.parlay!.legs;
    const outcomes = legs.map((l) => outcomeOf(l.marketHash));
    if (outcomes.every((o) => o !== undefined)) parlays.push({ marketHash: parlay.marketHash, outcome: parlayOutcome(legs, outcomes) });
  }
  return [...batch, ...parlays];
}

const scoresOf = (s: { teamOneScore?: number; teamTwoScore?: number }) =>
  s.teamOneScore !== undefined && s.teamTwoScore !== undefined ? { teamOneScore: s.teamOneScore, teamTwoScore: s.teamTwoScore } : {};

/** What reporting reaches: the catalogue it reads, the engine it journals the report to, and the clock. */
export interface ReportingDeps extends StatusDeps {
  trading: CommandSink & {
    /** Journals the reports (and, along with them, suspensions and a finished fixture) as one engine command. */
    marketsReported(
      reports: MarketResult[],
      finalScore?: { teamOneScore: number; teamTwoScore: number },
      along?: { suspend?: string[]; finishedFixture?: FixtureStatusChange },
    ): Promise<void>;
  };
}

/**
 * Reports a batch: claim (409 if reported), then one engine command. Its commit sets the catalogue's statuses, so
 * a crash leaves either nothing reported or everything reported, paid and SETTLED.
 */
export async function reportMarkets(deps: ReportingDeps, batch: Settlement[], finishedFixture?: string): Promise<MarketRecord[]> {
  const catalogue = deps.catalogue;
  // Legs settled earlier may be in the store only: loaded for the steps that ask for them.
  const { settlements, toSuspend } = await catalogue.withMarketsLoaded(() => {
    const withParents = withQuarterLineParents(catalogue, batch);
    return { settlements: withParlays(catalogue, withParents.settlements), toSuspend: withParents.toSuspend };
  });
  const hashes = settlements.map((s) => s.marketHash);
  catalogue.beginReporting(hashes);
  try {
    // A batch is one fixture's: the final score, when reported, is the same for all its markets (not for the
    // parlays it completes, which span several fixtures).
    const scored = settlements.find((s) => s.teamOneScore !== undefined && s.teamTwoScore !== undefined);
    const finalScore = scored && { teamOneScore: scored.teamOneScore!, teamTwoScore: scored.teamTwoScore! };
    await deps.trading.marketsReported(
      settlements.map((s) => {
        const isParlay = catalogue.getMarket(s.marketHash)?.parlay !== undefined;
        return { marketHash: s.marketHash, outcome: s.outcome, ...(isParlay ? {} : finalScore) };
      }),
      undefined,
      {
        suspend: toSuspend.filter((m) => m.status === 'ACTIVE').map((m) => m.marketHash),
        ...(finishedFixture ? { finishedFixture: { exchangeEventId: finishedFixture, status: FixtureStatus.FINISHED } } : {}),
      },
    );
    // Read for the reply whatever the settled cache kept of a large batch.
    const settled = await catalogue.marketsFor(hashes);
    return hashes.map((h) => settled.get(h) ?? catalogue.requireMarket(h));
  } finally {
    catalogue.endReporting(hashes);
  }
}

/**
 * Start-up, for data dirs written before the catalogue's status was part of the journal's commit: every market the
 * engine journaled as reported is SETTLED in the catalogue with that result (a crash between the two writes of that
 * time could leave a paid market listed as open).
 */
export async function settleReportedMarkets(
  catalogue: Catalogue,
  reports: readonly (Settlement & { at: number })[],
): Promise<MarketRecord[]> {
  await catalogue.loadMarkets(reports.map((r) => r.marketHash));
  const behind = reports.filter((r) => {
    const m = catalogue.getMarket(r.marketHash);
    return m !== undefined && m.status !== 'SETTLED';
  });
  const settled: MarketRecord[] = [];
  for (const r of behind) settled.push(...(await catalogue.markSettled([r], new Date(r.at).toISOString())));
  return settled;
}

/** POST /admin/markets/:hash/report: one market by hand. Quarter-line parents are settled through their legs. */
export async function reportMarket(
  deps: ReportingDeps,
  marketHash: string,
  outcome: Outcome,
  scores: { teamOneScore?: number; teamTwoScore?: number },
): Promise<MarketRecord[]> {
  await deps.catalogue.loadMarkets([marketHash]);
  const market = deps.catalogue.requireMarket(marketHash);
  if (market.parlay) throw new ExchangeError('PARLAY_SETTLES_FROM_LEGS', 'a parlay settles from its legs: report the leg markets');
  if (market.isQuarterLineMarket) {
    throw new ExchangeError('QUARTER_LINE_PARENT', 'a quarter-line market settles through its legs: report the leg markets or the fixture result');
  }
  // The same report again (an operator retrying after a timeout) is answered with the market as reported; another
  // outcome or score contradicts it (409).
  if (market.status === 'SETTLED' && market.outcome === outcome && sameScores(market, scores)) return [market];
  return reportMarkets(deps, [{ marketHash: market.marketHash, outcome, ...scoresOf(scores) }]);
}

/** Scores given with a repeated report match those reported (none given matches any). */
const sameScores = (reported: MarketRecord, given: { teamOneScore?: number; teamTwoScore?: number }) =>
  (given.teamOneScore === undefined || given.teamOneScore === reported.teamOneScore) &&
  (given.teamTwoScore === undefined || given.teamTwoScore === reported.teamTwoScore);

/**
 * POST /admin/fixtures/:id/result: every unsettled market of the fixture by its type's rule (quarter lines through
 * their legs, each leg on its own line). A fixture still running is marked finished.
 */
export async function reportFixtureResult(
  deps: ReportingDeps,
  exchangeEventId: string,
  teamOneScore: number,
  teamTwoScore: number,
): Promise<MarketRecord[]> {
  const catalogue = deps.catalogue;
  const fixture = catalogue.requireFixture(exchangeEventId);
  const markets = await catalogue.marketsOfEvent(exchangeEventId);
  const open = markets.filter((m) => m.status !== 'SETTLED');
  // A fixture has one final score: markets added after it was reported settle on that score, never on another.
  const reported = markets.find((m) => m.status === 'SETTLED' && m.teamOneScore !== undefined && m.teamTwoScore !== undefined);
  if (reported && (reported.teamOneScore !== teamOneScore || reported.teamTwoScore !== teamTwoScore)) {
    throw new ExchangeError(
      'MARKET_ALREADY_REPORTED',
      `${exchangeEventId} was reported ${reported.teamOneScore}-${reported.teamTwoScore}: a result of ${teamOneScore}-${teamTwoScore} contradicts it`,
    );
  }
  const finished = ACTIVE_FIXTURE_STATUSES.has(fixture.status) ? exchangeEventId : undefined;
  if (markets.length > 0 && open.length === 0) {
    if (!reported) throw new ExchangeError('MARKET_ALREADY_REPORTED', `every market of ${exchangeEventId} is already reported`);
    // The same result again (an operator retrying after a timeout): answered with the markets as reported.
    if (finished) await setFixtureStatus(deps, finished, FixtureStatus.FINISHED);
    return markets;
  }
  const batch = open
    .filter((m) => !m.isQuarterLineMarket)
    .map((m) => ({ marketHash: m.marketHash, outcome: outcomeFor(m, teamOneScore, teamTwoScore), teamOneScore, teamTwoScore }));
  if (batch.length > 0) return reportMarkets(deps, batch, finished);
  if (finished) await setFixtureStatus(deps, finished, FixtureStatus.FINISHED);
  return [];
}
