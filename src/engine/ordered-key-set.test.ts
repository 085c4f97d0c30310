import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { OrderedKeySet } from './ordered-key-set.js';

type Op = { add: number } | { delete: number } | { deleteOldest: number };

describe('OrderedKeySet', () => {
  it('behaves as a JS Set whose oldest key is dropped by walking it from the start, across rebuilds', () => {
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.nat({ max: 40 }).map((n) => ({ add: n })),
      fc.nat({ max: 40 }).map((n) => ({ delete: n })),
      fc.nat({ max: 3 }).map((n) => ({ deleteOldest: n })),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 300 }), (ops) => {
        const set = new OrderedKeySet();
        const model = new Set<string>();
        for (const o of ops) {
          if ('add' in o) {
            set.add(`k${o.add}`);
            model.add(`k${o.add}`);
          } else if ('delete' in o) {
            expect(set.delete(`k${o.delete}`)).toBe(model.delete(`k${o.delete}`));
          } else {
            for (let i = 0; i < o.deleteOldest; i++) {
              const oldest = model.values().next();
              if (!oldest.done) model.delete(oldest.value);
              expect(set.deleteOldest()).toBe(oldest.done ? undefined : oldest.value);
            }
          }
          expect(set.size).toBe(model.size);
          expect([...set.values()]).toEqual([...model]);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('keeps its queues within twice the live keys plus a constant when keys are deleted out of order', () => {
    const set = new OrderedKeySet();
    for (let i = 0; i < 50_000; i++) {
      set.add(`k${i}`);
      // Every key but one in a hundred leaves again, never from the front.
      if (i % 100 !== 0) set.delete(`k${i}`);
    }
    expect(set.size).toBe(500);
    const queued = set.queued;
    expect(queued).toBeLessThanOrEqual(2 * 500 + 1024);
    expect(set.deleteOldest()).toBe('k0');
    expect(set.deleteOldest()).toBe('k100');
  });

  it('skips a key deleted and added again at its old place: the new entry is the live one', () => {
    const set = new OrderedKeySet();
    set.add('a');
    set.add('b');
    set.delete('a');
    set.add('a');
    expect(set.deleteOldest()).toBe('b');
    expect(set.deleteOldest()).toBe('a');
    expect(set.deleteOldest()).toBeUndefined();
  });
});
