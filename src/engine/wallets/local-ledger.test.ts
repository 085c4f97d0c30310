// The running escrow total per address equals the sum of its per-market escrow, live and after a state round trip.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { LocalLedger } from './local-ledger.js';

const ADDRS = ['0xa', '0xb'];
const MARKETS = ['m1', 'm2', 'm3'];

describe('LocalLedger escrow totals', () => {
  it('escrowOf is the sum of escrowIn over markets after any locks and releases, and survives export/import', () => {
    const op = fc.record({ lock: fc.boolean(), who: fc.constantFrom(...ADDRS), market: fc.constantFrom(...MARKETS), amount: fc.bigInt({ min: 0n, max: 1000n }) });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const ledger = new LocalLedger();
        for (const a of ADDRS) ledger.mint(a, 10_000n);
        for (const o of ops) {
          if (o.lock) {
            if (ledger.balanceOf(o.who) >= o.amount) ledger.hold(o.who, o.market, o.amount);
          } else {
            const held = ledger.escrowIn(o.who, o.market);
            const take = o.amount < held ? o.amount : held;
            ledger.payOut(o.who, o.market, take, take);
          }
          for (const a of ADDRS) expect(ledger.escrowOf(a)).toBe(MARKETS.reduce((s, m) => s + ledger.escrowIn(a, m), 0n));
        }
        const copy = LocalLedger.fromState(ledger.exportState());
        for (const a of ADDRS) expect(copy.escrowOf(a)).toBe(ledger.escrowOf(a));
        expect(copy.total()).toBe(ledger.minted);
      }),
      { numRuns: 200 },
    );
  });
});
