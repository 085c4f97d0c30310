import { describe, expect, it } from 'vitest';
import {
  decimalOdds,
  formatUnits,
  fromDecimalOdds,
  impliedProbability,
  makerOddsFor,
  oddsFromProbability,
  parseUnits,
  payoutFor,
  profitFor,
  roundToLadder,
  stakeForPayout,
  takerOddsOf,
  worstAcceptedOdds,
} from './odds.js';

const E18 = 10n ** 18n;
const STEP = 125; // 0.125%

describe('odds helpers', () => {
  it('rounds onto the ladder down, up and to the nearest step, staying inside (0, 100%)', () => {
    const p = 52_060_000_000_000_000_000n; // 52.06%
    expect(roundToLadder(p, STEP, 'down')).toBe(52n * E18);
    expect(roundToLadder(p, STEP, 'up')).toBe(52_125n * 10n ** 15n);
    expect(roundToLadder(p, STEP)).toBe(52n * E18); // 0.06 is below half a step (0.0625)
    expect(roundToLadder(52_0625n * 10n ** 14n, STEP)).toBe(52_125n * 10n ** 15n); // exactly half rounds up
    expect(roundToLadder(50n * E18, STEP, 'up')).toBe(50n * E18);
    expect(roundToLadder(1n, STEP, 'down')).toBe(125n * 10n ** 15n);
    expect(roundToLadder(100n * E18, STEP)).toBe(99_875n * 10n ** 15n);
  });

  it('converts maker and taker odds, implied and decimal odds', () => {
    expect(takerOddsOf(55n * E18)).toBe(45n * E18);
    expect(makerOddsFor(45n * E18)).toBe(55n * E18);
    expect(impliedProbability(55n * E18)).toBe(0.55);
    expect(decimalOdds(50n * E18)).toBe(2);
    expect(decimalOdds(40n * E18)).toBe(2.5);
    expect(oddsFromProbability(0.55)).toBe(55n * E18);
    expect(fromDecimalOdds(2.5)).toBe(40n * E18);
    expect(() => decimalOdds(0n)).toThrow(RangeError);
    expect(() => oddsFromProbability(1)).toThrow(RangeError);
  });

  it('computes payouts and stakes in exact wei, rounding down like the exchange', () => {
    expect(payoutFor(9_000_000n, 45n * E18)).toBe(20_000_000n);
    expect(profitFor(9_000_000n, 45n * E18)).toBe(11_000_000n);
    expect(payoutFor(10n, 30n * E18)).toBe(33n); // 33.33 rounded down
    expect(stakeForPayout(20_000_000n, 45n * E18)).toBe(9_000_000n);
    expect(worstAcceptedOdds(45n * E18, 10)).toBe(405n * 10n ** 17n);
  });

  it('formats and parses base-token units', () => {
    expect(formatUnits(1_500_000n, 6)).toBe('1.5');
    expect(formatUnits(-3_333_334n, 6)).toBe('-3.333334');
    expect(parseUnits('12.5', 6)).toBe(12_500_000n);
    expect(parseUnits('.5', 6)).toBe(500_000n);
    expect(parseUnits('-1', 6)).toBe(-1_000_000n);
    expect(() => parseUnits('1.0000001', 6)).toThrow(/decimals/);
    expect(() => parseUnits('abc', 6)).toThrow(RangeError);
  });
});
