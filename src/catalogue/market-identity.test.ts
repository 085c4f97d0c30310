import { describe, expect, it } from 'vitest';
import { keccak256, toBytes } from 'viem';
import { formatLine, isQuarterLine, isQuarterStep, legLines, marketHashOf, outcomeLabels } from './market-identity.js';

describe('market identity', () => {
  it('hashes the identity with keccak256 into 0x + 64 lower hex, the same as viem computes', () => {
    const hash = marketHashOf({ exchangeEventId: 'L7', type: 3, line: -0.75 });
    expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(hash).toBe(keccak256(toBytes('oddex-market-v1|L7|3|-0.75|')));
    expect(marketHashOf({ exchangeEventId: 'L7', type: 1, selection: 'draw' })).toBe(keccak256(toBytes('oddex-market-v1|L7|1||draw')));
  });

  it('gives every part of the identity its own hash, and -0 the same as 0', () => {
    const base = { exchangeEventId: 'L7', type: 3, line: 0 };
    const variants = [base, { ...base, line: 0.5 }, { ...base, type: 342 }, { ...base, exchangeEventId: 'L8' }];
    expect(new Set(variants.map(marketHashOf)).size).toBe(4);
    expect(marketHashOf({ ...base, line: -0 })).toBe(marketHashOf(base));
    expect(formatLine(-0)).toBe('0');
    expect(formatLine(2)).toBe('2');
  });

  it('knows quarter steps and quarter lines and splits them into the nearest whole and half lines', () => {
    expect([0.25, -0.75, 2.25, 1.5, 2, 0.1].map(isQuarterLine)).toEqual([true, true, true, false, false, false]);
    expect([0.25, 1.5, -3, 0.1, Number.NaN].map(isQuarterStep)).toEqual([true, true, true, false, false]);
    expect(legLines(-0.75)).toEqual([-1, -0.5]);
    expect(legLines(-0.25)).toEqual([-0.5, 0]);
    expect(legLines(0.25)).toEqual([0, 0.5]);
    expect(legLines(2.75)).toEqual([2.5, 3]);
    expect(Object.is(legLines(-0.25)[1], 0)).toBe(true);
  });

  it('labels outcomes with the line embedded for spreads and totals', () => {
    expect(outcomeLabels({ type: 3, line: -1.5 }, 'A', 'B')).toEqual({ outcomeOneName: 'A -1.5', outcomeTwoName: 'B +1.5', outcomeVoidName: 'NO_GAME_OR_EVEN' });
    expect(outcomeLabels({ type: 342, line: 0 }, 'A', 'B')).toEqual({ outcomeOneName: 'A 0', outcomeTwoName: 'B 0', outcomeVoidName: 'NO_GAME_OR_EVEN' });
    expect(outcomeLabels({ type: 2, line: 2.25 }, 'A', 'B')).toEqual({ outcomeOneName: 'Over 2.25', outcomeTwoName: 'Under 2.25', outcomeVoidName: 'NO_GAME_OR_EVEN' });
    expect(outcomeLabels({ type: 226 }, 'A', 'B')).toEqual({ outcomeOneName: 'A', outcomeTwoName: 'B', outcomeVoidName: 'NO_CONTEST' });
    expect(outcomeLabels({ type: 1, selection: 'teamTwo' }, 'A', 'B')).toEqual({ outcomeOneName: 'B', outcomeTwoName: 'Not B', outcomeVoidName: 'NO_CONTEST' });
  });
});
