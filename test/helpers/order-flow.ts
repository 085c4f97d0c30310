// A stream of engine commands that trade: faucets for three makers and a taker, then makers posting orders and the
// taker filling them, one command per index. For store tests that need real commands with real change records.
import type { Command } from '../../src/engine/types.js';
import { restingOrder, USDC } from './engine-params.js';
import { MAKERS, MARKET, TAKER, TOKEN, E18, testHash } from './trading-store-fixture.js';

export { TOKEN };

/** Command `i` (from 0) of the flow, at time `at`. */
export function flowCommand(i: number, at: number): Command {
  const parties = [...MAKERS, TAKER];
  if (i < parties.length) return { kind: 'faucet', at, address: parties[i]!, amount: 1_000_000n * USDC };
  if (i % 2 === 0) {
    return {
      kind: 'postOrders',
      at,
      markets: [MARKET],
      orders: [restingOrder({ orderHash: testHash('a', i), marketHash: MARKET.marketHash, maker: MAKERS[i % MAKERS.length]!, token: TOKEN, size: 20n * USDC, salt: String(i) })],
    };
  }
  return {
    kind: 'fill',
    at,
    fillHash: testHash('f', i),
    market: MARKET,
    taker: TAKER,
    baseToken: TOKEN,
    isTakerBettingOutcomeOne: true,
    stakeWei: 5n * USDC,
    desiredOdds: 50n * E18,
    oddsSlippage: 0,
    fillSalt: String(i),
  };
}
