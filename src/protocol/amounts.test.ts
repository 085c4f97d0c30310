import { describe, expect, it } from 'vitest';
import { toHumanNumber, toHumanUnits } from './amounts.js';

/** The definition: whole units by division, the remainder as a fraction without trailing zeros. */
function byDivision(wei: bigint, decimals: number): string {
  const abs = wei < 0n ? -wei : wei;
  const base = 10n ** BigInt(decimals);
  const frac = (abs % base).toString().padStart(decimals, '0').replace(/0+$/, '');
  return `${wei < 0n ? '-' : ''}${abs / base}${frac ? '.' + frac : ''}`;
}

describe('toHumanUnits', () => {
  it('formats exact examples', () => {
    expect(toHumanUnits(1_500_000n, 6)).toBe('1.5');
    expect(toHumanUnits(0n, 6)).toBe('0');
    expect(toHumanUnits(1n, 6)).toBe('0.000001');
    expect(toHumanUnits(-2_000_000n, 6)).toBe('-2');
    expect(toHumanUnits(-10n, 6)).toBe('-0.00001');
    expect(toHumanUnits(123n, 0)).toBe('123');
    expect(toHumanUnits(10n ** 30n + 5n, 18)).toBe('1000000000000.000000000000000005');
    expect(toHumanNumber(12_500_000n, 6)).toBe(12.5);
  });

  it('equals the division definition for amounts of every length and sign', () => {
    let x = 7n;
    for (let i = 0; i < 3000; i++) {
      x = (x * 6364136223846793005n + 1442695040888963407n) % 2n ** 96n;
      const wei = (x >> BigInt(i % 90)) * (i % 3 === 0 ? -1n : 1n);
      for (const decimals of [0, 1, 6, 18]) expect(toHumanUnits(wei, decimals)).toBe(byDivision(wei, decimals));
    }
  });
});
