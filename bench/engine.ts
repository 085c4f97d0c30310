// The matching engine alone (no HTTP, no journal) against the `nodejs-order-book` npm package, in one process and
// one run, on the same shapes of work: adds, cancels, matches, and a mixed loop. Prints ops/s and p99 per operation,
// and the engine's figures as ratios to the package's (the baseline). Targets (issue 15): the engine at 200,000
// mixed ops/s or more, and at least half the package's rate for adds and cancels.
// Shapes, in this order on fresh books: adds (ORDERS orders on one side, spread over 10 books of 40 price levels),
// matches (ORDERS / 4 takers of 10 USDC against the best order: partial, one order matched, left pending in the
// engine), cancels (every added order, oldest first), then the mixed loop. Each mixed iteration posts one order,
// fills part of it, confirms the fill and cancels the order, so its book holds that one order: the loop measures
// the cost per command, not book depth. The package has no confirmation, so its iteration is limit, market, cancel
// (3 operations against the engine's 4; each side's rate counts its own).
// A phase lasts a fraction of a second, so one major GC or a burst of CPU stolen by the host moved a single
// figure by 2x. Hence: both sides warm up first; ROUNDS rounds alternate which side runs first; a full GC runs
// before every phase (outside its timing); each figure is the median over the rounds, with the rounds' range. Ids
// and hashes are formatted before a phase starts, so a phase times the book, not the bench's string building.
// Beside wall-clock rates it prints rates per CPU-second of this process (GC threads included), which CPU taken
// by other processes or by the host does not move. Run with --expose-gc (without it, phases are not separated):
//   node --expose-gc --import tsx bench/engine.ts [orders = 10000] [mixed iterations = 20000] [rounds = 5]
import { OrderBook, Side } from 'nodejs-order-book';
import { Engine } from '../src/engine/engine.js';
import { defaultEngineParams } from '../test/helpers/engine-params.js';
import type { Change } from '../src/engine/changes.js';
import type { MarketRef, NewOrder } from '../src/engine/types.js';
import { percentiles, ratio } from './lib.js';

const [ORDERS = 10_000, MIXED = 20_000, ROUNDS = 5] = process.argv.slice(2).map(Number);
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
const gc = (globalThis as { gc?: () => void }).gc;

interface Phase {
  ops: number;
  wallSeconds: number;
  cpuSeconds: number;
  p99: number;
}
type PhaseName = 'adds' | 'cancels' | 'matches' | 'mixed';
type Run = Record<PhaseName, Phase>;

/** Times each call of `op(i)` for i < count, after a full GC; one iteration is `opsPerIteration` operations. */
function timed(count: number, op: (i: number) => void, opsPerIteration = 1): Phase {
  gc?.();
  const samples = new Float64Array(count);
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    op(i);
    samples[i] = performance.now() - t;
  }
  const wallSeconds = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  return {
    ops: count * opsPerIteration,
    wallSeconds,
    cpuSeconds: (used.user + used.system) / 1e6,
    p99: percentiles(Array.from(samples)).p99 / opsPerIteration,
  };
}

/** `count` distinct 32-byte hex hashes, the first byte set to `tag` so kinds never collide. */
function hashes(count: number, tag: string, from: number): string[] {
  return Array.from({ length: count }, (_, i) => '0x' + tag + (from + i).toString(16).padStart(62, '0'));
}

// ---- the engine -------------------------------------------------------------------------------
/** An engine with two funded accounts and the commands of the bench's shapes. */
function engineBench() {
  const engine = new Engine(defaultEngineParams(TOKEN));
  let clock = 1_700_000_000_000;
  let serial = 0;
  engine.apply({ kind: 'faucet', at: clock, address: MAKER, amount: 10n ** 30n });
  engine.apply({ kind: 'faucet', at: clock, address: TAKER, amount: 10n ** 30n });
  const newOrder = (i: number, orderHash: string, salt: string): NewOrder => ({
    orderHash,
    marketHash: markets[i % MARKETS]!.marketHash,
    maker: MAKER,
    baseToken: TOKEN,
    executor: TOKEN,
    totalBetSize: 100n * USDC,
    percentageOdds: 30n * E18 + BigInt(i % LEVELS) * (E18 / 2n),
    expiry: 2_000_000_000,
    apiExpiry: 2_000_000_000,
    salt,
    isMakerBettingOutcomeOne: true,
    signature: '0x',
  });
  // Ids for `count` uses, formatted ahead of the timed loop.
  const ids = (count: number) => {
    const from = serial;
    serial += count;
    return { orders: hashes(count, 'a0', from), fills: hashes(count, 'f0', from), salts: Array.from({ length: count }, (_, i) => String(from + i)) };
  };
  const post = (i: number, orderHash: string, salt: string) =>
    engine.apply({ kind: 'postOrders', at: ++clock, orders: [newOrder(i, orderHash, salt)], markets: [markets[i % MARKETS]!] });
  // Each fill takes 10 USDC of stake from the best order of book m: partial, one order matched.
  const fill = (m: number, fillHash: string, fillSalt: string) =>
    engine.apply({
      kind: 'fill',
      at: ++clock,
      fillHash,
      market: markets[m]!,
      taker: TAKER,
      baseToken: TOKEN,
      isTakerBettingOutcomeOne: false,
      stakeWei: 10n * USDC,
      desiredOdds: 50n * E18,
      oddsSlippage: 0,
      fillSalt,
    });
  const confirm = (fillHash: string) => engine.apply({ kind: 'confirmFill', at: ++clock, fillHash });
  // The cancel's salt is the order's salt with a suffix: unique per cancel, and formatted before the loop too.
  const cancel = (orderHash: string, salt: string) =>
    engine.apply({ kind: 'cancelOrders', at: ++clock, maker: MAKER, salt, timestamp: Math.floor(clock / 1000), orderHashes: [orderHash] });

  const run = (orders: number, mixed: number): Run => {
    const added = ids(orders);
    const adds = timed(orders, (i) => post(i, added.orders[i]!, added.salts[i]!));
    const fills = ids(orders / 4);
    const matches = timed(orders / 4, (i) => fill(i % MARKETS, fills.fills[i]!, fills.salts[i]!));
    const cancelSalts = added.salts.map((s) => s + 'c');
    const cancels = timed(orders, (i) => cancel(added.orders[i]!, cancelSalts[i]!));
    const loop = ids(mixed);
    const loopCancelSalts = loop.salts.map((s) => s + 'c');
    const mixedPhase = timed(
      mixed,
      (i) => {
        post(i, loop.orders[i]!, loop.salts[i]!);
        fill(i % MARKETS, loop.fills[i]!, loop.salts[i]!);
        confirm(loop.fills[i]!);
        cancel(loop.orders[i]!, loopCancelSalts[i]!);
      },
      4,
    );
    return { adds, cancels, matches, mixed: mixedPhase };
  };

  /** One mixed iteration's commands with the change records each returned, as counts per type. */
  const mixedShape = (): string[] => {
    const [orderHash, fillHash, salt] = [hashes(1, 'b0', 0)[0]!, hashes(1, 'e0', 0)[0]!, 'shape'];
    const shape = (label: string, changes: readonly Change[]) => {
      const counts = new Map<string, number>();
      for (const c of changes) counts.set(c.type, (counts.get(c.type) ?? 0) + 1);
      return `${label}: ${[...counts].map(([type, n]) => (n > 1 ? `${n} ${type}` : type)).join(', ')}`;
    };
    return [
      shape('post', post(0, orderHash, salt).changes),
      shape('fill', fill(0, fillHash, salt).changes),
      shape('confirm', confirm(fillHash).changes),
      shape('cancel', cancel(orderHash, salt + 'c').changes),
    ];
  };
  return { run, mixedShape };
}

// ---- nodejs-order-book ------------------------------------------------------------------------
function orderBookRun(orders: number, mixed: number): Run {
  const books = Array.from({ length: MARKETS }, () => new OrderBook());
  const price = (i: number) => 30 + (i % LEVELS) / 2;
  const limit = (i: number, id: string) => books[i % MARKETS]!.limit({ side: Side.BUY, id, size: 100, price: price(i) });
  const added = Array.from({ length: orders }, (_, i) => String(i));
  const adds = timed(orders, (i) => limit(i, added[i]!));
  // A sell of 10 against the best buy of a book: partial, one order matched (as the engine's fills).
  const matches = timed(orders / 4, (i) => books[i % MARKETS]!.market({ side: Side.SELL, size: 10 }));
  const cancels = timed(orders, (i) => books[i % MARKETS]!.cancel(added[i]!));
  const loop = Array.from({ length: mixed }, (_, i) => String(orders + i));
  const mixedPhase = timed(
    mixed,
    (i) => {
      limit(i, loop[i]!);
      books[i % MARKETS]!.market({ side: Side.SELL, size: 10 });
      books[i % MARKETS]!.cancel(loop[i]!);
    },
    3,
  );
  return { adds, cancels, matches, mixed: mixedPhase };
}

// Warm-up of both (JIT) on shorter runs, then the measured rounds, each on fresh books.
orderBookRun(ORDERS, MIXED / 4);
engineBench().run(ORDERS, MIXED / 4);
const bookRuns: Run[] = [];
const engineRuns: Run[] = [];
for (let round = 0; round < ROUNDS; round++) {
  if (round % 2 === 0) {
    bookRuns.push(orderBookRun(ORDERS, MIXED));
    engineRuns.push(engineBench().run(ORDERS, MIXED));
  } else {
    engineRuns.push(engineBench().run(ORDERS, MIXED));
    bookRuns.push(orderBookRun(ORDERS, MIXED));
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
const summary = (runs: Run[], name: PhaseName) => {
  const wall = runs.map((r) => r[name].ops / r[name].wallSeconds);
  return {
    rate: median(wall),
    min: Math.min(...wall),
    max: Math.max(...wall),
    cpuRate: median(runs.map((r) => r[name].ops / r[name].cpuSeconds)),
    p99: median(runs.map((r) => r[name].p99)),
  };
};
const k = (x: number) => (x / 1000).toFixed(0).padStart(4) + 'k';
const us = (ms: number) => (ms * 1000).toFixed(1).padStart(6) + ' µs';
const column = (s: ReturnType<typeof summary>) => `${k(s.rate)} (${k(s.min)}-${k(s.max)})  cpu ${k(s.cpuRate)}  p99 ${us(s.p99)}`;

console.log(`${ORDERS} orders over ${MARKETS} books of ${LEVELS} price levels; mixed loop ${MIXED} iterations; ${ROUNDS} rounds` + (gc ? '' : ' (no --expose-gc: no GC between phases)'));
console.log('mixed iteration of the engine (commands and their change records):');
for (const line of engineBench().mixedShape()) console.log('  ' + line);
console.log('ops/s: median over the rounds (range), per CPU-second of the process, p99 per operation (median)');
console.log('operation  nodejs-order-book (baseline)                  oddex engine                                  engine/baseline');
for (const name of ['adds', 'cancels', 'matches', 'mixed'] as const) {
  const b = summary(bookRuns, name);
  const e = summary(engineRuns, name);
  console.log(
    `${name.padEnd(9)}  ${column(b)}    ${column(e)}    rate ${ratio(e.rate, b.rate)}, cpu ${ratio(e.cpuRate, b.cpuRate)}, p99 ${ratio(e.p99, b.p99)}`,
  );
}
