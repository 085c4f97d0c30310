// Main line of spread and total markets: within one event+type group, the line whose best outcome-one
// odds are closest to 50%. Recomputed from best-odds changes; the catalogue stores the flag and announces
// the move on the bus (`mainLine`), which the feeds publish on main_line:global.
import type { FastifyBaseLogger } from 'fastify';
import type { BestOddsItem, EventBus } from '../events.js';
import { LINE_TYPES } from '../catalogue/model.js';

/** 10^20 = 100%. */
const HALF = 50_000_000_000_000_000_000n;
const ONE = 2n * HALF;

/** What main-line tracking needs from the catalogue. */
export interface MainLineCatalogue {
  getMarket(marketHash: string): LineMarket | undefined;
  openMarketsOfEvent(exchangeEventId: string): readonly LineMarket[];
  setMainLine(marketHash: string): Promise<unknown>;
}

export interface LineMarket {
  marketHash: string;
  exchangeEventId: string;
  type: number;
  status: string;
  line?: number;
  mainLine?: boolean;
  isQuarterLineMarket: boolean;
}

/** Best maker odds per side of one market (absent side: no open orders). */
export interface BestSides {
  one?: bigint;
  two?: bigint;
}

/**
 * Implied probability of outcome one: the best maker odds on outcome one, else the complement of the
 * best maker odds on outcome two (what a taker pays for outcome one). Undefined for an empty book.
 */
export function outcomeOneOdds(sides: BestSides | undefined): bigint | undefined {
  if (sides?.one !== undefined) return sides.one;
  if (sides?.two !== undefined) return ONE - sides.two;
  return undefined;
}

const distance = (p: bigint) => (p > HALF ? p - HALF : HALF - p);

/**
 * The market of the group whose outcome-one odds are closest to 50%. On a tie the current main line
 * stays (no flapping), else the lower line wins. The current main line also stays while its book is empty: a maker
 * replacing its quotes (cancel, then post) empties it for a moment, which says nothing of where the line is. Undefined
 * when no market of the group has odds and none is the main line.
 */
export function chooseMainLine(group: readonly LineMarket[], odds: (marketHash: string) => bigint | undefined): LineMarket | undefined {
  let best: { market: LineMarket; d: bigint } | undefined;
  for (const market of group) {
    const p = odds(market.marketHash);
    if (p === undefined && market.mainLine) return market;
    if (p === undefined) continue;
    const d = distance(p);
    const better =
      !best ||
      d < best.d ||
      (d === best.d && !best.market.mainLine && (market.mainLine === true || (market.line ?? 0) < (best.market.line ?? 0)));
    if (better) best = { market, d };
  }
  return best?.market;
}

/** Follows `bestOdds` and moves main lines; returns the function that stops it. */
export function trackMainLines(bus: EventBus, catalogue: MainLineCatalogue, log: FastifyBaseLogger): () => void {
  const sides = new Map<string, BestSides>();

  const onBestOdds = (entries: readonly BestOddsItem[]) => {
    const groups = new Map<string, LineMarket>();
    for (const e of entries) {
      if (typeof e.marketHash !== 'string') continue;
      const market = catalogue.getMarket(e.marketHash);
      if (!market || !LINE_TYPES.has(market.type)) continue;
      const s = sides.get(market.marketHash) ?? {};
      const odds = typeof e.percentageOdds === 'string' ? BigInt(e.percentageOdds) : undefined;
      if (e.isMakerBettingOutcomeOne === true) s.one = odds;
      else s.two = odds;
      sides.set(market.marketHash, s);
      groups.set(`${market.exchangeEventId}\u0000${market.type}`, market);
    }
    for (const market of groups.values()) {
      const group = catalogue
        .openMarketsOfEvent(market.exchangeEventId)
        .filter((m) => m.type === market.type && m.status === 'ACTIVE' && !m.isQuarterLineMarket);
      const main = chooseMainLine(group, (h) => outcomeOneOdds(sides.get(h)));
      if (!main || main.mainLine) continue;
      catalogue.setMainLine(main.marketHash).catch((err: unknown) => log.error({ err, marketHash: main.marketHash }, 'main line update failed'));
    }
  };

  bus.on('bestOdds', onBestOdds);
  return () => bus.off('bestOdds', onBestOdds);
}
