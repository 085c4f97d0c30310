import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { outcomeFor, quarterLineOutcome } from './settlement-rules.js';
import { legLines } from './market-identity.js';

describe('outcomeFor', () => {
  it.each([3, 342])('spread type %i: team one plus the line against team two, equal is a push', (type) => {
    expect(outcomeFor({ type, line: -1.5 }, 2, 0)).toBe(1);
    expect(outcomeFor({ type, line: -1.5 }, 1, 0)).toBe(2);
    expect(outcomeFor({ type, line: -1 }, 1, 0)).toBe(0);
    expect(outcomeFor({ type, line: 1 }, 0, 1)).toBe(0);
    expect(outcomeFor({ type, line: 0.5 }, 0, 0)).toBe(1);
    expect(outcomeFor({ type, line: 0 }, 3, 3)).toBe(0);
    expect(outcomeFor({ type, line: 6.5 }, 100, 107)).toBe(2);
  });

  it('totals: over the line is outcome one, under is two, equal is a push', () => {
    expect(outcomeFor({ type: 2, line: 2.5 }, 2, 1)).toBe(1);
    expect(outcomeFor({ type: 2, line: 2.5 }, 1, 1)).toBe(2);
    expect(outcomeFor({ type: 2, line: 3 }, 2, 1)).toBe(0);
    expect(outcomeFor({ type: 2, line: 215.5 }, 110, 106)).toBe(1);
  });

  it('moneyline 52: the higher score wins, a draw is void', () => {
    expect(outcomeFor({ type: 52 }, 3, 2)).toBe(1);
    expect(outcomeFor({ type: 52 }, 2, 3)).toBe(2);
    expect(outcomeFor({ type: 52 }, 2, 2)).toBe(0);
  });

  it('226 counts overtime: the reported score includes it, so the overtime winner wins', () => {
    // 2-2 after regulation, team two scores in overtime: reported 2-3.
    expect(outcomeFor({ type: 226 }, 2, 3)).toBe(2);
    expect(outcomeFor({ type: 226 }, 4, 3)).toBe(1);
    expect(outcomeFor({ type: 226 }, 1, 1)).toBe(0);
  });

  it('1X2 binary markets: outcome one when the selected result happened, else outcome two, never void', () => {
    const cases: [number, number, [number, number, number]][] = [
      [2, 1, [1, 2, 2]],
      [1, 1, [2, 1, 2]],
      [0, 3, [2, 2, 1]],
    ];
    for (const [one, two, [teamOne, draw, teamTwo]] of cases) {
      expect(outcomeFor({ type: 1, selection: 'teamOne' }, one, two)).toBe(teamOne);
      expect(outcomeFor({ type: 1, selection: 'draw' }, one, two)).toBe(draw);
      expect(outcomeFor({ type: 1, selection: 'teamTwo' }, one, two)).toBe(teamTwo);
    }
  });

  it('refuses a line type without a line and an unknown type', () => {
    expect(() => outcomeFor({ type: 3 }, 1, 0)).toThrow('needs a line');
    expect(() => outcomeFor({ type: 99 }, 1, 0)).toThrow('no settlement rule');
  });
});

describe('quarterLineOutcome', () => {
  it('agreeing legs decide, a pushed leg defers to the other, contradicting legs void', () => {
    expect(quarterLineOutcome(1, 1)).toBe(1);
    expect(quarterLineOutcome(2, 2)).toBe(2);
    expect(quarterLineOutcome(0, 0)).toBe(0);
    expect(quarterLineOutcome(0, 1)).toBe(1);
    expect(quarterLineOutcome(2, 0)).toBe(2);
    expect(quarterLineOutcome(1, 2)).toBe(0);
  });

  it('-0.75 on a one-goal win: the -1.0 leg pushes, the -0.5 leg wins, the parent shows outcome one', () => {
    const [lower, higher] = legLines(-0.75);
    expect([lower, higher]).toEqual([-1, -0.5]);
    const lowerOutcome = outcomeFor({ type: 3, line: lower }, 1, 0);
    const higherOutcome = outcomeFor({ type: 3, line: higher }, 1, 0);
    expect([lowerOutcome, higherOutcome]).toEqual([0, 1]);
    expect(quarterLineOutcome(lowerOutcome, higherOutcome)).toBe(1);
  });

  it('real scores never make the legs of a quarter line contradict each other', () => {
    fc.assert(
      fc.property(fc.integer({ min: -20, max: 20 }), fc.constantFrom(0.25, 0.75), fc.nat(30), fc.nat(30), fc.boolean(), (k, q, a, b, spread) => {
        const type = spread ? 3 : 2;
        const [lo, hi] = legLines(spread ? k + q : Math.abs(k) + q);
        const o = [outcomeFor({ type, line: lo }, a, b), outcomeFor({ type, line: hi }, a, b)];
        expect(o.includes(1) && o.includes(2)).toBe(false);
      }),
    );
  });
});
