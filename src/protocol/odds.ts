// Percentage odds: bigint on a 10^20 = 100% scale.
export const ODDS_SCALE = 10n ** 20n;

/** The ladder step in odds units: oddsLadderStepSize 125 means 0.125% = 125 * 10^15. */
export const ladderStep = (oddsLadderStepSize: number): bigint => BigInt(oddsLadderStepSize) * 10n ** 15n;

/** Maker odds are valid when strictly between 0 and 100% and on the ladder. */
export function isValidMakerOdds(p: bigint, oddsLadderStepSize: number): boolean {
  return p > 0n && p < ODDS_SCALE && p % ladderStep(oddsLadderStepSize) === 0n;
}
