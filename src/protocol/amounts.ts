// Integer amount math of a fill (DECISIONS.md "Odds and amounts"). All rounding is down.
import { ODDS_SCALE } from './odds.js';

/** Maker space a taker stake consumes at maker odds p: m = s * p / (10^20 - p). */
export const makerSpaceForTakerStake = (takerStake: bigint, makerOdds: bigint): bigint =>
  (takerStake * makerOdds) / (ODDS_SCALE - makerOdds);

/** Taker stake an order can still absorb: (totalBetSize - fillAmount) * (10^20 - p) / p. */
export const remainingTakerSpace = (remainingMakerSpace: bigint, makerOdds: bigint): bigint =>
  (remainingMakerSpace * (ODDS_SCALE - makerOdds)) / makerOdds;


/**
 * Wei to a human-unit decimal string without floating point (e.g. 1500000n, 6 -> "1.5"). Cut from the digits'
 * text rather than by bigint division: listings format several amounts per row.
 */
export function toHumanUnits(wei: bigint, decimals: number): string {
  const negative = wei < 0n;
  const digits = (negative ? -wei : wei).toString();
  const cut = digits.length - decimals;
  const whole = cut > 0 ? digits.slice(0, cut) : '0';
  const frac = cut > 0 ? digits.slice(cut) : '0'.repeat(-cut) + digits;
  let end = frac.length;
  while (end > 0 && frac.charCodeAt(end - 1) === 48 /* '0' */) end--;
  return (negative ? '-' : '') + whole + (end > 0 ? '.' + frac.slice(0, end) : '');
}

/** Human-unit number for fields the spec types as number (betTimeValue, settleValue). */
export const toHumanNumber = (wei: bigint, decimals: number): number => Number(toHumanUnits(wei, decimals));

/** Average taker odds of a fill, weighted by the taker stake matched at each maker's odds (`odds`, 10^20 scale). */
export function weightedTakerOdds(matches: readonly { takerStake: bigint; odds: bigint }[]): bigint {
  let stake = 0n;
  let weighted = 0n;
  for (const m of matches) {
    stake += m.takerStake;
    weighted += m.takerStake * (ODDS_SCALE - m.odds);
  }
  return stake === 0n ? 0n : weighted / stake;
}
