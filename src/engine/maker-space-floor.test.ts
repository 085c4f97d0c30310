// The floor test must agree with the definition it replaces (convert free maker space to taker space and back, more
// than zero) for every odds and space, and most of all right around the floor, where one wei decides.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fillableTakerSpace } from './engine.js';
import { hasTakeableSpace, makerSpaceFloor } from './maker-space-floor.js';
import { ODDS_SCALE } from '../protocol/odds.js';

const byDefinition = (free: bigint, p: bigint) =>
  fillableTakerSpace({ totalBetSize: free, fillAmount: 0n, pendingFillAmount: 0n, percentageOdds: p }) > 0n;
const odds = fc.oneof(
  fc.bigInt({ min: 1n, max: ODDS_SCALE - 1n }),
  // The ladder's odds (multiples of 0.125%) and the extremes of the range.
  fc.integer({ min: 1, max: 799 }).map((step) => (ODDS_SCALE / 800n) * BigInt(step)),
  fc.constantFrom(1n, 2n, ODDS_SCALE / 2n, ODDS_SCALE - 2n, ODDS_SCALE - 1n),
);

describe('makerSpaceFloor', () => {
  it('is the least free maker space that still takes a taker wei, at any odds', () => {
    fc.assert(
      fc.property(odds, (p) => {
        const floor = makerSpaceFloor(p);
        expect(floor >= 1n).toBe(true);
        expect(byDefinition(floor, p)).toBe(true);
        expect(byDefinition(floor - 1n, p)).toBe(false);
      }),
      { numRuns: 5000 },
    );
  });

  it('decides like the definition for any free space, near the floor and far from it, with odds asked in any order', () => {
    const space = (p: bigint) =>
      fc.oneof(fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.bigInt({ min: -3n, max: 3n }).map((d) => makerSpaceFloor(p) + d));
    fc.assert(
      fc.property(
        fc.array(odds.chain((p) => space(p).map((free) => [free, p] as const)), { minLength: 1, maxLength: 20 }),
        (cases) => {
          for (const [free, p] of cases) expect(hasTakeableSpace(free, p)).toBe(free >= 0n && byDefinition(free, p));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('says no at odds outside (0, 100%)', () => {
    expect(hasTakeableSpace(10n ** 30n, 0n)).toBe(false);
    expect(hasTakeableSpace(10n ** 30n, ODDS_SCALE)).toBe(false);
    expect(hasTakeableSpace(10n ** 30n, ODDS_SCALE + 1n)).toBe(false);
  });
});
