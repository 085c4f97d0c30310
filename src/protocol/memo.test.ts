import { describe, expect, it } from 'vitest';
import { boundedMemo } from './memo.js';

describe('boundedMemo', () => {
  it('computes each key once while it is remembered', () => {
    const calls: number[] = [];
    const square = boundedMemo((n: number) => (calls.push(n), n * n), 10);
    expect([square(3), square(3), square(4), square(3)]).toEqual([9, 9, 16, 9]);
    expect(calls).toEqual([3, 4]);
  });

  it('starts over when full, so it never holds more than maxEntries', () => {
    const calls: number[] = [];
    const id = boundedMemo((n: number) => (calls.push(n), n), 2);
    id(1);
    id(2);
    id(1); // remembered
    id(3); // full: cleared, then 3 is stored
    id(1); // forgotten: computed again
    expect(calls).toEqual([1, 2, 3, 1]);
  });

  it('uses keyOf to identify arguments', () => {
    const calls: string[] = [];
    const byName = boundedMemo((p: { name: string; n: number }) => (calls.push(p.name), p.n), 10, (p) => p.name);
    expect(byName({ name: 'a', n: 1 })).toBe(1);
    expect(byName({ name: 'a', n: 2 })).toBe(1);
    expect(calls).toEqual(['a']);
  });

  it('does not remember a computation that threw', () => {
    let fail = true;
    const f = boundedMemo((n: number) => {
      if (fail) throw new Error('no');
      return n;
    }, 10);
    expect(() => f(1)).toThrow('no');
    fail = false;
    expect(f(1)).toBe(1);
  });
});
