// Packed open orders in snapshots: the packed snapshot and a snapshot in the former object format restore to the
// same engine, with pending fills, partial fills and shared values intact.
import { describe, expect, it } from 'vitest';
import { Engine, type EngineSnapshot } from './engine.js';
import { defaultEngineParams, USDC } from '../../test/helpers/engine-params.js';
import type { MarketRef, Order } from './types.js';
import { decodeJson, encodeJson } from '../store/json-codec.js';
import { unpackOrders, type PackedOrders } from './order-pack.js';

const E18 = 10n ** 18n;
const ADDRS = [1, 2, 3].map((i) => '0x' + i.toString(16).padStart(40, '0'));
const hash = (prefix: string, i: number) => '0x' + prefix + i.toString(16).padStart(63, '0');
const MARKETS: MarketRef[] = [1, 2].map((i) => ({ marketHash: hash('a', i), exchangeEventId: `e${i}`, tradeable: true }));

describe('packed orders in snapshots', () => {
  it('restores the same engine from the packed and from the former object format', () => {
    const params = defaultEngineParams(ADDRS[0]!);
    const engine = new Engine(params);
    for (const address of ADDRS) engine.apply({ kind: 'faucet', at: 1000, address, amount: 10_000n * USDC });
    for (let i = 0; i < 30; i++) {
      engine.apply({
        kind: 'postOrders',
        at: 2000 + i,
        markets: MARKETS,
        orders: [
          {
            orderHash: hash('b', i),
            marketHash: MARKETS[i % 2]!.marketHash,
            maker: ADDRS[i % 2]!,
            baseToken: ADDRS[0]!,
            executor: ADDRS[0]!,
            totalBetSize: BigInt(10 + i) * USDC + 7n,
            percentageOdds: BigInt(40 + (i % 5)) * E18,
            expiry: 2_000_000_000,
            apiExpiry: 1_900_000_000 + i,
            salt: String(i),
            isMakerBettingOutcomeOne: i % 3 === 0,
            signature: '0x' + 'ab'.repeat(65),
          },
        ],
      });
    }
    // A pending fill and an executed one: partially filled orders, pending amounts on orders.
    const fill = (fillHash: string, at: number) =>
      engine.apply({
        kind: 'fill',
        at,
        fillHash,
        market: MARKETS[0]!,
        taker: ADDRS[2]!,
        baseToken: ADDRS[0]!,
        isTakerBettingOutcomeOne: false,
        stakeWei: 25n * USDC,
        desiredOdds: 50n * E18,
        oddsSlippage: 50,
        fillSalt: fillHash,
      });
    fill(hash('c', 1), 5000);
    engine.apply({ kind: 'confirmFill', at: 5001, fillHash: hash('c', 1) });
    fill(hash('c', 2), 5002);

    const packed = decodeJson<EngineSnapshot>(encodeJson(engine.snapshot()));
    expect(Array.isArray(packed.orders)).toBe(false);
    const orders = unpackOrders(packed.orders as PackedOrders);
    expect(orders.some((o) => o.pendingFills.size > 0 && o.fillAmount > 0n)).toBe(true);
    expect(orders.map((o) => engine.order(o.orderHash)?.fillAmount)).toEqual(orders.map((o) => o.fillAmount));
    // Values many orders share are written once.
    expect((packed.orders as PackedOrders).shared).toHaveLength(6); // 2 markets, 2 events, 2 makers (the first is also token and executor)

    const legacy: EngineSnapshot = {
      ...packed,
      orders: orders.map((o: Order) => ({ ...o, pendingFills: [...o.pendingFills] })),
    };
    const fromPacked = Engine.restore(params, packed);
    const fromLegacy = Engine.restore(params, decodeJson<EngineSnapshot>(encodeJson(legacy)));
    expect(encodeJson(fromPacked.snapshot())).toBe(encodeJson(engine.snapshot()));
    expect(encodeJson(fromLegacy.snapshot())).toBe(encodeJson(engine.snapshot()));
    expect(fromLegacy.bestMakerOdds(MARKETS[0]!.marketHash, true, 6000)).toBe(engine.bestMakerOdds(MARKETS[0]!.marketHash, true, 6000));
  });
});
