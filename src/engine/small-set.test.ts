import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { SmallSet } from './small-set.js';

describe('SmallSet', () => {
  it('holds the same keys in the same order as a JS Set, below and past its scan limit, across clears', () => {
    const op = fc.oneof(fc.nat({ max: 30 }).map((n) => `k${n}`), fc.constant(null));
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), (ops) => {
        const set = new SmallSet();
        const model = new Set<string>();
        for (const key of ops) {
          if (key === null) {
            set.clear();
            model.clear();
          } else {
            expect(set.has(key)).toBe(model.has(key));
            set.add(key);
            model.add(key);
          }
          expect(set.size).toBe(model.size);
          expect(Array.from({ length: set.size }, (_, i) => set.at(i))).toEqual([...model]);
        }
      }),
      { numRuns: 300 },
    );
  });
});
