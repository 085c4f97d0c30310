import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { splitSettlementCredit } from './settlement-credit.js';

describe('splitSettlementCredit', () => {
  it('returns the payouts unchanged without refunds', () => {
    expect(splitSettlementCredit([40n, 0n, 7n], 0n)).toEqual([40n, 0n, 7n]);
  });

  it('splits pro rata to payout, leftover wei to the largest remainders, ties to the earlier trade', () => {
    // credit 10 - 3 = 7 over payouts 5, 5: 3.5 each; the one leftover wei goes to the first.
    expect(splitSettlementCredit([5n, 5n], 3n)).toEqual([4n, 3n]);
    // credit 9 over 2, 3, 5 (total 10): 1.8, 2.7, 4.5 -> 1, 2, 4 plus 2 wei to remainders .8 and .7.
    expect(splitSettlementCredit([2n, 3n, 5n], 1n)).toEqual([2n, 3n, 4n]);
    // Hedged out completely: nothing is left to credit.
    expect(splitSettlementCredit([40n, 0n], 40n)).toEqual([0n, 0n]);
    expect(splitSettlementCredit([0n, 0n], 0n)).toEqual([0n, 0n]);
  });

  it('refuses refunds above the payouts (settlement would have to take money back)', () => {
    expect(() => splitSettlementCredit([5n], 6n)).toThrow();
  });

  it('always adds up to payouts less refunds, each share within [0, payout]', () => {
    fc.assert(
      fc.property(fc.array(fc.bigInt({ min: 0n, max: 10n ** 12n }), { minLength: 1, maxLength: 12 }), fc.double({ min: 0, max: 1, noNaN: true }), (payouts, f) => {
        const total = payouts.reduce((s, p) => s + p, 0n);
        const refunded = (total * BigInt(Math.floor(f * 1_000_000))) / 1_000_000n;
        const shares = splitSettlementCredit(payouts, refunded);
        expect(shares.reduce((s, x) => s + x, 0n)).toBe(total - refunded);
        shares.forEach((s, i) => {
          expect(s >= 0n && s <= payouts[i]!).toBe(true);
        });
      }),
    );
  });
});
