// A market's maker orders as offers to bettors: what each can still take, and the order the exchange fills them in.
import type { Order } from './api/types';
import { ODDS_SCALE } from './format';

/** Taker stake an order can still take: its unfilled maker size at the complementary odds. */
export function takerSpace(o: Order): bigint {
  const p = o.percentageOdds;
  const free = o.totalBetSize - o.fillAmount - o.pendingFillAmount;
  return free > 0n ? (free * (ODDS_SCALE - p)) / p : 0n;
}

/** Offers for backing an outcome in the order the exchange fills them: lowest maker odds first, oldest first within a price. */
export function offersFor(orders: Iterable<Order>, outcomeOne: boolean): Order[] {
  return [...orders]
    .filter((o) => o.isMakerBettingOutcomeOne !== outcomeOne)
    .sort((a, b) => {
      const d = a.percentageOdds - b.percentageOdds;
      return d !== 0n ? (d < 0n ? -1 : 1) : Date.parse(a.createdAt) - Date.parse(b.createdAt);
    });
}

/** What a bet of some stake would get from the offers in sight: the exchange's matching walk, done in the page. */
export interface FillEstimate {
  /** The part of the stake the offers take. */
  covered: bigint;
  /** What the covered stake returns if it wins, stake included: each offer's pot (taker stake plus maker stake). */
  payout: bigint;
  /** Taker odds of the covered stake, weighted by the stake taken at each offer (10^20 scale); 0 when none. */
  averageOdds: bigint;
  /** The slippage bound, not the offers' space, left part of the stake uncovered. */
  limitedBySlippage: boolean;
}

/**
 * Walks `offers` (in fill order, offersFor) for `stake` as the exchange does (DECISIONS.md "Odds and amounts"): each
 * offer takes what its space allows, its maker stake rounded down, and offers worse than `minTakerOdds` only as far
 * as the better ones before them keep the stake-weighted average at or above it.
 */
export function estimateFill(offers: readonly Order[], stake: bigint, minTakerOdds: bigint): FillEstimate {
  let remaining = stake;
  let payout = 0n;
  let weighted = 0n;
  // Σ takerStake × (takerOdds − minTakerOdds): what offers worse than the bound may still use up.
  let surplus = 0n;
  let limitedBySlippage = false;
  for (const o of offers) {
    if (remaining === 0n) break;
    const space = takerSpace(o);
    if (space === 0n) continue;
    const odds = ODDS_SCALE - o.percentageOdds;
    const margin = odds - minTakerOdds;
    let take = remaining < space ? remaining : space;
    if (margin < 0n) {
      const affordable = surplus / -margin;
      if (affordable < take) {
        take = affordable;
        limitedBySlippage = true;
      }
    }
    const makerStake = (take * o.percentageOdds) / odds;
    if (makerStake === 0n) break;
    payout += take + makerStake;
    weighted += take * odds;
    surplus += take * margin;
    remaining -= take;
    if (limitedBySlippage) break;
  }
  const covered = stake - remaining;
  return { covered, payout, averageOdds: covered === 0n ? 0n : weighted / covered, limitedBySlippage: limitedBySlippage && remaining > 0n };
}
