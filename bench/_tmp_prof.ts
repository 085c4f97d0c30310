import { Engine } from '../src/engine/engine.js';
import { defaultEngineParams } from '../src/engine/test-params.js';
import type { MarketRef, NewOrder } from '../src/engine/types.js';
const MARKETS = 10, LEVELS = 40, E18 = 10n ** 18n, USDC = 1_000_000n;
const TOKEN = '0x00000000000000000000000000000000000000C1';
const MAKER = '0x00000000000000000000000000000000000000A1';
const TAKER = '0x00000000000000000000000000000000000000B1';
const markets: MarketRef[] = Array.from({ length: MARKETS }, (_, m) => ({ marketHash: '0x' + (m + 1).toString(16).padStart(64, '0'), exchangeEventId: `ev${m}`, tradeable: true }));
const engine = new Engine(defaultEngineParams(TOKEN));
let clock = 1_700_000_000_000;
engine.apply({ kind: 'faucet', at: clock, address: MAKER, amount: 10n ** 30n });
engine.apply({ kind: 'faucet', at: clock, address: TAKER, amount: 10n ** 30n });
const h = (tag: string, i: number) => '0x' + tag + i.toString(16).padStart(62, '0');
const newOrder = (i: number, orderHash: string, salt: string): NewOrder => ({ orderHash, marketHash: markets[i % MARKETS]!.marketHash, maker: MAKER, baseToken: TOKEN, executor: TOKEN, totalBetSize: 100n * USDC, percentageOdds: 30n * E18 + BigInt(i % LEVELS) * (E18 / 2n), expiry: 2_000_000_000, apiExpiry: 2_000_000_000, salt, isMakerBettingOutcomeOne: true, signature: '0x' });
const N = Number(process.argv[2] ?? 200000);
const orders = Array.from({ length: N }, (_, i) => h('a0', i)); const fills = Array.from({ length: N }, (_, i) => h('f0', i)); const salts = Array.from({ length: N }, (_, i) => String(i)); const csalts = salts.map((s) => s + 'c');
for (let round = 0; round < 3; round++) {
const t = performance.now();
const lo = Math.floor(N / 3) * round, hi = Math.floor(N / 3) * (round + 1);
for (let i = lo; i < hi; i++) {
  engine.apply({ kind: 'postOrders', at: ++clock, orders: [newOrder(i, orders[i]!, salts[i]!)], markets: [markets[i % MARKETS]!] });
  engine.apply({ kind: 'fill', at: ++clock, fillHash: fills[i]!, market: markets[i % MARKETS]!, taker: TAKER, baseToken: TOKEN, isTakerBettingOutcomeOne: false, stakeWei: 10n * USDC, desiredOdds: 50n * E18, oddsSlippage: 0, fillSalt: salts[i]! });
  engine.apply({ kind: 'confirmFill', at: ++clock, fillHash: fills[i]! });
  engine.apply({ kind: 'cancelOrders', at: ++clock, maker: MAKER, salt: csalts[i]!, timestamp: Math.floor(clock / 1000), orderHashes: [orders[i]!] });
}
console.log('mixed ops/s', Math.round((hi - lo) * 4 / ((performance.now() - t) / 1000)));
}
