// The cash-out quote against random positions and books: taking the quoted hedge as a fill makes the position pay
// the same whichever outcome wins (within the rounding of each book level the hedge took), and the worse of the two results is
// exactly the bettor's balance before the hedge plus the quoted value.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Engine } from './engine.js';
import { DomainError } from './errors.js';
import { defaultEngineParams, USDC } from '../../test/helpers/engine-params.js';
import type { Command, MarketRef, NewOrder } from './types.js';

const TOKEN = '0x00000000000000000000000000000000000000C1';
const BETTOR = '0x00000000000000000000000000000000000000B1';
const M: MarketRef = { marketHash: '0x' + '1'.repeat(64), exchangeEventId: 'ev1', tradeable: true };
const STEP = 125n * 10n ** 15n;
const FUNDS = 10_000n * USDC;

let n = 0;
const order = (maker: string, isMakerBettingOutcomeOne: boolean, steps: number, size: bigint): NewOrder => {
  n++;
  return {
    orderHash: '0x' + n.toString(16).padStart(64, '0'),
    marketHash: M.marketHash,
    maker,
    baseToken: TOKEN,
    executor: TOKEN,
    totalBetSize: size,
    percentageOdds: BigInt(steps) * STEP,
    expiry: 2_000_000_000,
    apiExpiry: 2_000_000_000,
    salt: String(n),
    isMakerBettingOutcomeOne,
    signature: '0x',
  };
};
const maker = (i: number) => '0x' + (0xa0 + i).toString(16).padStart(40, '0');

describe('cash-out quote', () => {
  it('hedges a random position against a random book to the wei', () => {
    // How many runs reached the hedge (the others were refused before it): the property must be exercised.
    let hedges = 0;
    const level = fc.record({ steps: fc.integer({ min: 1, max: 799 }), size: fc.bigInt({ min: 10n * USDC, max: 300n * USDC }) });
    fc.assert(
      fc.property(
        fc.boolean(),
        level,
        fc.bigInt({ min: USDC, max: 200n * USDC }),
        fc.array(level, { minLength: 1, maxLength: 4 }),
        (one, opening, stake, book) => {
          const engine = new Engine(defaultEngineParams(TOKEN));
          let at = 1000;
          const run = (cmd: Command) => engine.apply(cmd).result;
          for (const a of [BETTOR, ...[0, 1, 2, 3, 4].map(maker)]) run({ kind: 'faucet', at, address: a, amount: FUNDS });
          // The bettor takes `one` against a maker on the other side...
          run({ kind: 'postOrders', at, orders: [order(maker(0), !one, opening.steps, opening.size)], markets: [M] });
          const fill = (isTakerBettingOutcomeOne: boolean, stakeWei: bigint, desiredOdds: bigint) => {
            const fillHash = '0x' + (++n).toString(16).padStart(64, 'f');
            const r = run({ kind: 'fill', at: ++at, fillHash, market: M, taker: BETTOR, baseToken: TOKEN, isTakerBettingOutcomeOne, stakeWei, desiredOdds, oddsSlippage: 0, fillSalt: String(n) });
            run({ kind: 'confirmFill', at: ++at, fillHash });
            return r;
          };
          try {
            fill(one, stake, 1n);
          } catch (err) {
            if (err instanceof DomainError) return; // the opening bet itself was refused (too small a maker stake)
            throw err;
          }
          // ...then makers quote the side that hedges it, where they do not cross the bettor's counterparty.
          book.forEach((l, i) => {
            const status = run({ kind: 'postOrders', at, orders: [order(maker(i + 1), one, l.steps, l.size)], markets: [M] });
            expect(status.kind).toBe('postOrders');
          });
          let quote;
          try {
            quote = engine.cashOutQuote(M.marketHash, BETTOR, at);
          } catch (err) {
            if (err instanceof DomainError && err.errorCode === 'INSUFFICIENT_SPACE') return;
            throw err;
          }
          expect(quote.isTakerBettingOutcomeOne).toBe(!one);
          const before = engine.ledger.balanceOf(BETTOR);
          // The quoted fill takes exactly what the quote walked.
          const hedged = fill(quote.isTakerBettingOutcomeOne, quote.stakeWei, quote.desiredOdds);
          expect(hedged.kind === 'fill' && hedged.fill.totalFilled).toBe(quote.stakeWei);
          const snapshot = engine.snapshot();
          const finals = ([1, 2] as const).map((outcome) => {
            const e = Engine.restore(defaultEngineParams(TOKEN), snapshot);
            e.apply({ kind: 'reportMarkets', at: at + 1, reports: [{ marketHash: M.marketHash, outcome }] });
            return e.ledger.balanceOf(BETTOR);
          });
          const worst = finals[0]! < finals[1]! ? finals[0]! : finals[1]!;
          const best = finals[0]! < finals[1]! ? finals[1]! : finals[0]!;
          expect(worst).toBe(before + quote.value);
          // A wei per level taken whole; the last level, taken in part, rounds its stake down: up to one wei of stake
          // (1 / taker odds wei of return) and a wei more.
          expect(best - worst).toBeLessThanOrEqual(BigInt(book.length) + (10n ** 20n + quote.desiredOdds - 1n) / quote.desiredOdds + 1n);
          hedges++;
        },
      ),
      { numRuns: 300 },
    );
    expect(hedges).toBeGreaterThan(150);
  });
});
