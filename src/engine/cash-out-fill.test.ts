// The engine's cash-out fill: refusals that need the engine's own state (a cash out already waiting for the chain),
// and a cash out that survives a snapshot: the amount paid early is netted at settlement after a restore.
import { describe, expect, it } from 'vitest';
import { Engine } from './engine.js';
import { refusalOf } from '../../test/helpers/engine-parts.js';
import { decodeJson, encodeJson } from '../store/json-codec.js';
import { defaultEngineParams, USDC } from '../../test/helpers/engine-params.js';
import type { Command, MarketRef, NewOrder } from './types.js';
import type { EngineSnapshot } from './snapshot.js';

const TOKEN = '0x00000000000000000000000000000000000000C1';
const [M, T, H] = ['0x00000000000000000000000000000000000000A1', '0x00000000000000000000000000000000000000B1', '0x00000000000000000000000000000000000000A2'];
const FEES = '0x00000000000000000000000000000000000000FE';
const MARKET: MarketRef = { marketHash: '0x' + '1'.repeat(64), exchangeEventId: 'ev1', tradeable: true };
const E18 = 10n ** 18n;
const CASH_OUT = { feeBps: 100, feeAccount: FEES, affiliateShareBps: 0 };

let n = 0;
const order = (maker: string, isMakerBettingOutcomeOne: boolean, percent: bigint, size: bigint): NewOrder => ({
  orderHash: '0x' + (++n).toString(16).padStart(64, '0'),
  marketHash: MARKET.marketHash,
  maker,
  baseToken: TOKEN,
  executor: TOKEN,
  totalBetSize: size,
  percentageOdds: percent * E18,
  expiry: 2_000_000_000,
  apiExpiry: 2_000_000_000,
  salt: String(n),
  isMakerBettingOutcomeOne,
  signature: '0x',
});

/** T backs outcome one with 30 against M's 20 (owed 50 if it wins); H offers outcome one at 80%. */
function opening() {
  const engine = new Engine(defaultEngineParams(TOKEN));
  const run = (cmd: Command) => engine.apply(cmd);
  for (const a of [M, T, H]) run({ kind: 'faucet', at: 1, address: a, amount: 100n * USDC });
  run({ kind: 'postOrders', at: 1, orders: [order(M, false, 40n, 20n * USDC)], markets: [MARKET] });
  const fill = (stakeWei: bigint, one: boolean, desired: bigint, cashOut = false) => {
    const fillHash = '0x' + (++n).toString(16).padStart(64, 'f');
    run({
      kind: 'fill', at: 2, fillHash, market: MARKET, taker: T, baseToken: TOKEN, isTakerBettingOutcomeOne: one, stakeWei, desiredOdds: desired * E18,
      oddsSlippage: 0, fillSalt: fillHash, ...(cashOut ? { cashOut: CASH_OUT } : {}),
    });
    return fillHash;
  };
  run({ kind: 'confirmFill', at: 2, fillHash: fill(30n * USDC, true, 60n) });
  run({ kind: 'postOrders', at: 3, orders: [order(H, true, 80n, 100n * USDC)], markets: [MARKET] });
  return { engine, run, fill };
}

describe('cash-out fills in the engine', () => {
  it('refuses a second cash out (and its quote) while one waits for the chain, a larger hedge than the position needs, the wrong side', () => {
    const { engine, run, fill } = opening();
    expect(refusalOf(() => fill(11n * USDC, false, 20n, true))).toBe('CASHOUT_STAKE_TOO_HIGH');
    expect(refusalOf(() => fill(5n * USDC, true, 1n, true))).toBe('CASHOUT_WRONG_SIDE');
    const first = fill(5n * USDC, false, 20n, true);
    expect(refusalOf(() => fill(5n * USDC, false, 20n, true))).toBe('CASHOUT_PENDING');
    // Nor is one quoted meanwhile: its hedge would not be the one the position needs once the first confirms.
    expect(refusalOf(() => engine.cashOutQuote(MARKET.marketHash, T, 3))).toBe('CASHOUT_PENDING');
    run({ kind: 'confirmFill', at: 4, fillHash: first });
    expect(engine.cashOutQuote(MARKET.marketHash, T, 4).stakeWei).toBe(5n * USDC);
    // Owed 50 on one, 25 on two, 35 on a void: 25 at once, less 1% of the 20 the hedge is worth.
    expect(engine.ledger.balanceOf(T)).toBe(100n * USDC - 35n * USDC + 25n * USDC - 200_000n);
    expect(engine.ledger.balanceOf(FEES)).toBe(200_000n);
    expect(refusalOf(() => fill(5n * USDC, false, 20n, true))).toBe('accepted');
  });

  it('nets what a cash out paid at settlement after a snapshot and restore, and refunds nothing after it', () => {
    const { engine, run, fill } = opening();
    run({ kind: 'confirmFill', at: 4, fillHash: fill(5n * USDC, false, 20n, true) });
    const restored = Engine.restore(defaultEngineParams(TOKEN), decodeJson<EngineSnapshot>(encodeJson(engine.snapshot())));
    expect(encodeJson(restored.snapshot())).toBe(encodeJson(engine.snapshot()));
    expect(engine.snapshot().cashedOut).toEqual([[MARKET.marketHash, [[T, 25n * USDC]]]]);
    // An ordinary hedge of the rest: no refund (the position is flat, 40 staked, 25 of it paid already).
    const fillHash = '0x' + 'e'.repeat(64);
    restored.apply({
      kind: 'fill', at: 5, fillHash, market: MARKET, taker: T, baseToken: TOKEN, isTakerBettingOutcomeOne: false, stakeWei: 5n * USDC, desiredOdds: 20n * E18,
      oddsSlippage: 0, fillSalt: 'x',
    });
    const { changes } = restored.apply({ kind: 'confirmFill', at: 5, fillHash });
    expect(changes.filter((c) => c.type === 'refundPaid')).toEqual([]);
    expect(restored.ledger.escrowIn(T, MARKET.marketHash)).toBe(15n * USDC);
    restored.apply({ kind: 'reportMarkets', at: 6, reports: [{ marketHash: MARKET.marketHash, outcome: 1 }] });
    // 50 owed, 25 paid at once: 25 more. From 100: -30 -5 +24.8 -5 +25.
    expect(restored.ledger.balanceOf(T)).toBe(109_800_000n);
    expect(restored.snapshot().cashedOut).toBeUndefined();
    expect([M, T, H, FEES].reduce((s, a) => s + restored.ledger.balanceOf(a) + restored.ledger.escrowOf(a), 0n)).toBe(300n * USDC);
  });

  it('pays no refund while a cash out of the position waits for the chain, across a snapshot: the cash out nets none', () => {
    const { engine, run, fill } = opening();
    // An ordinary hedge of 5 (returning 25) waits, then a cash out of 5 more.
    const ordinary = fill(5n * USDC, false, 20n);
    const cashOut = fill(5n * USDC, false, 20n, true);
    const restored = Engine.restore(defaultEngineParams(TOKEN), decodeJson<EngineSnapshot>(encodeJson(engine.snapshot())));
    for (const e of [engine, restored]) {
      // Alone, the ordinary hedge would free 25 of escrow (owed 50 on one, 25 on two, 35 staked): it waits for the cash out.
      const { changes } = e.apply({ kind: 'confirmFill', at: 4, fillHash: ordinary });
      expect(changes.filter((c) => c.type === 'refundPaid')).toEqual([]);
      expect(e.ledger.balanceOf(T)).toBe(65n * USDC);
      // The cash out then pays what every result owes: 50 on one or two, 40 on a void; 1% of the 45 it is worth.
      e.apply({ kind: 'confirmFill', at: 5, fillHash: cashOut });
      expect([e.ledger.balanceOf(T), e.ledger.balanceOf(FEES)]).toEqual([65n * USDC - 5n * USDC + 40n * USDC - 450_000n, 450_000n]);
      expect(e.snapshot().cashedOut).toEqual([[MARKET.marketHash, [[T, 40n * USDC]]]]);
    }
    run({ kind: 'reportMarkets', at: 6, reports: [{ marketHash: MARKET.marketHash, outcome: 2 }] });
    // Outcome two pays 50: 40 paid at once, 10 now (no commission on this report).
    expect(engine.ledger.balanceOf(T)).toBe(109_550_000n);
  });

  it('pays the refund that waited when the cash out fails', () => {
    const { engine, run, fill } = opening();
    const ordinary = fill(5n * USDC, false, 20n);
    const cashOut = fill(5n * USDC, false, 20n, true);
    run({ kind: 'confirmFill', at: 4, fillHash: ordinary });
    expect(engine.ledger.balanceOf(T)).toBe(65n * USDC);
    // T's funds leave the wallet before the cash out executes: it fails, and the 25 the ordinary hedge freed is paid.
    run({ kind: 'chainEvents', at: 5, toBlock: 1, entries: [{ kind: 'wallet', address: T, delta: -61n * USDC }] });
    const { changes } = run({ kind: 'confirmFill', at: 5, fillHash: cashOut });
    expect(changes.filter((c) => c.type === 'fillExecuted').map((c) => c.type === 'fillExecuted' && c.status)).toEqual(['FAILED']);
    expect(changes.flatMap((c) => (c.type === 'refundPaid' ? [[c.refund.bettor, c.refund.amount, c.refund.fillOrderHash]] : []))).toEqual([[T, 25n * USDC, cashOut]]);
    expect([engine.ledger.balanceOf(T), engine.ledger.escrowIn(T, MARKET.marketHash)]).toEqual([29n * USDC, 10n * USDC]);
  });
});
