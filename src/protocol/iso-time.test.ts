import { describe, expect, it } from 'vitest';
import { isoTime } from './iso-time.js';

describe('isoTime', () => {
  it('writes what Date#toISOString writes, across days, years and the edges of its fast range', () => {
    const edges = [0, 1, -1, 999, 86_399_999, 86_400_000, -86_400_001, Date.UTC(0, 0, 1), Date.UTC(0, 0, 1) - 1,
      Date.UTC(9999, 11, 31, 23, 59, 59, 999), Date.UTC(9999, 11, 31, 23, 59, 59, 999) + 1, Date.UTC(2024, 1, 29, 12, 0, 0, 5),
      8.64e15 - 70_000, -8.64e15];
    let seed = 12345;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const samples = [...edges, ...Array.from({ length: 20_000 }, () => Math.floor((random() - 0.3) * 5e12))];
    // Neighbours share a day, and times of two fixed days come between them (as a game time and a settle date
    // alternate), so both kept days are hit and replaced.
    for (const ms of samples) {
      for (const near of [ms, 7, ms + 1, 3 * 86_400_000 + 5, ms + 61_001, 9]) expect(isoTime(near)).toBe(new Date(near).toISOString());
    }
  });

  it('throws as Date#toISOString does for a time it cannot write', () => {
    expect(() => isoTime(Number.NaN)).toThrow(RangeError);
    expect(() => isoTime(8.64e15 + 1)).toThrow(RangeError);
  });

  it('writes a fractional millisecond as Date does (truncated)', () => {
    expect(isoTime(1_700_000_000_123.7)).toBe(new Date(1_700_000_000_123.7).toISOString());
  });
});
