// The engine's live heap as trades accumulate in markets that never settle: makers quoting both sides of 4 markets,
// 4 takers filling both sides (refunds paid on the way), each fill confirmed. Prints the heap after full collections
// at checkpoints; with positions kept as sums and bounded replay windows it must stay flat past the first 10k fills.
//   node --expose-gc --import tsx bench/trade-memory.ts [fills = 100000]
import { Engine } from '../src/engine/engine.js';
import { defaultEngineParams, USDC } from '../test/helpers/engine-params.js';
import type { Command, MarketRef } from '../src/engine/types.js';
import { heapUsedAfterCollection } from '../test/helpers/memory-probe.js';

const FILLS = Number(process.argv[2] ?? 100_000);
const E18 = 10n ** 18n;
const TOKEN = '0x00000000000000000000000000000000000000c1';
const address = (p: string, i: number) => '0x' + p + i.toString(16).padStart(39, '0');
const hash = (p: string, i: number) => '0x' + p + i.toString(16).padStart(63, '0');
const makers = [0, 1, 2, 3].map((i) => address('a', i));
const takers = [0, 1, 2, 3].map((i) => address('b', i));
const markets: MarketRef[] = [0, 1, 2, 3].map((m) => ({ marketHash: hash('e', m), exchangeEventId: `ev${m}`, tradeable: true }));

const engine = new Engine(defaultEngineParams(TOKEN));
let at = 1_700_000_000_000;
const apply = (cmd: Command) => engine.apply(cmd);
for (const a of [...makers, ...takers]) apply({ kind: 'faucet', at, address: a, amount: 10n ** 15n * USDC });
let orders = 0;
/** Each maker rests one order per side of every market, larger than the whole run takes. */
const quote = (maker: string, market: MarketRef, one: boolean) => {
  const i = orders++;
  apply({
    kind: 'postOrders',
    at: ++at,
    markets: [market],
    orders: [{
      orderHash: hash('d', i),
      marketHash: market.marketHash,
      maker,
      baseToken: TOKEN,
      executor: TOKEN,
      totalBetSize: 10n ** 9n * USDC,
      percentageOdds: one ? 45n * E18 : 50n * E18,
      expiry: 2_000_000_000,
      apiExpiry: 2_000_000_000,
      salt: String(i),
      isMakerBettingOutcomeOne: one,
      signature: '0x' + 'ab'.repeat(65),
    }],
  });
};
for (const maker of makers) for (const m of markets) for (const one of [true, false]) quote(maker, m, one);

const checkpoints = new Set([10_000, 25_000, 50_000, 75_000, 100_000, FILLS]);
const baseline = heapUsedAfterCollection();
console.log(`fills | trades | heap over the empty engine`);
for (let n = 1; n <= FILLS; n++) {
  const market = markets[n % markets.length]!;
  const one = Math.floor(n / markets.length) % 2 === 0;
  const fillHash = hash('c', n);
  apply({
    kind: 'fill',
    at: ++at,
    fillHash,
    market,
    taker: takers[n % takers.length]!,
    baseToken: TOKEN,
    isTakerBettingOutcomeOne: one,
    stakeWei: 2n * USDC,
    desiredOdds: one ? 50n * E18 : 55n * E18,
    oddsSlippage: 5,
    fillSalt: (10n ** 76n + BigInt(n)).toString(),
  });
  apply({ kind: 'confirmFill', at: ++at, fillHash });
  if (checkpoints.has(n)) {
    const mb = (heapUsedAfterCollection() - baseline) / 1_048_576;
    console.log(`${String(n).padStart(6)} | ${String(engine.stats().trades).padStart(6)} | ${mb.toFixed(1)} MB`);
  }
}
