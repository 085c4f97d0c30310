// What the engine keeps must follow what is live, not history: queued expiries of closed orders are dropped in
// bulk, and cancel salts past the timestamp window are forgotten, while expiries still fire for open orders. The
// window of recently closed orders (replay protection for reposts) stays at its size, entries of its expiry queue included.
import { describe, expect, it } from 'vitest';
import { Engine } from './engine.js';
import { defaultEngineParams, USDC } from '../../test/helpers/engine-params.js';
import type { Command, MarketRef, NewOrder } from './types.js';

const E18 = 10n ** 18n;
const MAKER = '0x00000000000000000000000000000000000000A1';
const TOKEN = '0x00000000000000000000000000000000000000C1';
const MARKET: MarketRef = { marketHash: '0x' + '3'.repeat(64), exchangeEventId: 'ev3', tradeable: true };
const hash = (i: number) => '0x' + i.toString(16).padStart(64, '0');
const START = 1_700_000_000_000;

const order = (i: number, expiry: number): NewOrder => ({
  orderHash: hash(i),
  marketHash: MARKET.marketHash,
  maker: MAKER,
  baseToken: TOKEN,
  executor: TOKEN,
  totalBetSize: 10n * USDC,
  percentageOdds: 40n * E18 + BigInt(i % 8) * (E18 / 8n),
  expiry,
  apiExpiry: expiry,
  salt: String(i),
  isMakerBettingOutcomeOne: true,
  signature: '0x',
});

describe('engine memory follows live state', () => {
  it('keeps queued expiries within twice the open orders (plus a constant) over 6,000 post-and-cancels', () => {
    const engine = new Engine(defaultEngineParams(TOKEN));
    let at = START;
    const apply = (cmd: Command) => engine.apply(cmd);
    apply({ kind: 'faucet', at, address: MAKER, amount: 10n ** 30n });
    // Ten orders stay open with an early expiry; thousands more are posted and cancelled.
    const earlyExpiry = Math.floor(START / 1000) + 3600;
    apply({ kind: 'postOrders', at: ++at, markets: [MARKET], orders: Array.from({ length: 10 }, (_, i) => order(i, earlyExpiry)) });
    let maxQueued = 0;
    for (let i = 10; i < 6010; i++) {
      apply({ kind: 'postOrders', at: ++at, markets: [MARKET], orders: [order(i, 2_000_000_000 + i)] });
      apply({ kind: 'cancelOrders', at: ++at, maker: MAKER, salt: `s${i}`, timestamp: Math.floor(at / 1000), orderHashes: [hash(i)] });
      maxQueued = Math.max(maxQueued, engine.stats().queuedExpiries);
    }
    expect(maxQueued).toBeLessThanOrEqual(2 * 11 + 1024 + 1);
    expect(engine.openOrderCount()).toBe(10);
    // The ten open orders still expire on time.
    expect(engine.nextExpiryAt()).toBe(earlyExpiry * 1000);
    const { changes } = apply({ kind: 'expire', at: earlyExpiry * 1000 });
    expect(changes.filter((c) => c.type === 'orderChanged' && c.state.status === 'EXPIRED')).toHaveLength(10);
    expect(engine.openOrderCount()).toBe(0);
  });

  it('keeps the closed-order window and its expiry queue at their bound over 6,000 post-and-cancels, refusing recent reposts', () => {
    const WINDOW = 100;
    const engine = new Engine({ ...defaultEngineParams(TOKEN), recentClosedOrderWindow: WINDOW });
    let at = START;
    engine.apply({ kind: 'faucet', at, address: MAKER, amount: 10n ** 30n });
    let maxClosed = 0;
    let maxQueued = 0;
    for (let i = 0; i < 6000; i++) {
      // Expiries far ahead: only the window's size can drop a closed order here, never its expiry.
      engine.apply({ kind: 'postOrders', at: ++at, markets: [MARKET], orders: [order(i, 2_000_000_000 + i)] });
      engine.apply({ kind: 'cancelOrders', at: ++at, maker: MAKER, salt: `c${i}`, timestamp: Math.floor(at / 1000), orderHashes: [hash(i)] });
      const { closedOrders, queuedClosedOrderExpiries } = engine.stats();
      maxClosed = Math.max(maxClosed, closedOrders);
      maxQueued = Math.max(maxQueued, queuedClosedOrderExpiries);
    }
    expect(maxClosed).toBe(WINDOW);
    expect(maxQueued).toBeLessThanOrEqual(2 * WINDOW + 1024 + 1);
    expect(engine.openOrderCount()).toBe(0);
    // The newest closed order is still known (a repost is refused), the oldest has left the window.
    const repost = (i: number) => void engine.apply({ kind: 'postOrders', at: ++at, markets: [MARKET], orders: [order(i, 2_000_000_000 + i)] });
    repost(5999);
    expect(engine.openOrderCount()).toBe(0);
    repost(0);
    expect(engine.openOrderCount()).toBe(1);
  });
});
