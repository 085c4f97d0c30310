// The matching walk, pure: given one side of a book and a taker's request, which resting orders match and for how
// much. It changes nothing; the engine applies the matches it returns.
// Invariants:
// - Price-time priority: levels best odds for the taker first (lowest maker odds), and within a level the oldest
//   order first (book.ts keeps that order); an order is skipped only when it cannot match (inactive, expired, the
//   taker's own, or dust).
// - The dust rule: an order whose free space matches no maker wei is not liquidity, and the walk stops once what is
//   left of the taker's stake buys no maker wei.
// - Slippage bounds the stake-weighted average taker odds of the whole fill, not each match: orders worse than the
//   bound fill only as far as the better ones before them keep the average at or above it.
// - No crossed book: makers on opposite outcomes whose odds sum past 100% never rest together (see crossesBook).
import { makerSpaceForTakerStake, remainingTakerSpace } from '../protocol/amounts.js';
import { ODDS_SCALE } from '../protocol/odds.js';
import type { BookSide } from './book.js';
import { hasTakeableSpace } from './maker-space-floor.js';
import { freeMakerSpace, holdsBookPlace, isExpired, isTakeable } from './order-space.js';
import { MatchRecord } from './records.js';
import type { Order } from './types.js';

/**
 * Where a walk writes its result: the engine keeps one and reuses its arrays, so a fill allocates only its records.
 * `matches[i]` matched `orders[i]`.
 */
export class FillWalk {
  readonly matches: MatchRecord[] = [];
  readonly orders: Order[] = [];
  /** The taker stake left unmatched. */
  remaining = 0n;
  /** Whether any order could have matched but for the slippage bound. */
  sawLiquidity = false;

  reset(stakeWei: bigint): void {
    this.matches.length = 0;
    this.orders.length = 0;
    this.remaining = stakeWei;
    this.sawLiquidity = false;
  }
}

/**
 * Walks `side` (the makers opposite the taker's outcome) for `taker`'s stake, into `out`, so that the stake-weighted
 * average taker odds of the matches stay at least `minTakerOdds` (desired odds less slippage). Arguments, not a
 * request object: this runs once per fill.
 */
export function matchFill(side: BookSide | undefined, taker: string, stakeWei: bigint, minTakerOdds: bigint, at: number, out: FillWalk): FillWalk {
  out.reset(stakeWei);
  // Σ takerStake × (takerOdds − minTakerOdds) over the matches so far: what orders worse than the bound may still
  // use up. The average is at least the bound exactly while this is not negative.
  let surplus = 0n;
  // Walked by index (no iterator objects), best level first.
  for (let i = 0; side !== undefined && i < side.levelCount; i++) {
    for (const o of side.ordersAt(i)) {
      // An INACTIVE order has no fillable space (its status says so without the bigint arithmetic).
      if (o.status !== 'ACTIVE' || o.maker === taker || isExpired(o, at)) continue;
      const free = freeMakerSpace(o);
      if (!hasTakeableSpace(free, o.percentageOdds)) continue;
      const takerSpace = remainingTakerSpace(free, o.percentageOdds);
      out.sawLiquidity = true;
      const margin = ODDS_SCALE - o.percentageOdds - minTakerOdds;
      let takerStake = out.remaining < takerSpace ? out.remaining : takerSpace;
      if (margin < 0n) {
        // Worse than the bound: only as much as the better matches before it make up for. Sorted best first, so
        // once that runs out, every later order is worse still.
        const affordable = surplus / -margin;
        if (affordable < takerStake) takerStake = affordable;
        if (takerStake === 0n) return out;
      }
      const makerStake = makerSpaceForTakerStake(takerStake, o.percentageOdds);
      // What is left of the taker's stake is dust that buys no maker wei: the fill is done.
      if (makerStake === 0n) return out;
      out.matches.push(new MatchRecord(o.orderHash, o.maker, makerStake, takerStake, o.percentageOdds));
      out.orders.push(o);
      out.remaining -= takerStake;
      surplus += takerStake * margin;
      if (out.remaining === 0n) return out;
    }
  }
  return out;
}

/** Lowest maker odds with free space on a side (the best price for a taker), or undefined. */
export function bestMakerOdds(side: BookSide | undefined, at: number): bigint | undefined {
  for (let i = 0; side !== undefined && i < side.levelCount; i++) {
    for (const o of side.ordersAt(i)) if (isTakeable(o, at)) return o.percentageOdds;
  }
  return undefined;
}

/**
 * Highest maker odds on a side among orders holding a book place (free space, or space held by pending fills): the
 * side's most aggressive maker, as far as crossing goes.
 */
export function highestMakerOdds(side: BookSide | undefined, at: number, skip?: ReadonlySet<string>): bigint | undefined {
  // Walked by index, worst level and newest order first: no iterator objects on the posting path.
  for (let i = (side?.levelCount ?? 0) - 1; side !== undefined && i >= 0; i--) {
    const orders = side.ordersAt(i);
    for (let j = orders.length - 1; j >= 0; j--) {
      const o = orders[j]!;
      if (holdsBookPlace(o, at) && (skip === undefined || !skip.has(o.orderHash))) return o.percentageOdds;
    }
  }
  return undefined;
}

/** Whether a maker at `percentageOdds` would cross the opposite side: the two odds would sum past 100%. */
export function crossesBook(opposite: BookSide | undefined, percentageOdds: bigint, at: number): boolean {
  return wouldCross(highestMakerOdds(opposite, at), percentageOdds);
}

/** Whether a maker at `percentageOdds` would cross an opposite side whose most aggressive maker is at `highest`. */
export const wouldCross = (highest: bigint | undefined, percentageOdds: bigint): boolean => highest !== undefined && highest + percentageOdds > ODDS_SCALE;
