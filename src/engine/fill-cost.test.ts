// Fill cost must not grow with a bettor's history in a market (issue: per-fill work grew with earlier trades).
// Compared as a ratio within one run: the median cost of a fill and its confirmation early and late in a long
// history of one taker trading both sides of one market (so every confirmation also pays a refund).
import { describe, expect, it } from 'vitest';
import { Engine } from './engine.js';
import { defaultEngineParams, USDC } from '../../test/helpers/engine-params.js';
import type { Command, MarketRef } from './types.js';

const E18 = 10n ** 18n;
const MAKER = '0x00000000000000000000000000000000000000A1';
const TAKER = '0x00000000000000000000000000000000000000B1';
const TOKEN = '0x00000000000000000000000000000000000000C1';
const MARKET: MarketRef = { marketHash: '0x' + '2'.repeat(64), exchangeEventId: 'ev2', tradeable: true };
const TRADES = 5000;

const engine = new Engine(defaultEngineParams(TOKEN));

const hash = (prefix: string, i: number) => '0x' + prefix + i.toString(16).padStart(63, '0');
let at = 1000;
const apply = (cmd: Command) => engine.apply(cmd);

function postMakerOrder(i: number, outcomeOne: boolean, odds: bigint): void {
  apply({
    kind: 'postOrders',
    at: ++at,
    markets: [MARKET],
    orders: [
      {
        orderHash: hash('a', i),
        marketHash: MARKET.marketHash,
        maker: MAKER,
        baseToken: TOKEN,
        executor: TOKEN,
        totalBetSize: 1_000_000n * USDC,
        percentageOdds: odds,
        expiry: 2_000_000_000,
        apiExpiry: 2_000_000_000,
        salt: String(i),
        isMakerBettingOutcomeOne: outcomeOne,
        signature: '0x',
      },
    ],
  });
}

/** One taker fill of 1 USDC, alternating sides, and its confirmation; returns its cost in nanoseconds. */
function tradeOnce(i: number): number {
  const takerOne = i % 2 === 1;
  const fillHash = hash('f', i);
  const started = process.hrtime.bigint();
  apply({
    kind: 'fill',
    at: ++at,
    fillHash,
    market: MARKET,
    taker: TAKER,
    baseToken: TOKEN,
    isTakerBettingOutcomeOne: takerOne,
    stakeWei: USDC,
    desiredOdds: takerOne ? 45n * E18 : 60n * E18,
    oddsSlippage: 0,
    fillSalt: String(i),
  });
  apply({ kind: 'confirmFill', at: ++at, fillHash });
  return Number(process.hrtime.bigint() - started);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

describe('fill cost', () => {
  it('is flat between the 100th and the 5,000th trade of one bettor in one market', () => {
    apply({ kind: 'faucet', at, address: MAKER, amount: 10_000_000n * USDC });
    apply({ kind: 'faucet', at, address: TAKER, amount: 1_000_000n * USDC });
    postMakerOrder(1, true, 40n * E18); // the taker on outcome two gets 60%
    postMakerOrder(2, false, 55n * E18); // the taker on outcome one gets 45%

    const costs: number[] = [];
    for (let i = 0; i < TRADES; i++) costs.push(tradeOnce(i));

    // Both sides traded: the taker's escrow was cut back by refunds, so the worst case was kept all along.
    expect(engine.balances(TAKER).escrowed).toBeLessThan(BigInt(TRADES) * USDC);
    const early = median(costs.slice(100, 400));
    const late = median(costs.slice(TRADES - 300));
    // Linear work per trade would make this ratio about 20-50; constant work keeps it near 1.
    expect(late / early).toBeLessThan(3);
  });
});
