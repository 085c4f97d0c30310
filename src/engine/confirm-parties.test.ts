// A confirmation refunds excess escrow to every party of the fill once, also when the fill has more parties than
// the confirmation's short linear list holds (ten makers and a taker).
import { describe, expect, it } from 'vitest';
import { Engine } from './engine.js';
import { defaultEngineParams, USDC } from '../../test/helpers/engine-params.js';
import type { Command, MarketRef } from './types.js';

const E18 = 10n ** 18n;
const TOKEN = '0x00000000000000000000000000000000000000C1';
const MARKET: MarketRef = { marketHash: '0x' + '4'.repeat(64), exchangeEventId: 'ev4', tradeable: true };
const makers = Array.from({ length: 10 }, (_, i) => '0x' + (0xa0 + i).toString(16).padStart(40, '0'));
const [TAKER_ONE, TAKER_TWO] = ['0x' + 'b1'.padStart(40, '0'), '0x' + 'b2'.padStart(40, '0')];
const hash = (p: string, i: number) => '0x' + p + i.toString(16).padStart(63, '0');

describe('confirmation with many parties', () => {
  it('pays each of ten makers its refund once when the fill that hedges them confirms', () => {
    const engine = new Engine(defaultEngineParams(TOKEN));
    let at = 1_700_000_000_000;
    const apply = (cmd: Command) => engine.apply(cmd);
    for (const a of [...makers, TAKER_ONE!, TAKER_TWO!]) apply({ kind: 'faucet', at, address: a, amount: 1000n * USDC });
    const postAll = (outcomeOne: boolean, round: number) =>
      apply({
        kind: 'postOrders',
        at: ++at,
        markets: [MARKET],
        orders: makers.map((maker, i) => ({
          orderHash: hash('a', round * 100 + i),
          marketHash: MARKET.marketHash,
          maker,
          baseToken: TOKEN,
          executor: TOKEN,
          totalBetSize: 10n * USDC,
          percentageOdds: 50n * E18,
          expiry: 2_000_000_000,
          apiExpiry: 2_000_000_000,
          salt: String(round * 100 + i),
          isMakerBettingOutcomeOne: outcomeOne,
          signature: '0x',
        })),
      });
    const fillAll = (taker: string, takerOne: boolean, n: number) => {
      apply({
        kind: 'fill',
        at: ++at,
        fillHash: hash('f', n),
        market: MARKET,
        taker,
        baseToken: TOKEN,
        isTakerBettingOutcomeOne: takerOne,
        stakeWei: 100n * USDC,
        desiredOdds: 50n * E18,
        oddsSlippage: 0,
        fillSalt: String(n),
      });
      return apply({ kind: 'confirmFill', at: ++at, fillHash: hash('f', n) }).changes;
    };
    // Each maker first bets outcome two (10 USDC at 50%), then outcome one: both sides of 10 USDC, no loss possible.
    postAll(false, 1);
    expect(fillAll(TAKER_ONE!, true, 1).filter((c) => c.type === 'refundPaid')).toEqual([]);
    postAll(true, 2);
    const refunds = fillAll(TAKER_TWO!, false, 2).flatMap((c) => (c.type === 'refundPaid' ? [c.refund] : []));
    expect(refunds.map((r) => [r.bettor, r.amount, r.maker])).toEqual(makers.map((m) => [m, 20n * USDC, true]));
    for (const m of makers) {
      expect(engine.ledger.escrowIn(m, MARKET.marketHash)).toBe(0n);
      expect(engine.ledger.balanceOf(m)).toBe(1000n * USDC);
    }
    expect(engine.ledger.escrowIn(TAKER_TWO!, MARKET.marketHash)).toBe(100n * USDC);
  });
});
