// The matching engine alone (no HTTP, no journal) against the `nodejs-order-book` npm package, in one process and
// one run, on the same shapes of work: adds, cancels, matches, and a mixed loop. Prints ops/s and p99 per operation,
// and the engine's figures as ratios to the package's (the baseline). Targets (issue 15): the engine at 200,000
// mixed ops/s or more, and at least half the package's rate for adds and cancels.
// Shapes, in this order on fresh books: adds (ORDERS orders on one side, spread over 10 books of 40 price levels),
// matches (ORDERS / 4 takers of 10 USDC against the best order: partial, one order matched, left pending in the
// engine), cancels (every added order, oldest first), then the mixed loop. Each mixed iteration posts one order,
// fills part of it, confirms the fill and cancels the order, so its book holds that one order: the loop measures
// the cost per command, not book depth. The package has no confirmation, so its iteration is limit, market, cancel
// (3 operations against the engine's 4; each side's rate counts its own). Run with --expose-gc for steadier figures:
//   node --expose-gc --import tsx bench/engine.ts [orders = 10000] [mixed iterations = 5000]
import { OrderBook, Side } from 'nodejs-order-book';
import { Engine } from '../src/engine/engine.js';
import { defaultEngineParams } from '../src/engine/test-params.js';
import type { Command, MarketRef, NewOrder } from '../src/engine/types.js';
import { percentiles, ratio } from './lib.js';

const us = (ms: number) => (ms * 1000).toFixed(1) + ' µs';

const [ORDERS = 10_000, MIXED = 5000] = process.argv.slice(2).map(Number);
const MARKETS = 10;
const LEVELS = 40; // maker odds 30.0%, 30.5%, ... 49.5%: 40 price levels per book
const E18 = 10n ** 18n;
const USDC = 1_000_000n;
const TOKEN = '0x00000000000000000000000000000000000000C1';
const MAKER = '0x00000000000000000000000000000000000000A1';
const TAKER = '0x00000000000000000000000000000000000000B1';
const markets: MarketRef[] = Array.from({ length: MARKETS }, (_, m) => ({
  marketHash: '0x' + (m + 1).toString(16).padStart(64, '0'),
  exchangeEventId: `ev${m}`,
  tradeable: true,
}));

interface Phase {
  ops: number;
  seconds: number;
  p99: number;
}

/** Times each call of `op(i)` for i < count. */
function timed(count: number, op: (i: number) => void): Phase {
  const samples = new Float64Array(count);
  const start = performance.now();
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    op(i);
    samples[i] = performance.now() - t;
  }
  const seconds = (performance.now() - start) / 1000;
  return { ops: count, seconds, p99: percentiles(Array.from(samples)).p99 };
}

/** Like timed, but one iteration is several operations; p99 is per iteration divided by its operations. */
function timedLoop(iterations: number, opsPerIteration: number, body: (i: number) => void): Phase {
  const phase = timed(iterations, body);
  return { ops: iterations * opsPerIteration, seconds: phase.seconds, p99: phase.p99 / opsPerIteration };
}

// ---- the engine -------------------------------------------------------------------------------
function engineRun(ORDERS: number, MIXED: number): Record<string, Phase> {
  const engine = new Engine(defaultEngineParams(TOKEN));
  let clock = 1_700_000_000_000;
  let serial = 0;
  const apply = (cmd: Command) => engine.apply(cmd);
  apply({ kind: 'faucet', at: clock, address: MAKER, amount: 10n ** 30n });
  apply({ kind: 'faucet', at: clock, address: TAKER, amount: 10n ** 30n });
  const newOrder = (i: number): NewOrder => ({
    orderHash: '0x' + (++serial).toString(16).padStart(64, '0'),
    marketHash: markets[i % MARKETS]!.marketHash,
    maker: MAKER,
    baseToken: TOKEN,
    executor: TOKEN,
    totalBetSize: 100n * USDC,
    percentageOdds: 30n * E18 + BigInt(i % LEVELS) * (E18 / 2n),
    expiry: 2_000_000_000,
    apiExpiry: 2_000_000_000,
    salt: String(serial),
    isMakerBettingOutcomeOne: true,
    signature: '0x',
  });
  // newOrder(i) is in market i % MARKETS: the command carries that market (no search, as a route that looked it up).
  const post = (o: NewOrder, i: number) => apply({ kind: 'postOrders', at: ++clock, orders: [o], markets: [markets[i % MARKETS]!] });
  const fill = (m: number, stake: bigint) => {
    const fillHash = '0xf' + (++serial).toString(16).padStart(63, '0');
    apply({
      kind: 'fill',
      at: ++clock,
      fillHash,
      market: markets[m]!,
      taker: TAKER,
      baseToken: TOKEN,
      isTakerBettingOutcomeOne: false,
      stakeWei: stake,
      desiredOdds: 50n * E18,
      oddsSlippage: 0,
      fillSalt: String(serial),
    });
    return fillHash;
  };
  const cancel = (hash: string) =>
    apply({ kind: 'cancelOrders', at: ++clock, maker: MAKER, salt: String(++serial), timestamp: Math.floor(clock / 1000), orderHashes: [hash] });

  const posted: string[] = [];
  const adds = timed(ORDERS, (i) => {
    const o = newOrder(i);
    post(o, i);
    posted.push(o.orderHash);
  });
  // Each fill takes 10 USDC of stake from the best order of a book: partial, one order matched.
  const matches = timed(ORDERS / 4, (i) => fill(i % MARKETS, 10n * USDC));
  const cancels = timed(ORDERS, (i) => cancel(posted[i]!));
  const mixed = timedLoop(MIXED, 4, (i) => {
    const o = newOrder(i);
    post(o, i);
    const fillHash = fill(i % MARKETS, 10n * USDC);
    apply({ kind: 'confirmFill', at: ++clock, fillHash });
    cancel(o.orderHash);
  });
  return { adds, cancels, matches, mixed };
}

// ---- nodejs-order-book ------------------------------------------------------------------------
function orderBookRun(ORDERS: number, MIXED: number): Record<string, Phase> {
  const books = Array.from({ length: MARKETS }, () => new OrderBook());
  let serial = 0;
  const price = (i: number) => 30 + (i % LEVELS) / 2;
  const posted: { book: OrderBook; id: string }[] = [];
  const limit = (i: number) => {
    const id = String(++serial);
    const book = books[i % MARKETS]!;
    book.limit({ side: Side.BUY, id, size: 100, price: price(i) });
    return { book, id };
  };
  const adds = timed(ORDERS, (i) => posted.push(limit(i)));
  // A sell of 10 against the best buy of a book: partial, one order matched (as the engine's fills).
  const matches = timed(ORDERS / 4, (i) => books[i % MARKETS]!.market({ side: Side.SELL, size: 10 }));
  const cancels = timed(ORDERS, (i) => posted[i]!.book.cancel(posted[i]!.id));
  const mixed = timedLoop(MIXED, 3, (i) => {
    const { book, id } = limit(i);
    book.market({ side: Side.SELL, size: 10 });
    book.cancel(id);
  });
  return { adds, cancels, matches, mixed };
}

const gc = (globalThis as { gc?: () => void }).gc;
// Warm-up of both (JIT) on small runs, then the measured runs, each on fresh books.
orderBookRun(2000, 2000);
engineRun(2000, 2000);
gc?.();
const book = orderBookRun(ORDERS, MIXED);
gc?.();
const engine = engineRun(ORDERS, MIXED);

const rate = (p: Phase) => p.ops / p.seconds;
console.log(`${ORDERS} orders over ${MARKETS} books of ${LEVELS} price levels; mixed loop ${MIXED} iterations`);
console.log('operation   nodejs-order-book (baseline)           oddex engine                           engine/baseline');
for (const name of ['adds', 'cancels', 'matches', 'mixed'] as const) {
  const b = book[name]!;
  const e = engine[name]!;
  console.log(
    `${name.padEnd(10)}  ${Math.round(rate(b)).toString().padStart(9)} ops/s  p99 ${us(b.p99).padStart(9)}/op` +
      `     ${Math.round(rate(e)).toString().padStart(9)} ops/s  p99 ${us(e.p99).padStart(9)}/op` +
      `     rate ${ratio(rate(e), rate(b))}, p99 ${ratio(e.p99, b.p99)}`,
  );
}
