import { describe, expect, it } from 'vitest';
import { Engine, splitQuarterLine } from './engine.js';
import type { DomainError } from './errors.js';
import { NaiveProjection } from './projection.js';
import { defaultEngineParams, USDC } from '../../test/helpers/engine-params.js';
import { type ChainEntry, type Command, type MarketRef, type NewOrder } from './types.js';

const MAKER = '0x00000000000000000000000000000000000000A1';
const MAKER2 = '0x00000000000000000000000000000000000000A2';
const TAKER = '0x00000000000000000000000000000000000000B1';
const TOKEN = '0x00000000000000000000000000000000000000C1';
const M1: MarketRef = { marketHash: '0x' + '1'.repeat(64), exchangeEventId: 'ev1', tradeable: true };

const params = defaultEngineParams(TOKEN);

let n = 0;
function order(over: Partial<NewOrder> = {}): NewOrder {
  n++;
  return {
    orderHash: '0x' + n.toString(16).padStart(64, '0'),
    marketHash: M1.marketHash,
    maker: MAKER,
    baseToken: TOKEN,
    executor: TOKEN,
    totalBetSize: 100n * USDC,
    percentageOdds: 40n * 10n ** 18n,
    expiry: 2_000_000_000,
    apiExpiry: 2_000_000_000,
    salt: String(n),
    isMakerBettingOutcomeOne: true,
    signature: '0x',
    ...over,
  };
}

function setup() {
  const engine = new Engine(params);
  const projection = new NaiveProjection();
  const journal: Command[] = [];
  const run = (cmd: Command) => {
    const r = engine.apply(cmd);
    projection.apply(r.changes);
    journal.push(cmd);
    return r.result;
  };
  run({ kind: 'faucet', at: 1000, address: MAKER, amount: 1000n * USDC });
  run({ kind: 'faucet', at: 1000, address: MAKER2, amount: 1000n * USDC });
  run({ kind: 'faucet', at: 1000, address: TAKER, amount: 1000n * USDC });
  /** An order as the engine holds it or, once closed and evicted, as its change records left it. */
  const order_ = (hash: string) => engine.order(hash) ?? projection.orders.get(hash);
  return { engine, run, journal, projection, order_ };
}

const fill = (over: Partial<Extract<Command, { kind: 'fill' }>> = {}): Command => ({
  kind: 'fill',
  at: 2000,
  fillHash: '0xf' + String(++n).padStart(63, '0'),
  market: M1,
  taker: TAKER,
  baseToken: TOKEN,
  isTakerBettingOutcomeOne: false,
  stakeWei: 30n * USDC,
  desiredOdds: 60n * 10n ** 18n,
  oddsSlippage: 0,
  fillSalt: String(++n),
  ...over,
});

describe('engine matching and settlement', () => {
  it('fills a maker order at its odds, exact to the wei, and settles the winner', () => {
    const { engine, run, order_ } = setup();
    const o = order();
    expect(run({ kind: 'postOrders', at: 1500, orders: [o], markets: [M1] })).toEqual({
      kind: 'postOrders',
      statuses: [{ orderHash: o.orderHash, status: 'OK' }],
    });
    expect(engine.exposureOf(MAKER)).toBe(100n * USDC);

    // Taker stakes 30 USDC on outcome two against maker odds 40%: maker risks 30 * 0.4 / 0.6 = 20 USDC.
    const f = fill();
    const r = run(f);
    expect(r).toEqual({
      kind: 'fill',
      fill: { fillHash: (f as { fillHash: string }).fillHash, isPartialFill: false, totalFilled: 30n * USDC, averageOdds: 60n * 10n ** 18n },
    });
    let stored = order_(o.orderHash)!;
    expect([stored.fillAmount, stored.pendingFillAmount, stored.status]).toEqual([0n, 20n * USDC, 'ACTIVE']);
    expect(engine.freeBalance(TAKER)).toBe(970n * USDC);

    run({ kind: 'confirmFill', at: 3000, fillHash: (f as { fillHash: string }).fillHash });
    stored = order_(o.orderHash)!;
    expect([stored.fillAmount, stored.pendingFillAmount]).toEqual([20n * USDC, 0n]);
    expect(engine.ledger.balanceOf(MAKER)).toBe(980n * USDC);
    expect(engine.ledger.balanceOf(TAKER)).toBe(970n * USDC);
    expect(engine.ledger.escrowOf(TAKER)).toBe(30n * USDC);
    expect(engine.exposureOf(MAKER)).toBe(80n * USDC);

    run({ kind: 'reportMarkets', at: 4000, reports: [{ marketHash: M1.marketHash, outcome: 2 }] });
    expect(engine.ledger.balanceOf(TAKER)).toBe(1020n * USDC);
    expect(engine.ledger.balanceOf(MAKER)).toBe(980n * USDC);
    stored = order_(o.orderHash)!;
    expect(stored.status).toBe('CANCELLED');
    expect(engine.exposureOf(MAKER)).toBe(0n);
    expect(engine.ledger.total()).toBe(engine.ledger.minted);
  });

  it('cancelMarketOrders cancels the open orders of the listed markets only; a pending fill still settles', () => {
    const { engine, run, order_ } = setup();
    const M2: MarketRef = { marketHash: '0x' + '2'.repeat(64), exchangeEventId: 'ev1', tradeable: true };
    const [a, b, other] = [order(), order({ isMakerBettingOutcomeOne: false, percentageOdds: 50n * 10n ** 18n }), order({ marketHash: M2.marketHash })];
    run({ kind: 'postOrders', at: 1500, orders: [a!, b!, other!], markets: [M1, M2] });
    const f = fill();
    run(f);
    expect(engine.exposureOf(MAKER)).toBe(300n * USDC);

    run({ kind: 'cancelMarketOrders', at: 2500, marketHashes: [M1.marketHash] });
    expect([a, b, other].map((o) => order_(o!.orderHash)!.status)).toEqual(['CANCELLED', 'CANCELLED', 'ACTIVE']);
    // What stays committed: the order on the other market and the 20 USDC of maker space the pending fill holds.
    expect(engine.exposureOf(MAKER)).toBe(120n * USDC);
    expect(engine.bestMakerOdds(M1.marketHash, true)).toBeUndefined();
    run({ kind: 'confirmFill', at: 3000, fillHash: (f as { fillHash: string }).fillHash });
    expect(order_(a!.orderHash)!.fillAmount).toBe(20n * USDC);
    expect(engine.exposureOf(MAKER)).toBe(100n * USDC);
    expect(engine.ledger.escrowOf(MAKER)).toBe(20n * USDC);
  });

  it('matches best taker odds first, then oldest, and reports a partial fill', () => {
    const { run, projection, order_ } = setup();
    const worse = order({ percentageOdds: 50n * 10n ** 18n, totalBetSize: 10n * USDC });
    const bestOld = order({ percentageOdds: 40n * 10n ** 18n, totalBetSize: 10n * USDC });
    const bestNew = order({ percentageOdds: 40n * 10n ** 18n, totalBetSize: 10n * USDC, maker: MAKER2 });
    run({ kind: 'postOrders', at: 1500, orders: [worse, bestOld, bestNew], markets: [M1] });
    const r = run(fill({ stakeWei: 1000n * USDC, desiredOdds: 50n * 10n ** 18n }));
    if (r.kind !== 'fill') throw new Error();
    // 15 + 15 USDC of taker space at 40%, then 10 at 50%: 40 USDC staked against 30 of maker space.
    expect(r.fill.totalFilled).toBe(40n * USDC);
    expect(r.fill.isPartialFill).toBe(true);
    // Stake-weighted: (15 * 60% + 15 * 60% + 10 * 50%) / 40 = 57.5%.
    expect(r.fill.averageOdds).toBe(575n * 10n ** 17n);
    const fillRecord = [...projection.fills.values()][0]!;
    expect(fillRecord.matches.map((m) => [m.orderHash, m.takerStake, m.makerStake])).toEqual([
      [bestOld.orderHash, 15n * USDC, 10n * USDC],
      [bestNew.orderHash, 15n * USDC, 10n * USDC],
      [worse.orderHash, 10n * USDC, 10n * USDC],
    ]);
    expect(order_(bestOld.orderHash)!.status).toBe('INACTIVE');
  });

  it('rejects without changing state: slippage, no space, reused salt, reported market', () => {
    const { engine, run } = setup();
    run({ kind: 'postOrders', at: 1500, orders: [order({ percentageOdds: 50n * 10n ** 18n })], markets: [M1] });
    const before = JSON.stringify(engine.openOrdersIn(M1.marketHash), (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
    const code = (cmd: Command) => {
      try {
        engine.apply(cmd);
        return 'applied';
      } catch (e) {
        return (e as DomainError).errorCode;
      }
    };
    // Taker odds 50% against desired 60% with 10% slippage: bound 54% > 50%.
    expect(code(fill({ oddsSlippage: 10 }))).toBe('INVALID_ODDS_SLIPPAGE');
    expect(code(fill({ isTakerBettingOutcomeOne: true }))).toBe('INSUFFICIENT_SPACE');
    expect(code(fill({ desiredOdds: 50n * 10n ** 18n, taker: '0x00000000000000000000000000000000000000D1' }))).toBe('INSUFFICIENT_BALANCE');
    const after = JSON.stringify(engine.openOrdersIn(M1.marketHash), (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
    expect(after).toBe(before);
    const ok = fill({ desiredOdds: 50n * 10n ** 18n, fillSalt: 'same' });
    run(ok);
    expect(code(fill({ desiredOdds: 50n * 10n ** 18n, fillSalt: 'same' }))).toBe('FILL_ALREADY_SUBMITTED');
    run({ kind: 'reportMarkets', at: 3000, reports: [{ marketHash: M1.marketHash, outcome: 0 }] });
    expect(code(fill({ desiredOdds: 50n * 10n ** 18n }))).toBe('MARKET_NOT_TRADEABLE');
  });

  describe('fillOrKill and minStakeWei', () => {
    const snap = (engine: Engine) => JSON.stringify(engine.snapshot(), (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
    const refusal = (engine: Engine, cmd: Command) => {
      try {
        engine.apply(cmd);
        return 'applied';
      } catch (e) {
        return (e as DomainError).errorCode;
      }
    };
    /** One maker order of 100 USDC at 40%: 150 USDC of taker space at 60%. */
    const book = () => {
      const s = setup();
      s.run({ kind: 'postOrders', at: 1500, orders: [order()], markets: [M1] });
      return s;
    };
    const TAKER_SPACE = 150n * USDC;

    it('fillOrKill refuses a stake the book cannot cover whole and changes nothing, to the wei', () => {
      const { engine } = book();
      const before = snap(engine);
      const balances = [MAKER, TAKER].map((a) => engine.balances(a));
      expect(refusal(engine, fill({ stakeWei: TAKER_SPACE + 1n, fillOrKill: true }))).toBe('FILL_OR_KILL_NOT_FILLED');
      expect(snap(engine)).toBe(before);
      expect([MAKER, TAKER].map((a) => engine.balances(a))).toEqual(balances);
      expect(engine.freeBalance(TAKER)).toBe(1000n * USDC);
    });

    it('fillOrKill fills a stake the book covers exactly', () => {
      const { engine, run } = book();
      const r = run(fill({ stakeWei: TAKER_SPACE, fillOrKill: true }));
      expect(r).toMatchObject({ kind: 'fill', fill: { isPartialFill: false, totalFilled: TAKER_SPACE } });
      expect(engine.freeBalance(TAKER)).toBe(1000n * USDC - TAKER_SPACE);
    });

    it('minStakeWei: a fill matching exactly the minimum passes, one wei more is refused unchanged', () => {
      const passes = book();
      const r = passes.run(fill({ stakeWei: 200n * USDC, minStakeWei: TAKER_SPACE }));
      expect(r).toMatchObject({ kind: 'fill', fill: { isPartialFill: true, totalFilled: TAKER_SPACE } });

      const { engine, run } = book();
      const before = snap(engine);
      const refused = fill({ stakeWei: 200n * USDC, minStakeWei: TAKER_SPACE + 1n });
      expect(refusal(engine, refused)).toBe('FILL_BELOW_MIN_STAKE');
      expect(snap(engine)).toBe(before);
      // Its salt is still free: the same request without the minimum fills.
      const { minStakeWei: _dropped, ...plain } = refused as Extract<Command, { kind: 'fill' }>;
      expect(run(plain)).toMatchObject({ kind: 'fill', fill: { totalFilled: TAKER_SPACE } });
    });

    it('an empty book still answers INSUFFICIENT_SPACE, whatever the fields ask', () => {
      const { engine } = setup();
      expect(refusal(engine, fill({ fillOrKill: true, minStakeWei: 1n }))).toBe('INSUFFICIENT_SPACE');
    });
  });

  it('fails a fill whose maker moved the funds away, and gives the space back', () => {
    const { engine, run, projection, order_ } = setup();
    const o = order({ totalBetSize: 500n * USDC });
    run({ kind: 'postOrders', at: 1500, orders: [o], markets: [M1] });
    const f = fill({ stakeWei: 30n * USDC });
    run(f);
    // Moving 990 away leaves 10, below the 20 owed: the order leaves the book, the fill fails on chain.
    run({ kind: 'transfer', at: 2500, from: MAKER, to: MAKER2, amount: 990n * USDC });
    expect(order_(o.orderHash)!.status).toBe('CANCELLED');
    run({ kind: 'confirmFill', at: 3000, fillHash: (f as { fillHash: string }).fillHash });
    expect([...projection.trades.values()].map((t) => t.status)).toEqual(['FAILED', 'FAILED']);
    expect(engine.ledger.balanceOf(TAKER)).toBe(1000n * USDC);
    expect(engine.freeBalance(TAKER)).toBe(1000n * USDC);
    expect(order_(o.orderHash)!.pendingFillAmount).toBe(0n);
    expect(engine.exposureOf(MAKER)).toBe(0n);
  });

  it('cancels with replay protection and reports each reason', () => {
    const { engine, run, order_ } = setup();
    const a = order();
    const b = order();
    run({ kind: 'postOrders', at: 1500, orders: [a, b], markets: [M1] });
    const r = run({ kind: 'cancelOrders', at: 10_000, maker: MAKER, salt: 's1', timestamp: 10, orderHashes: [a.orderHash, '0x' + 'e'.repeat(64)] });
    expect(r).toEqual({
      kind: 'cancel',
      cancel: {
        cancelledCount: 1,
        orders: [{ orderHash: a.orderHash, pendingFills: [] }],
        notCancelled: [{ orderHash: '0x' + 'e'.repeat(64), reason: 'not_found_or_inactive' }],
      },
    });
    expect(() => engine.apply({ kind: 'cancelAll', at: 10_000, maker: MAKER, salt: 's1', timestamp: 10 })).toThrow(/already used/);
    expect(() => engine.apply({ kind: 'cancelAll', at: 100_000, maker: MAKER, salt: 's2', timestamp: 10 })).toThrow(/within 60 s/);
    expect(order_(b.orderHash)!.status).toBe('ACTIVE');
  });

  it('keeps a cancel salt refused after the clock jumps forward and back', () => {
    const { engine, run } = setup();
    run({ kind: 'cancelAll', at: 1_000_000, maker: MAKER, salt: 's1', timestamp: 1000 });
    // The clock jumps 5 minutes ahead: s1 can no longer pass the timestamp check, so it is forgotten.
    run({ kind: 'cancelAll', at: 1_300_000, maker: MAKER, salt: 's2', timestamp: 1300 });
    // The clock comes back: the replayed s1 must still be refused.
    const replay = { kind: 'cancelAll', at: 1_000_000, maker: MAKER, salt: 's1', timestamp: 1000 } as const;
    expect(() => engine.apply(replay)).toThrow(/within 60 s/);
    // A fresh cancel signed at the back-moved time is refused too (older than a forgotten one); a newer one passes.
    expect(() => engine.apply({ ...replay, salt: 's3' })).toThrow(/within 60 s/);
    expect(run({ kind: 'cancelAll', at: 1_300_500, maker: MAKER, salt: 's4', timestamp: 1301 })).toMatchObject({ kind: 'cancel' });
  });

  it('reports order_locked for a fully matched pending order and already_pending_cancel after a cancel with fills pending', () => {
    const { run } = setup();
    const locked = order({ totalBetSize: 20n * USDC });
    const partial = order({ totalBetSize: 100n * USDC, percentageOdds: 50n * 10n ** 18n });
    run({ kind: 'postOrders', at: 1500, orders: [locked, partial], markets: [M1] });
    // 30 USDC at 40% exhausts the first order (20 of maker space); 10 more land on the second at 50%.
    const f = fill({ stakeWei: 40n * USDC, desiredOdds: 50n * 10n ** 18n });
    run(f);
    const cancel = (salt: string) =>
      run({ kind: 'cancelOrders', at: 10_000, maker: MAKER, salt, timestamp: 10, orderHashes: [locked.orderHash, partial.orderHash] });
    const fillHash = (f as { fillHash: string }).fillHash;
    expect(cancel('a')).toEqual({
      kind: 'cancel',
      cancel: {
        cancelledCount: 1,
        orders: [{ orderHash: partial.orderHash, pendingFills: [{ fillHash, pendingFillAmount: '10000000' }] }],
        notCancelled: [{ orderHash: locked.orderHash, reason: 'order_locked' }],
      },
    });
    expect(cancel('b')).toMatchObject({
      cancel: { cancelledCount: 0, notCancelled: [{ reason: 'order_locked' }, { orderHash: partial.orderHash, reason: 'already_pending_cancel' }] },
    });
  });

  it('expires orders past apiExpiry and cancels everything when a heartbeat lapses', () => {
    const { engine, run, order_ } = setup();
    const short = order({ apiExpiry: 5 });
    const long = order();
    run({ kind: 'postOrders', at: 1500, orders: [short, long], markets: [M1] });
    run({ kind: 'heartbeat', at: 1500, requestor: MAKER, timeoutSeconds: 10 });
    expect(engine.nextExpiryAt()).toBe(5000);
    run({ kind: 'expire', at: 5000 });
    expect(order_(short.orderHash)!.status).toBe('EXPIRED');
    expect(order_(long.orderHash)!.status).toBe('ACTIVE');
    run({ kind: 'expire', at: 11_500 });
    expect(order_(long.orderHash)!.status).toBe('CANCELLED');
    expect(engine.heartbeatCount()).toBe(0);
  });

  it('restricts a maker after repeated balance shortfalls until the window passes or an operator lifts it', () => {
    const { engine, run } = setup();
    for (let i = 0; i < 3; i++) {
      run({ kind: 'postOrders', at: 2000 + i, orders: [order({ totalBetSize: 900n * USDC })], markets: [M1] });
      run({ kind: 'transfer', at: 2000 + i, from: MAKER, to: MAKER2, amount: 200n * USDC });
      run({ kind: 'transfer', at: 2000 + i, from: MAKER2, to: MAKER, amount: 200n * USDC });
    }
    expect(engine.restrictionOf(MAKER)).toEqual({ address: MAKER, shortfalls: [2000, 2001, 2002], restrictedUntil: 2002 + 900_000 });
    expect(() => engine.apply({ kind: 'postOrders', at: 3000, orders: [order()], markets: [M1] })).toThrow(/may not post/);
    run({ kind: 'liftRestriction', at: 3000, address: MAKER });
    expect(run({ kind: 'postOrders', at: 3000, orders: [order()], markets: [M1] })).toMatchObject({ statuses: [{ status: 'OK' }] });
  });

  it('treats an order whose rest buys no maker wei as exhausted, so later orders still fill', () => {
    const { run, order_ } = setup();
    const dusty = order({ totalBetSize: 10n * USDC, percentageOdds: 45n * 10n ** 18n });
    const next = order({ totalBetSize: 10n * USDC, percentageOdds: 50n * 10n ** 18n, maker: MAKER2 });
    run({ kind: 'postOrders', at: 1500, orders: [dusty, next], markets: [M1] });
    // Leave exactly 1 wei of maker space on the 45% order: 1 wei buys 1 wei of taker space but 0 of maker space.
    const eat = fill({ stakeWei: ((10n * USDC - 1n) * 55n) / 45n + 1n, desiredOdds: 55n * 10n ** 18n });
    run(eat);
    expect(order_(dusty.orderHash)!.totalBetSize - order_(dusty.orderHash)!.pendingFillAmount).toBe(1n);
    expect(order_(dusty.orderHash)!.status).toBe('INACTIVE');
    const r = run(fill({ stakeWei: 8n * USDC, desiredOdds: 50n * 10n ** 18n }));
    expect(r).toMatchObject({ fill: { totalFilled: 8n * USDC, averageOdds: 50n * 10n ** 18n } });
  });

  it('splits quarter-line stakes in halves with the odd wei on the lower line', () => {
    expect(splitQuarterLine(['0xlow', '0xhigh'], 7n, 11n)).toEqual([
      { marketHash: '0xlow', makerStake: 4n, takerStake: 6n },
      { marketHash: '0xhigh', makerStake: 3n, takerStake: 5n },
    ]);
  });

  it('rejects an order that would cross the opposite side', () => {
    const { run } = setup();
    run({ kind: 'postOrders', at: 1500, orders: [order({ percentageOdds: 60n * 10n ** 18n })], markets: [M1] });
    const crossing = order({ percentageOdds: 45n * 10n ** 18n, isMakerBettingOutcomeOne: false, maker: MAKER2 });
    const fair = order({ percentageOdds: 40n * 10n ** 18n, isMakerBettingOutcomeOne: false, maker: MAKER2 });
    expect(run({ kind: 'postOrders', at: 1500, orders: [crossing, fair], markets: [M1] })).toEqual({
      kind: 'postOrders',
      statuses: [
        { orderHash: crossing.orderHash, status: 'ORDER_WOULD_CROSS' },
        { orderHash: fair.orderHash, status: 'OK' },
      ],
    });
  });
  it('counts an order whose rest is held by pending fills as on the book: a failed fill never leaves a crossed book', () => {
    const { engine, run, order_ } = setup();
    const held = order({ percentageOdds: 60n * 10n ** 18n });
    run({ kind: 'postOrders', at: 1500, orders: [held], markets: [M1] });
    const f = fill({ stakeWei: 100n * USDC, desiredOdds: 40n * 10n ** 18n });
    run(f);
    expect(order_(held.orderHash)!.status).toBe('INACTIVE');
    // Were the fill to fail, the 60% order would take takers again beside a 45% one on the other side.
    const crossing = order({ percentageOdds: 45n * 10n ** 18n, isMakerBettingOutcomeOne: false, maker: MAKER2 });
    expect(run({ kind: 'postOrders', at: 2500, orders: [crossing], markets: [M1] })).toEqual({
      kind: 'postOrders',
      statuses: [{ orderHash: crossing.orderHash, status: 'ORDER_WOULD_CROSS' }],
    });
    expect(() => engine.apply({ kind: 'replaceOrders', at: 2500, maker: MAKER2, salt: 'r1', timestamp: 2, orderHashes: [], markets: [M1], orders: [crossing] })).toThrow(
      expect.objectContaining({ errorCode: 'ORDER_WOULD_CROSS' }),
    );
    // The taker's wallet empties before the chain executes: the fill fails and gives the order its space back.
    run({ kind: 'transfer', at: 2900, from: TAKER, to: MAKER2, amount: engine.ledger.balanceOf(TAKER) });
    run({ kind: 'confirmFill', at: 3000, fillHash: (f as { fillHash: string }).fillHash });
    expect(order_(held.orderHash)!).toMatchObject({ status: 'ACTIVE', pendingFillAmount: 0n, fillAmount: 0n });
    const fair = order({ percentageOdds: 40n * 10n ** 18n, isMakerBettingOutcomeOne: false, maker: MAKER2 });
    expect(run({ kind: 'postOrders', at: 3500, orders: [fair], markets: [M1] })).toEqual({ kind: 'postOrders', statuses: [{ orderHash: fair.orderHash, status: 'OK' }] });
  });
});

describe('order persistence at kick-off', () => {
  const LIVE: MarketRef = { ...M1, liveEnabled: true };
  const CLOSED: MarketRef = { marketHash: '0x' + '2'.repeat(64), exchangeEventId: 'ev1', tradeable: true, liveEnabled: false };
  const kickOff = (lapse: boolean): Command => ({
    kind: 'setFixtureStatus',
    at: 3000,
    exchangeEventId: 'ev1',
    status: 2,
    inPlay: true,
    closedInPlay: [CLOSED.marketHash],
    ...(lapse ? { lapseInPlay: [LIVE.marketHash] } : {}),
  });
  const post = () => {
    const s = setup();
    const lapse = order();
    const persist = order({ persistence: 'PERSIST', isMakerBettingOutcomeOne: false, percentageOdds: 50n * 10n ** 18n });
    const closedPersist = order({ marketHash: CLOSED.marketHash, persistence: 'PERSIST' });
    s.run({ kind: 'postOrders', at: 1500, orders: [lapse, persist, closedPersist], markets: [LIVE, CLOSED] });
    return { ...s, lapse, persist, closedPersist };
  };

  it('cancels LAPSE orders in the kick-off command, keeps PERSIST ones, and closes markets not live-enabled whole', () => {
    const { engine, run, order_, lapse, persist, closedPersist } = post();
    run(kickOff(true));
    expect([lapse, persist, closedPersist].map((o) => order_(o.orderHash)!.status)).toEqual(['CANCELLED', 'ACTIVE', 'CANCELLED']);
    expect(engine.order(persist.orderHash)!.persistence).toBe('PERSIST');
    expect(engine.exposureOf(MAKER)).toBe(100n * USDC);
  });

  it('replays a kick-off journaled before persistence existed as it ran: nothing lapses', () => {
    const { run, order_, lapse, persist } = post();
    run(kickOff(false));
    expect([lapse, persist].map((o) => order_(o.orderHash)!.status)).toEqual(['ACTIVE', 'ACTIVE']);
  });

  it('keeps persistence through a snapshot; orders of snapshots written before it restore as LAPSE', () => {
    const { engine, lapse, persist } = post();
    const snap = engine.snapshot();
    const restored = Engine.restore(params, snap);
    expect(restored.snapshot()).toEqual(snap);
    expect([lapse, persist].map((o) => restored.order(o.orderHash)!.persistence)).toEqual(['LAPSE', 'PERSIST']);
    // An older snapshot's packed rows end at the pending fills.
    const old = structuredClone(snap);
    if (Array.isArray(old.orders)) throw new Error('snapshots pack their orders');
    for (const row of old.orders.rows) row.length = 20;
    const fromOld = Engine.restore(params, old);
    expect(fromOld.order(persist.orderHash)!.persistence).toBe('LAPSE');
    fromOld.apply(kickOff(true));
    expect(fromOld.order(persist.orderHash)).toBeUndefined();
  });
});

describe('bounded engine state', () => {
  it('lets closed orders leave memory while still refusing their hash until they expire', () => {
    const { engine, run, projection } = setup();
    const o = order({ expiry: 20, apiExpiry: 20 });
    run({ kind: 'postOrders', at: 1500, orders: [o], markets: [M1] });
    expect(engine.stats().orders).toBe(1);
    run({ kind: 'cancelOrders', at: 10_000, maker: MAKER, salt: 'c1', timestamp: 10, orderHashes: [o.orderHash] });
    expect(engine.stats()).toMatchObject({ orders: 0, closedOrders: 1 });
    expect(engine.order(o.orderHash)).toBeUndefined();
    expect(projection.orders.get(o.orderHash)!.status).toBe('CANCELLED');
    expect(run({ kind: 'postOrders', at: 11_000, orders: [o], markets: [M1] })).toEqual({
      kind: 'postOrders',
      statuses: [{ orderHash: o.orderHash, status: 'ORDERS_ALREADY_EXIST' }],
    });
    // Past its signed expiry the order could not be posted again anyway: refused as expired, its hash forgotten.
    expect(() => engine.apply({ kind: 'postOrders', at: 20_000, orders: [o], markets: [M1] })).toThrow(/past its expiry/);
    run({ kind: 'postOrders', at: 20_000, orders: [order()], markets: [M1] });
    expect(engine.stats()).toMatchObject({ orders: 1, closedOrders: 0 });
  });

  it('keeps an order with fills pending until they execute, then lets it go', () => {
    const { engine, run } = setup();
    const o = order({ totalBetSize: 20n * USDC });
    run({ kind: 'postOrders', at: 1500, orders: [o], markets: [M1] });
    const f = fill({ stakeWei: 30n * USDC });
    run(f);
    expect(engine.order(o.orderHash)).toMatchObject({ status: 'INACTIVE', pendingFillAmount: 20n * USDC });
    run({ kind: 'confirmFill', at: 3000, fillHash: (f as { fillHash: string }).fillHash });
    expect(engine.order(o.orderHash)).toBeUndefined();
    expect(engine.stats()).toMatchObject({ orders: 0, pendingFills: 0, usedFills: 1 });
  });

  it('remembers only a window of recent fill salts (the read side answers for older ones)', () => {
    const engine = new Engine({ ...params, recentFillWindow: 2 });
    engine.apply({ kind: 'faucet', at: 1000, address: TAKER, amount: 1000n * USDC });
    engine.apply({ kind: 'faucet', at: 1000, address: MAKER, amount: 1000n * USDC });
    engine.apply({ kind: 'postOrders', at: 1500, orders: [order({ totalBetSize: 500n * USDC })], markets: [M1] });
    const salts = ['a', 'b', 'c'];
    for (const fillSalt of salts) engine.apply(fill({ fillSalt, stakeWei: 2n * USDC }));
    expect(() => engine.apply(fill({ fillSalt: 'c', stakeWei: 2n * USDC }))).toThrow(/already used/);
    expect(engine.stats()).toMatchObject({ usedFills: 3, recentFills: 2 });
    // 'a' left the window: only the read side's check in front of the engine still refuses it.
    expect(() => engine.apply(fill({ fillSalt: 'a', stakeWei: 2n * USDC }))).not.toThrow();
  });
});

describe('wallets on chain: the engine mirrors them from chain commands', () => {
  const MAX = (1n << 256n) - 1n;
  const chainParams = { ...params, walletsOnChain: true };
  const tx = (c: string) => '0x' + c.repeat(64);
  /** One block of the default fill (taker 30 against maker 20): the proxy pulls both stakes, then the fill's event. */
  const executedOnChain = (fillHash: string): ChainEntry[] => [
    { kind: 'wallet', address: MAKER, delta: -20n * USDC, allowanceSpent: 20n * USDC },
    { kind: 'wallet', address: TAKER, delta: -30n * USDC, allowanceSpent: 30n * USDC },
    { kind: 'fill', fillHash, execution: { executed: true, txHash: tx('b') } },
  ];

  function chainSetup() {
    const engine = new Engine(chainParams);
    const projection = new NaiveProjection();
    const run = (cmd: Command) => {
      const r = engine.apply(cmd);
      projection.apply(r.changes);
      return r;
    };
    const funded = [MAKER, MAKER2, TAKER].flatMap((address) => [
      { kind: 'wallet' as const, address, delta: 1000n * USDC },
      { kind: 'approval' as const, owner: address, amount: MAX },
    ]);
    run({ kind: 'chainEvents', at: 1000, toBlock: 3, entries: funded });
    /** An order on the book and the default fill against it, pending. */
    const pendingFill = (o: NewOrder = order()) => {
      run({ kind: 'postOrders', at: 1500, orders: [o], markets: [M1] });
      const f = fill() as Extract<Command, { kind: 'fill' }>;
      run(f);
      return { o, f };
    };
    return { engine, run, projection, pendingFill };
  }

  it('funds wallets only from the chain: the faucet is the token contract', () => {
    const { engine } = chainSetup();
    expect(engine.ledger.balanceOf(TAKER)).toBe(1000n * USDC);
    expect(() => engine.apply({ kind: 'faucet', at: 1100, address: TAKER, amount: USDC })).toThrow(/on chain/);
    expect(engine.ledger.balanceOf(TAKER)).toBe(1000n * USDC);
  });

  it('takes repeated chain reports safely: an attempt recorded once, a range overlapping one applied refused, a confirmation of a settled fill ignored', () => {
    const { engine, run, pendingFill } = chainSetup();
    const { f } = pendingFill();
    run({ kind: 'fillAttempt', at: 2100, fillHashes: [f.fillHash], txHash: tx('a') });
    expect(run({ kind: 'fillAttempt', at: 2150, fillHashes: [f.fillHash], txHash: tx('a') }).changes).toEqual([]);
    expect(engine.pendingFill(f.fillHash)).toMatchObject({ attempts: [tx('a')] });
    run({ kind: 'chainEvents', at: 2200, fromBlock: 4, toBlock: 5, entries: executedOnChain(f.fillHash) });
    const after = engine.balances(TAKER);
    // The same range again, or one reaching back into it (another settlement process's report): nothing moves twice.
    for (const fromBlock of [4, 5]) {
      expect(() => engine.apply({ kind: 'chainEvents', at: 2300, fromBlock, toBlock: 9, entries: executedOnChain(f.fillHash) })).toThrow(
        expect.objectContaining({ errorCode: 'CHAIN_EVENTS_ALREADY_APPLIED' }),
      );
    }
    expect(engine.chainCursor).toBe(5);
    // A local ledger's bare confirmation, or the chain's, of a fill no longer pending changes nothing.
    expect(run({ kind: 'confirmFill', at: 2400, fillHash: f.fillHash }).changes).toEqual([]);
    expect(run({ kind: 'confirmFill', at: 2400, fillHash: f.fillHash, chain: { executed: true, txHash: tx('b') } }).changes).toEqual([]);
    expect([engine.balances(TAKER), engine.ledger.total()]).toEqual([after, engine.ledger.minted]);
    // The next range on is taken.
    run({ kind: 'chainEvents', at: 2500, fromBlock: 6, toBlock: 6, entries: [{ kind: 'wallet', address: TAKER, delta: USDC }] });
    expect([engine.chainCursor, engine.balances(TAKER).balance]).toEqual([6, after.balance + USDC]);
  });

  it('records attempts and the executing transaction; the stakes leave the wallets by the chain\'s transfers', () => {
    const { engine, run, pendingFill } = chainSetup();
    const { o, f } = pendingFill();
    expect(run({ kind: 'fillAttempt', at: 2100, fillHashes: [f.fillHash, '0xunknown'], txHash: tx('a') }).changes).toEqual([
      { type: 'fillAttempted', fillHash: f.fillHash, txHash: tx('a'), at: 2100 },
    ]);
    expect(engine.pendingFill(f.fillHash)).toMatchObject({ attempts: [tx('a')], lastAttemptAt: 2100 });

    // One block: the proxy pulls 20 from the maker and 30 from the taker, then the fill's event.
    const executed = run({
      kind: 'chainEvents',
      at: 2200,
      toBlock: 5,
      entries: executedOnChain(f.fillHash),
    });
    expect(executed.changes.find((c) => c.type === 'fillExecuted')).toEqual({
      type: 'fillExecuted',
      fillHash: f.fillHash,
      status: 'SUCCESS',
      at: 2200,
      txHash: tx('b'),
      attempts: [tx('a')],
      lastAttemptAt: 2100,
    });
    // Taken from the wallet once (by the chain), held once (by the engine); no order left the book on the way.
    expect(executed.changes.filter((c) => c.type === 'orderChanged').map((c) => c.type === 'orderChanged' && c.state.status)).toEqual(['ACTIVE']);
    expect(engine.balances(TAKER)).toEqual({ balance: 970n * USDC, escrowed: 30n * USDC, openExposure: 0n, pendingTakerStake: 0n });
    expect(engine.balances(MAKER)).toEqual({ balance: 980n * USDC, escrowed: 20n * USDC, openExposure: 80n * USDC, pendingTakerStake: 0n });
    expect(engine.ledger.total()).toBe(engine.ledger.minted);

    // An approval below the balance caps what orders may commit: the newest orders leave the book.
    const lowered = run({ kind: 'chainEvents', at: 2300, toBlock: 7, entries: [{ kind: 'approval', owner: MAKER, amount: 50n * USDC }] });
    expect(lowered.changes.find((c) => c.type === 'orderChanged')).toMatchObject({ orderHash: o.orderHash, state: { status: 'CANCELLED' } });
    expect(engine.freeBalance(MAKER)).toBe(50n * USDC);
    expect(engine.chainCursor).toBe(7);
  });

  it('applies a range in log order: an approval set before a fill is spent by it', () => {
    const { engine, run, pendingFill } = chainSetup();
    const { f } = pendingFill(order({ totalBetSize: 50n * USDC }));
    run({
      kind: 'chainEvents',
      at: 2200,
      toBlock: 5,
      entries: [
        { kind: 'approval', owner: MAKER, amount: 60n * USDC },
        ...executedOnChain(f.fillHash),
      ],
    });
    // 60 approved less 20 pulled leaves 40; the order's open 30 is committed: 10 free.
    expect(engine.freeBalance(MAKER)).toBe(10n * USDC);
  });

  it('reports a failed fill with its revert reason and frees its space; no wallet moved', () => {
    const { engine, run, pendingFill } = chainSetup();
    const { o, f } = pendingFill();
    const failed = run({ kind: 'chainEvents', at: 2200, toBlock: 5, entries: [{ kind: 'fill', fillHash: f.fillHash, execution: { executed: false, txHash: tx('c'), reason: 'OrderExpired' } }] });
    expect(failed.changes.find((c) => c.type === 'fillExecuted')).toMatchObject({ status: 'FAILED', txHash: tx('c'), failureReason: 'OrderExpired' });
    expect(engine.order(o.orderHash)).toMatchObject({ status: 'ACTIVE', pendingFillAmount: 0n, fillAmount: 0n });
    expect(engine.balances(TAKER)).toEqual({ balance: 1000n * USDC, escrowed: 0n, openExposure: 0n, pendingTakerStake: 0n });
  });

  it('settles without a transaction; the payout reaches the wallet by the chain, and its transaction goes on the trades', () => {
    const { engine, run, projection, pendingFill } = chainSetup();
    const { f } = pendingFill();
    run({
      kind: 'chainEvents',
      at: 2200,
      toBlock: 5,
      entries: executedOnChain(f.fillHash),
    });
    const settled = run({ kind: 'reportMarkets', at: 3000, reports: [{ marketHash: M1.marketHash, outcome: 2 }] });
    // One settled position per bettor; the trades they cover are settled, with no transaction yet.
    expect(settled.changes.filter((c) => c.type === 'positionSettled').map((c) => c.type === 'positionSettled' && c.bettor).sort()).toEqual([MAKER, TAKER].sort());
    const settledTrades = [...projection.trades.values()].filter((t) => t.settled);
    expect(settledTrades).toHaveLength(2);
    for (const t of settledTrades) expect(t.settleTxHash).toBeUndefined();
    // Escrow is released at once; the taker's 50 is in the wallet only once the escrow's transfer is seen.
    expect(engine.balances(TAKER)).toMatchObject({ balance: 970n * USDC, escrowed: 0n });

    const unreported = '0x' + '9'.repeat(64);
    const paid = run({
      kind: 'chainEvents',
      at: 3100,
      toBlock: 12,
      entries: [
        { kind: 'wallet', address: TAKER, delta: 50n * USDC },
        { kind: 'claim', marketHash: M1.marketHash, bettor: TAKER, txHash: tx('c') },
        // The escrow can only pay a reported market; a claim on another is not ours to record.
        { kind: 'claim', marketHash: unreported, bettor: TAKER, txHash: tx('c') },
        { kind: 'refund', refundId: 7, txHash: tx('d') },
      ],
    });
    expect(paid.changes.filter((c) => c.type !== 'balanceChanged')).toEqual([
      { type: 'positionPaidOnChain', marketHash: M1.marketHash, bettor: TAKER, txHash: tx('c'), at: 3100 },
      { type: 'refundPaidOnChain', refundId: 7, txHash: tx('d'), at: 3100 },
    ]);
    expect(engine.balances(TAKER)).toMatchObject({ balance: 1020n * USDC, escrowed: 0n });
    expect(engine.ledger.total()).toBe(engine.ledger.minted);
    const byBettor = (bettor: string) => [...projection.trades.values()].filter((t) => t.bettor === bettor);
    expect(byBettor(TAKER).map((t) => t.settleTxHash)).toEqual([tx('c')]);
    expect(byBettor(MAKER).map((t) => t.settleTxHash)).toEqual([undefined]);
  });

  it('keeps the mirrored wallets, allowances, the chain cursor, fill attempts and the cancel-salt floor in snapshots', () => {
    const { engine, run, pendingFill } = chainSetup();
    const { f } = pendingFill();
    run({ kind: 'fillAttempt', at: 2100, fillHashes: [f.fillHash], txHash: tx('a') });
    run({ kind: 'chainEvents', at: 2200, toBlock: 42, entries: [{ kind: 'approval', owner: TAKER, amount: 900n * USDC }] });
    // A cancel salt forgotten once its timestamp is past the skew raises the floor.
    run({ kind: 'cancelAll', at: 10_000, maker: MAKER2, salt: '0x01', timestamp: 10 });
    run({ kind: 'cancelAll', at: 100_000, maker: MAKER2, salt: '0x02', timestamp: 100 });

    const restored = Engine.restore(chainParams, engine.snapshot());
    expect(restored.snapshot()).toEqual(engine.snapshot());
    expect(restored.chainCursor).toBe(42);
    expect(restored.freeBalance(TAKER)).toBe(870n * USDC);
    expect(restored.pendingFill(f.fillHash)?.attempts).toEqual([tx('a')]);
    expect(() => restored.apply({ kind: 'faucet', at: 100_000, address: TAKER, amount: USDC })).toThrow(/on chain/);
    expect(() => restored.apply({ kind: 'cancelAll', at: 100_000, maker: MAKER2, salt: '0x01', timestamp: 10 })).toThrow(/timestamp/);
  });

  it('snapshots a heartbeat deadline once, however often it was set to the same time', () => {
    const heartbeat = (at: number, timeoutSeconds: number): Command => ({ kind: 'heartbeat', at, requestor: MAKER, timeoutSeconds });
    const again = new Engine(params);
    again.apply(heartbeat(1000, 29)); // deadline 30,000
    again.apply(heartbeat(8000, 0));
    again.apply(heartbeat(15_000, 15)); // the same deadline, set again
    const once = new Engine(params);
    once.apply(heartbeat(15_000, 15));
    expect(again.snapshot().expiries).toEqual([{ at: 30_000, key: `hb:${MAKER}` }]);
    expect(Engine.restore(params, again.snapshot()).snapshot().expiries).toEqual(once.snapshot().expiries);
    // The deadline still fires once.
    expect(again.apply({ kind: 'expire', at: 30_000 }).changes).toEqual([{ type: 'heartbeatExpired', requestor: MAKER, at: 30_000 }]);
  });
});
