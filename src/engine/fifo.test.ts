import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Fifo } from './fifo.js';

describe('Fifo', () => {
  it('returns items in the order pushed, as an array used as a queue, across bulk compactions', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.nat({ max: 3000 }).map((n) => ({ push: n })), fc.nat({ max: 3000 }).map((n) => ({ shift: n })))), (ops) => {
        const q = new Fifo<number>();
        const model: number[] = [];
        let next = 0;
        for (const op of ops) {
          if ('push' in op) {
            for (let i = 0; i < op.push; i++) {
              q.push(next);
              model.push(next++);
            }
          } else {
            for (let i = 0; i < op.shift; i++) expect(q.shift()).toBe(model.shift());
          }
          expect(q.size).toBe(model.length);
          expect(q.peek()).toBe(model[0]);
        }
        expect(q.toArray()).toEqual(model);
      }),
      { numRuns: 100 },
    );
  });
});
