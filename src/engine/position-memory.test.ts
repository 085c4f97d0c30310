// A position is four running sums: the engine's state per bettor and market does not grow with the trades in it,
// a report pays the same as before and the read side splits it per trade, and snapshots written when positions
// held every trade still load to the same state.
import { describe, expect, it } from 'vitest';
import { Engine, type EngineSnapshot } from './engine.js';
import { NaiveProjection } from './projection.js';
import { defaultEngineParams, USDC } from '../../test/helpers/engine-params.js';
import { decodeJson, encodeJson } from '../store/json-codec.js';
import type { Command, MarketRef } from './types.js';

const E18 = 10n ** 18n;
const TOKEN = '0x00000000000000000000000000000000000000C1';
const MAKER = '0x00000000000000000000000000000000000000A1';
const TAKER = '0x00000000000000000000000000000000000000B1';
const MARKET: MarketRef = { marketHash: '0x' + '5'.repeat(64), exchangeEventId: 'ev5', tradeable: true };
const hash = (p: string, i: number) => '0x' + p + i.toString(16).padStart(63, '0');
const START = 1_700_000_000_000;
// Small windows, so that only positions could grow with the number of trades.
const params = { ...defaultEngineParams(TOKEN), recentFillWindow: 8, recentClosedOrderWindow: 8 };

/** A maker quoting both sides of one market with large orders and a taker hitting them in turn (refunds on the way). */
function trading() {
  const engine = new Engine(params);
  const projection = new NaiveProjection();
  const journal: Command[] = [];
  let at = START;
  const apply = (cmd: Command) => {
    const r = engine.apply(cmd);
    projection.apply(r.changes);
    journal.push(cmd);
    return r;
  };
  for (const a of [MAKER, TAKER]) apply({ kind: 'faucet', at, address: a, amount: 10n ** 15n * USDC });
  apply({
    kind: 'postOrders',
    at: ++at,
    markets: [MARKET],
    orders: [true, false].map((one, i) => ({
      orderHash: hash('a', i),
      marketHash: MARKET.marketHash,
      maker: MAKER,
      baseToken: TOKEN,
      executor: TOKEN,
      totalBetSize: 10n ** 12n * USDC,
      percentageOdds: (one ? 48n : 47n) * E18 + 3n,
      expiry: 2_000_000_000,
      apiExpiry: 2_000_000_000,
      salt: String(i),
      isMakerBettingOutcomeOne: one,
      signature: '0x',
    })),
  });
  let n = 0;
  const trade = (rounds: number) => {
    for (let end = n + rounds; n < end; n++) {
      apply({
        kind: 'fill',
        at: ++at,
        fillHash: hash('f', n),
        market: MARKET,
        taker: TAKER,
        baseToken: TOKEN,
        isTakerBettingOutcomeOne: n % 3 === 0,
        stakeWei: USDC + BigInt(n * 7919),
        desiredOdds: 50n * E18,
        oddsSlippage: 10,
        fillSalt: String(n),
      });
      apply({ kind: 'confirmFill', at: ++at, fillHash: hash('f', n) });
    }
  };
  return { engine, projection, journal, trade, apply, at: () => ++at };
}

const size = (e: Engine) => encodeJson(e.snapshot()).length;

describe('positions', () => {
  it("keep a bettor's state in a market constant over 2,000 trades (the snapshot grows by digits only)", () => {
    const { engine, projection, trade } = trading();
    trade(100);
    const after100 = size(engine);
    trade(1900);
    const after2000 = size(engine);
    expect([...projection.trades.values()].filter((t) => t.status === 'SUCCESS')).toHaveLength(4000);
    expect(projection.refunds.length).toBeGreaterThan(100);
    // Per-trade entries would add at least 60 characters per trade (over 200k here); longer numbers add a few.
    expect(after2000 / after100).toBeLessThan(1.05);
    expect(engine.snapshot().positions).toHaveLength(2);
  });

  it('settle to the wei the old per-trade way would, and split each payment over the recorded trades', () => {
    const { engine, projection, trade, apply, at } = trading();
    trade(300);
    const before = [MAKER, TAKER].map((a) => engine.ledger.balanceOf(a));
    const escrow = [MAKER, TAKER].map((a) => engine.ledger.escrowIn(a, MARKET.marketHash));
    const refunded = [MAKER, TAKER].map((a) => projection.refunds.filter((r) => r.bettor === a).reduce((s, r) => s + r.amount, 0n));
    const { changes } = apply({ kind: 'reportMarkets', at: at(), reports: [{ marketHash: MARKET.marketHash, outcome: 1 }] });
    [MAKER, TAKER].forEach((bettor, i) => {
      const trades = [...projection.trades.values()].filter((t) => t.bettor === bettor);
      // The old way: every trade's payout summed, less the refunds paid early.
      const payout = trades.reduce((s, t) => s + (t.bettingOutcomeOne ? t.stake + t.counterStake : 0n), 0n);
      const paid = engine.ledger.balanceOf(bettor) - before[i]!;
      expect(paid).toBe(payout - refunded[i]!);
      expect(changes.find((c) => c.type === 'positionSettled' && c.bettor === bettor)).toMatchObject({ payout, credit: paid });
      expect(trades.every((t) => t.settled && t.credit! >= 0n && t.credit! <= t.payout!)).toBe(true);
      expect(trades.reduce((s, t) => s + t.credit!, 0n)).toBe(paid);
      expect(engine.ledger.escrowIn(bettor, MARKET.marketHash)).toBe(0n);
      expect(escrow[i]! > 0n).toBe(true);
    });
  });

  it('load from snapshots that held every trade of a position, to the same state and the same settlement', () => {
    const { engine, projection, trade } = trading();
    trade(150);
    const snap = engine.snapshot();
    // The format written before: each confirmed, unsettled trade of the position.
    const legacy: EngineSnapshot = {
      ...snap,
      positions: snap.positions.map((p) => ({
        market: p.market,
        bettor: p.bettor,
        trades: [...projection.trades.values()]
          .filter((t) => t.marketHash === p.market && t.bettor === p.bettor && t.status === 'SUCCESS' && !t.settled)
          .map((t) => ({ id: t.id, fillHash: t.fillHash, stake: t.stake, counterStake: t.counterStake, bettingOutcomeOne: t.bettingOutcomeOne })),
      })),
    };
    expect(encodeJson(legacy)).not.toBe(encodeJson(snap));
    const restored = Engine.restore(params, decodeJson<EngineSnapshot>(encodeJson(legacy)));
    expect(encodeJson(restored.snapshot())).toBe(encodeJson(snap));
    const report: Command = { kind: 'reportMarkets', at: START + 10_000_000, reports: [{ marketHash: MARKET.marketHash, outcome: 2 }] };
    expect(encodeJson(restored.apply(report).changes)).toBe(encodeJson(engine.apply(report).changes));
  });
});
