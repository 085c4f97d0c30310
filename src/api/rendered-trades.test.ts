import { describe, expect, it } from 'vitest';
import { RenderedTrades } from './rendered-trades.js';

describe('rendered trades', () => {
  it('give an item back only at the version it was kept at, and drop the least recently used first', () => {
    const kept = new RenderedTrades<{ id: number }>(2);
    const [a, b, c] = [{ id: 1 }, { id: 2 }, { id: 3 }];
    kept.set(1, 5, a);
    kept.set(2, 0, b);
    expect(kept.get(2, 1)).toBeUndefined();
    expect(kept.get(1, 6)).toBeUndefined();
    expect(kept.get(1, 5)).toBe(a);
    // 1 was used after 2: keeping 3 drops 2.
    kept.set(3, 0, c);
    expect([kept.get(1, 5), kept.get(2, 0), kept.get(3, 0)]).toEqual([a, undefined, c]);
    expect(kept.size).toBe(2);
    // A newer version replaces the kept one.
    const a2 = { id: 1, settled: true };
    kept.set(1, 6, a2);
    expect([kept.get(1, 5), kept.get(1, 6)]).toEqual([undefined, a2]);
  });

  it('write JSON as JSON.stringify does, kept items or not', () => {
    const kept = new RenderedTrades<Record<string, unknown>>(10);
    const items = [
      { _id: '7', bettor: '0xab', settled: false, settleDate: undefined, note: 'quote " and \\ and \u2028', n: 1.5 },
      { _id: '8', attempts: ['0x1', '0x2'], nested: { a: null } },
    ];
    kept.set(7, 0, items[0]!);
    expect(kept.json(items)).toBe(JSON.stringify(items));
    expect(kept.json([])).toBe('[]');
  });
});
