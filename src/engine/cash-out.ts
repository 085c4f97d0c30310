// What cashing out a position takes from the book: the hedge fill that makes the position pay the same whichever
// outcome wins, and what that leaves the bettor. Read only: the walk reserves nothing.
// A position paying P1 on outcome one and P2 on outcome two (P1 > P2, say) is hedged by taking outcome two for a
// return (stake plus the makers' stakes) of P1 - P2; the bettor then pays the hedge stake h now and is owed
// min(P1, P2 + return) whatever the result, so the position is worth that less h. Taken as a cash out, the bettor is
// paid at once what the hedged position is owed in every result, a void included (min(P1, P2 + return, stakes + h)),
// and the rest (if a result pays more) at settlement.
import { makerSpaceForTakerStake } from '../protocol/amounts.js';
import { ODDS_SCALE } from '../protocol/odds.js';
import type { BookSide } from './book.js';
import { DomainError } from './errors.js';
import { FillWalk, matchFill } from './matching.js';
import type { PositionTotals } from './refunds.js';

export interface HedgeQuote {
  isTakerBettingOutcomeOne: boolean;
  /** The hedge fill's taker stake (wei) and the worst taker odds it takes (10^20-scaled): what the bettor signs. */
  stakeWei: bigint;
  desiredOdds: bigint;
  /** What the hedged position is worth now: what it is then owed whatever the result, less the hedge stake (wei). */
  value: bigint;
  /** What a cash out taking this hedge pays at once, before its fee: what the position is then owed in every result. */
  paidNow: bigint;
  /**
   * Only on a partial quote (asked for, and the book covers part of the hedge): the return the hedge still lacks, what
   * the position pays more on one outcome than on the other once this part is cashed out (wei).
   */
  uncovered?: bigint;
}

/** Which side hedges a position, and the return it needs, or undefined when it pays the same either way. */
export function hedgeNeed(p: PositionTotals): { isTakerBettingOutcomeOne: boolean; need: bigint } | undefined {
  const one = p.stakeOne + p.counterOne;
  const two = p.stakeTwo + p.counterTwo;
  if (one === two) return undefined;
  return one > two ? { isTakerBettingOutcomeOne: false, need: one - two } : { isTakerBettingOutcomeOne: true, need: two - one };
}

/**
 * The hedge of `position` against `side` (the makers opposite the hedge's outcome), best prices first as a fill would
 * take them, skipping the bettor's own orders. Refuses when the book cannot return what the hedge needs, unless
 * `partial`: then, when the book returns part of it, the hedge of that part (every level the walk reached, taken
 * whole), with what it leaves `uncovered`. Nothing returned at all is refused either way.
 */
export function quoteHedge(
  position: PositionTotals,
  side: BookSide | undefined,
  bettor: string,
  at: number,
  cashedOut = 0n,
  partial = false,
): HedgeQuote {
  const hedge = hedgeNeed(position);
  if (!hedge) throw new DomainError('NOTHING_TO_CASH_OUT');
  // Every wei staked returns at least itself, so a stake of `need` is more than the hedge can take.
  const walk = matchFill(side, bettor, hedge.need, 1n, at, new FillWalk());
  let need = hedge.need;
  let stake = 0n;
  let returned = 0n;
  let worstMakerOdds = 0n;
  // Whether the book holds all the hedge needs: the walk reached a level with more than that, or needed nothing more.
  let covered = false;
  for (const m of walk.matches) {
    const full = m.takerStake + m.makerStake;
    const takenInPart = full > need;
    // The last level takes only what the return still needs (rounded down: the hedge never overshoots).
    const takerStake = takenInPart ? (need * (ODDS_SCALE - m.odds)) / ODDS_SCALE : m.takerStake;
    const makerStake = takenInPart ? makerSpaceForTakerStake(takerStake, m.odds) : m.makerStake;
    if (takerStake === 0n || makerStake === 0n) {
      // Less than one wei of stake returns at the best price: what is left is rounding (a full cash out leaves up to
      // a wei per level it took), not a position to hedge.
      if (stake === 0n) throw new DomainError('NOTHING_TO_CASH_OUT', `the position pays the same either way to within ${hedge.need} wei`);
      covered = true;
      break;
    }
    stake += takerStake;
    returned += takerStake + makerStake;
    need -= takerStake + makerStake;
    worstMakerOdds = m.odds;
    if (takenInPart || need === 0n) {
      covered = true;
      break;
    }
  }
  // Orders were there to take, yet the whole need bought no maker wei at the best of them (a wei or so left by a full
  // cash out, against maker odds under 50%): rounding as above, not a book short of liquidity.
  if (walk.matches.length === 0 && walk.sawLiquidity) {
    throw new DomainError('NOTHING_TO_CASH_OUT', `the position pays the same either way to within ${hedge.need} wei`);
  }
  // A level taken in part rounds its stake down (the hedge never returns more than the position needs), which leaves
  // up to 1 / (taker odds) wei and another wei of the return unhedged; a level taken whole, a wei (the fill's own
  // rounding). Past those, the book is short of what the hedge needs.
  const short = !covered && need > BigInt(walk.matches.length);
  if (stake === 0n || (short && !partial)) {
    throw new DomainError('INSUFFICIENT_SPACE', `the book returns ${returned} of the ${hedge.need} the hedge needs`);
  }
  const owedOne = position.stakeOne + position.counterOne + (hedge.isTakerBettingOutcomeOne ? returned : 0n);
  const owedTwo = position.stakeTwo + position.counterTwo + (hedge.isTakerBettingOutcomeOne ? 0n : returned);
  // Earlier cash outs of the position paid part of what it is owed already.
  const owed = (owedOne < owedTwo ? owedOne : owedTwo) - cashedOut;
  const onVoid = position.stakeOne + position.stakeTwo + stake - cashedOut;
  const paidNow = owed < onVoid ? owed : onVoid;
  return {
    isTakerBettingOutcomeOne: hedge.isTakerBettingOutcomeOne,
    stakeWei: stake,
    desiredOdds: ODDS_SCALE - worstMakerOdds,
    value: owed - stake,
    paidNow: paidNow > 0n ? paidNow : 0n,
    ...(short ? { uncovered: need } : {}),
  };
}
