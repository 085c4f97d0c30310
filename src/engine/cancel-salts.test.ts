import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CancelSalts } from './cancel-salts.js';

const maker = fc.constantFrom('0xa1', '0xb2', '0xc3');
const salt = fc.constantFrom('1', '2', '3', '1:2', '');

describe('CancelSalts', () => {
  it('answers as a flat map of "maker:salt" in arrival order, through forgetting and a snapshot round trip', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.tuple(maker, salt).map(([m, s]) => ({ add: [m, s] as const })), fc.nat({ max: 4 }).map((n) => ({ forget: n })))),
        fc.tuple(maker, salt),
        (ops, [probeMaker, probeSalt]) => {
          let set = new CancelSalts();
          const model = new Map<string, number>();
          let time = 0;
          for (const op of ops) {
            if ('add' in op) {
              const [m, s] = op.add;
              // The engine refuses a known salt before adding: the model does the same.
              if (set.has(m, s)) continue;
              set.add(m, s, ++time);
              model.set(`${m}:${s}`, time);
            } else {
              for (let i = 0; i < op.forget && model.size > 0; i++) {
                const [oldestKey, oldestTime] = model.entries().next().value!;
                expect(set.oldestTime()).toBe(oldestTime);
                set.forgetOldest();
                model.delete(oldestKey);
              }
            }
            expect(set.size).toBe(model.size);
            expect(set.entries()).toEqual([...model]);
            expect(set.has(probeMaker, probeSalt)).toBe(model.has(`${probeMaker}:${probeSalt}`));
            set = CancelSalts.from(set.entries());
          }
          expect(set.oldestTime()).toBe(model.size > 0 ? model.values().next().value : undefined);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('keeps a salt holding a colon whole (the maker key splits at the first colon)', () => {
    const set = CancelSalts.from([['0xa1:12:34', 5000]]);
    expect(set.has('0xa1', '12:34')).toBe(true);
    expect(set.has('0xa1:12', '34')).toBe(false);
    expect(set.entries()).toEqual([['0xa1:12:34', 5000]]);
  });
});
