// Measures the engine's live heap per open order, for the order-memory test and bench: orders arrive as parsed JSON
// (fresh strings per order, as over HTTP or from the journal), or come back from a snapshot.
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { Engine, type EngineSnapshot } from '../../src/engine/engine.js';
import { defaultEngineParams, USDC } from './engine-params.js';
import { decodeJson, encodeJson } from '../../src/store/json-codec.js';
import type { MarketRef, NewOrder } from '../../src/engine/types.js';

const E18 = 10n ** 18n;
const TOKEN = '0x00000000000000000000000000000000000000c1';
const EXECUTOR = '0x00000000000000000000000000000000000000e1';
const MAKERS = Array.from({ length: 20 }, (_, i) => '0x' + 'a'.repeat(30) + i.toString(16).padStart(10, '0'));
const MARKETS: MarketRef[] = Array.from({ length: 10 }, (_, m) => ({
  marketHash: '0x' + (m + 1).toString(16).padStart(64, '0'),
  exchangeEventId: `ev${m}`,
  tradeable: true,
}));

function collect(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/** An order as a client would send it: a 66-character hash, a 77-digit salt and a 132-character signature. */
function orderJson(i: number): string {
  const m = MARKETS[i % MARKETS.length]!;
  return JSON.stringify({
    orderHash: '0x' + i.toString(16).padStart(64, '0'),
    marketHash: m.marketHash,
    maker: MAKERS[i % MAKERS.length],
    baseToken: TOKEN,
    executor: EXECUTOR,
    totalBetSize: String(10n * USDC + BigInt(i % 7) * USDC),
    percentageOdds: String(40n * E18 + BigInt(i % 16) * (E18 / 8n)),
    expiry: 2_000_000_000,
    apiExpiry: 2_000_000_000,
    salt: (10n ** 76n + BigInt(i) * 7919n).toString(),
    isMakerBettingOutcomeOne: i % 2 === 0,
    signature: '0x' + (i % 256).toString(16).padStart(2, '0').repeat(65),
  });
}

/** The heap in use after full collections. */
export function heapUsedAfterCollection(): number {
  const gc = collect();
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** An engine holding `count` open orders over 10 markets and 20 makers, posted in commands of 100. */
export function engineWithOpenOrders(count: number): Engine {
  const engine = new Engine(defaultEngineParams(TOKEN));
  const at = 1_700_000_000_000;
  for (const maker of MAKERS) engine.apply({ kind: 'faucet', at, address: maker, amount: 10n ** 40n });
  for (let i = 0; i < count; i += 100) {
    const orders: NewOrder[] = [];
    for (let j = i; j < Math.min(count, i + 100); j++) {
      const o = JSON.parse(orderJson(j)) as Omit<NewOrder, 'totalBetSize' | 'percentageOdds'> & { totalBetSize: string; percentageOdds: string };
      orders.push({ ...o, totalBetSize: BigInt(o.totalBetSize), percentageOdds: BigInt(o.percentageOdds) });
    }
    engine.apply({ kind: 'postOrders', at: at + i, orders, markets: MARKETS });
  }
  return engine;
}

/**
 * A snapshot's bytes, built in a frame of its own: a temporary left in the measuring function's registers would keep
 * the engine that wrote it alive through the first measurement.
 */
function storedSnapshot(count: number): Buffer {
  return Buffer.from(encodeJson(engineWithOpenOrders(count).snapshot()));
}

/** An engine restored from a snapshot's bytes; the decoded text and rows die with this frame. */
function restoreFrom(stored: Buffer): Engine {
  return Engine.restore(defaultEngineParams(TOKEN), decodeJson<EngineSnapshot>(stored.toString()));
}

/** Live heap bytes per open order, measured after full collections. */
export function heapPerOrder(count: number, how: 'posted' | 'restored'): number {
  const gc = collect();
  // The snapshot waits outside the heap, as the store's bytes would; its decoded text is garbage once restored.
  const stored = how === 'restored' ? storedSnapshot(count) : undefined;
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  const engine = stored ? restoreFrom(stored) : engineWithOpenOrders(count);
  gc();
  gc();
  const after = process.memoryUsage().heapUsed;
  if (engine.openOrderCount() !== count) throw new Error(`expected ${count} open orders, found ${engine.openOrderCount()}`);
  return (after - before) / count;
}
