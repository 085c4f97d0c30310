import { Engine } from '../src/engine/engine.js';
import { defaultEngineParams } from '../src/engine/test-params.js';
import type { MarketRef } from '../src/engine/types.js';
const E18 = 10n ** 18n, USDC = 1_000_000n, TOKEN = '0x00000000000000000000000000000000000000C1';
const MAKER = '0x00000000000000000000000000000000000000A1', TAKER = '0x00000000000000000000000000000000000000B1';
const markets: MarketRef[] = Array.from({ length: 10 }, (_, m) => ({ marketHash: '0x' + (m + 1).toString(16).padStart(64, '0'), exchangeEventId: `ev${m}`, tradeable: true }));
const engine = new Engine(defaultEngineParams(TOKEN));
let clock = 1_700_000_000_000;
engine.apply({ kind: 'faucet', at: clock, address: MAKER, amount: 10n ** 30n });
engine.apply({ kind: 'faucet', at: clock, address: TAKER, amount: 10n ** 30n });
const N = Number(process.argv[2] ?? 200000);
const h = (tag: string, i: number) => '0x' + tag + i.toString(16).padStart(62, '0');
const orders = Array.from({ length: N }, (_, i) => h('a0', i)), fills = Array.from({ length: N }, (_, i) => h('f0', i));
const salts = Array.from({ length: N }, (_, i) => String(i)), csalts = salts.map((s) => s + 'c');
const t0 = performance.now();
for (let i = 0; i < N; i++) {
  const m = markets[i % 10]!;
  engine.apply({ kind: 'postOrders', at: ++clock, markets: [m], orders: [{ orderHash: orders[i]!, marketHash: m.marketHash, maker: MAKER, baseToken: TOKEN, executor: TOKEN, totalBetSize: 100n * USDC, percentageOdds: 30n * E18 + BigInt(i % 40) * (E18 / 2n), expiry: 2_000_000_000, apiExpiry: 2_000_000_000, salt: salts[i]!, isMakerBettingOutcomeOne: true, signature: '0x' }] });
  engine.apply({ kind: 'fill', at: ++clock, fillHash: fills[i]!, market: m, taker: TAKER, baseToken: TOKEN, isTakerBettingOutcomeOne: false, stakeWei: 10n * USDC, desiredOdds: 50n * E18, oddsSlippage: 0, fillSalt: salts[i]! });
  engine.apply({ kind: 'confirmFill', at: ++clock, fillHash: fills[i]! });
  engine.apply({ kind: 'cancelOrders', at: ++clock, maker: MAKER, salt: csalts[i]!, timestamp: Math.floor(clock / 1000), orderHashes: [orders[i]!] });
}
const s = (performance.now() - t0) / 1000;
console.log(`mixed ${(4 * N / s / 1000).toFixed(0)}k ops/s`);
