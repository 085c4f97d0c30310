// Odds and stake arithmetic for clients (DECISIONS.md "Odds and amounts"): bigint on the 10^20 = 100% scale,
// rounding down like the exchange. Floating point appears only in the human conversions (decimal odds, %).
import { ODDS_SCALE, ladderStep } from '../../../src/protocol/odds.js';
import { makerSpaceForTakerStake, remainingTakerSpace, toHumanUnits } from '../../../src/protocol/amounts.js';

export { ODDS_SCALE, makerSpaceForTakerStake, remainingTakerSpace };

export type Rounding = 'down' | 'up' | 'nearest';

/** Odds moved onto the ladder (step from metadata `oddsLadderStepSize`), kept strictly inside (0, 100%). */
export function roundToLadder(odds: bigint, oddsLadderStepSize: number, rounding: Rounding = 'nearest'): bigint {
  const step = ladderStep(oddsLadderStepSize);
  const below = (odds / step) * step;
  let rounded = below;
  if (below !== odds) {
    if (rounding === 'up') rounded = below + step;
    else if (rounding === 'nearest' && (odds - below) * 2n >= step) rounded = below + step;
  }
  if (rounded <= 0n) return step;
  if (rounded >= ODDS_SCALE) return ((ODDS_SCALE - 1n) / step) * step;
  return rounded;
}

/** Maker odds to the taker's odds on the same fill, and back: the complement. */
export const complementOdds = (odds: bigint): bigint => ODDS_SCALE - odds;
export const takerOddsOf = complementOdds;
export const makerOddsFor = complementOdds;

/** Implied probability as a fraction (0.55 for 55%). */
export const impliedProbability = (odds: bigint): number => Number(odds) / Number(ODDS_SCALE);

/** European decimal odds of a bettor at these percentage odds (50% -> 2.0). */
export function decimalOdds(odds: bigint): number {
  if (odds <= 0n || odds > ODDS_SCALE) throw new RangeError('odds must be in (0, 10^20]');
  return Number(ODDS_SCALE) / Number(odds);
}

/** Percentage odds from a probability fraction (0.55) or decimal odds (`fromDecimalOdds(1.8)`). */
export function oddsFromProbability(probability: number): bigint {
  if (!(probability > 0 && probability < 1)) throw new RangeError('probability must be in (0, 1)');
  return BigInt(Math.round(probability * 1e9)) * 10n ** 11n;
}
export const fromDecimalOdds = (decimal: number): bigint => {
  if (!(decimal > 1)) throw new RangeError('decimal odds must be above 1');
  return oddsFromProbability(1 / decimal);
};

/** Total a winning bettor receives (stake included) for `stake` at `odds`: stake * 10^20 / odds. */
export const payoutFor = (stake: bigint, odds: bigint): bigint => (stake * ODDS_SCALE) / odds;

/** Winnings beyond the stake: payout - stake. */
export const profitFor = (stake: bigint, odds: bigint): bigint => payoutFor(stake, odds) - stake;

/** The stake that pays `payout` in total at `odds` (rounded down). */
export const stakeForPayout = (payout: bigint, odds: bigint): bigint => (payout * odds) / ODDS_SCALE;

/** Worst average taker odds a fill accepts for `desiredOdds` and `oddsSlippage` percent (the server's rule). */
export const worstAcceptedOdds = (desiredOdds: bigint, oddsSlippage: number): bigint =>
  (desiredOdds * BigInt(100 - oddsSlippage)) / 100n;

/** Wei to a human decimal string (1500000n, 6 -> "1.5"), and back with parseUnits. */
export const formatUnits = toHumanUnits;

/** A human decimal amount to wei ("1.5", 6 -> 1500000n); more decimals than the token has is an error. */
export function parseUnits(human: string, decimals: number): bigint {
  const m = /^(-)?(\d*)(?:\.(\d*))?$/.exec(human.trim());
  if (!m || (m[2] === '' && !m[3])) throw new RangeError(`not a decimal amount: "${human}"`);
  const frac = m[3] ?? '';
  if (frac.length > decimals) throw new RangeError(`"${human}" has more than ${decimals} decimals`);
  const wei = BigInt(m[2] || '0') * 10n ** BigInt(decimals) + BigInt(frac.padEnd(decimals, '0') || '0');
  return m[1] ? -wei : wei;
}
