import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ExpiryQueue } from './expiry-queue.js';

type Op = { push: [number, string] } | { pop: number } | { retainBelow: number } | { roundTrip: true };
const op: fc.Arbitrary<Op> = fc.oneof(
  // Few distinct times, so that entries of one time are common.
  { weight: 4, arbitrary: fc.tuple(fc.integer({ min: 1_700_000_000_000, max: 1_700_000_000_005 }), fc.constantFrom('a', 'b', 'hb:c')).map((push) => ({ push })) },
  { weight: 2, arbitrary: fc.nat({ max: 5 }).map((pop) => ({ pop })) },
  { weight: 1, arbitrary: fc.integer({ min: 1_700_000_000_000, max: 1_700_000_000_005 }).map((retainBelow) => ({ retainBelow })) },
  { weight: 1, arbitrary: fc.constant({ roundTrip: true as const }) },
);

describe('ExpiryQueue', () => {
  it('gives the earliest time first, ties by key, as a list kept sorted, through pops, in-place retains and snapshot round trips', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 300, size: 'medium' }), (ops) => {
        let q = new ExpiryQueue();
        let model: { at: number; key: string }[] = [];
        for (const o of ops) {
          if ('push' in o) {
            q.push(o.push[0], o.push[1]);
            model.push({ at: o.push[0], key: o.push[1] });
          } else if ('pop' in o) {
            for (let i = 0; i < o.pop && model.length > 0; i++) {
              const earliest = Math.min(...model.map((e) => e.at));
              expect(q.nextAt()).toBe(earliest);
              // Entries of one time come out by key: the order depends on the entries alone, not on how they were
              // pushed, so a queue restored from a snapshot expires them as the live one does.
              const key = q.nextKey();
              expect(key).toBe(model.filter((e) => e.at === earliest).map((e) => e.key).sort()[0]);
              model.splice(model.findIndex((e) => e.at === earliest && e.key === key), 1);
              q.pop();
            }
          } else if ('retainBelow' in o) {
            const limit = o.retainBelow;
            q.retain((at, key) => at < limit || key === 'a');
            model = model.filter((e) => e.at < limit || e.key === 'a');
          } else {
            // As a snapshot stores it (sorted by time, then key) or as the heap is stored: either restores the queue.
            const entries = q.entries();
            q = ExpiryQueue.from(model.length % 2 === 0 ? entries : [...entries].sort((a, b) => a.at - b.at || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)));
          }
          expect(q.size).toBe(model.length);
          expect(q.nextAt()).toBe(model.length > 0 ? Math.min(...model.map((e) => e.at)) : undefined);
          const sorted = (es: { at: number; key: string }[]) => [...es].sort((a, b) => a.at - b.at || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
          expect(sorted(q.entries())).toEqual(sorted(model));
        }
      }),
      { numRuns: 200 },
    );
  });

  it('pops an empty queue as a no-op', () => {
    const q = new ExpiryQueue();
    q.pop();
    expect(q.size).toBe(0);
    expect(q.nextAt()).toBeUndefined();
  });
});
