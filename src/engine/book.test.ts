// The price-level book against the naive model it replaced: one array of orders kept sorted by (odds, seq).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { BookSide } from './book.js';
import type { Order } from './types.js';

const E18 = 10n ** 18n;
let nextSeq = 0;
const order = (oddsStep: number, seq = ++nextSeq): Order => ({
  orderHash: `0x${seq.toString(16).padStart(64, '0')}`,
  marketHash: '0xm',
  exchangeEventId: 'e',
  maker: '0xa',
  baseToken: '0xt',
  executor: '0xe',
  totalBetSize: 1n,
  percentageOdds: 30n * E18 + BigInt(oddsStep) * (E18 / 8n),
  fillAmount: 0n,
  pendingFillAmount: 0n,
  expiry: 0,
  apiExpiry: 0,
  salt: String(seq),
  isMakerBettingOutcomeOne: true,
  signature: '0x',
  persistence: 'LAPSE',
  status: 'ACTIVE',
  seq,
  createdAt: 0,
  updatedAt: 0,
  pendingFills: new Map(),
});

/** The model: every order in one array, best (lowest odds, then oldest) first. */
const modelSorted = (orders: Order[]) =>
  [...orders].sort((a, b) => (a.percentageOdds === b.percentageOdds ? a.seq - b.seq : a.percentageOdds < b.percentageOdds ? -1 : 1));

type Op = { op: 'insert'; step: number } | { op: 'remove'; pick: number } | { op: 'removeAbsent'; step: number };
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant('insert' as const), step: fc.integer({ min: 0, max: 12 }) }) },
  { weight: 4, arbitrary: fc.record({ op: fc.constant('remove' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('removeAbsent' as const), step: fc.integer({ min: 0, max: 12 }) }) },
);

describe('BookSide (price levels)', () => {
  it('iterates, counts and removes exactly as a sorted array of every order', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 120 }), (ops) => {
        const side = new BookSide();
        let model: Order[] = [];
        for (const op of ops) {
          if (op.op === 'insert') {
            const o = order(op.step);
            side.insert(o);
            model.push(o);
          } else if (op.op === 'remove' && model.length > 0) {
            const o = model[op.pick % model.length]!;
            side.remove(o);
            model = model.filter((m) => m !== o);
          } else if (op.op === 'removeAbsent') {
            // An order that never rested (same odds as resting ones) changes nothing.
            side.remove(order(op.step));
          }
          const sorted = modelSorted(model);
          expect([...side]).toEqual(sorted);
          expect([...side.worstFirst()]).toEqual([...sorted].reverse());
          expect(side.snapshot()).toEqual(sorted);
          expect(side.size).toBe(model.length);
          // No empty level stays behind: the levels are exactly the distinct odds resting.
          const distinct = [...new Set(sorted.map((o) => o.percentageOdds))];
          expect(side.levelSizes()).toEqual(distinct.map((odds) => ({ odds, orders: sorted.filter((o) => o.percentageOdds === odds).length })));
        }
      }),
      { numRuns: 200 },
    );
  });

  it('keeps time priority within a level when an older order arrives late (load, then insert out of seq)', () => {
    const side = new BookSide();
    const [a, b, c] = [order(1, 10), order(1, 20), order(1, 30)];
    side.load([c, a]);
    side.insert(b);
    expect([...side].map((o) => o.seq)).toEqual([10, 20, 30]);
    side.remove(a);
    side.remove(c);
    expect([...side].map((o) => o.seq)).toEqual([20]);
    side.remove(b);
    expect(side.size).toBe(0);
    expect(side.levelSizes()).toEqual([]);
  });
});
