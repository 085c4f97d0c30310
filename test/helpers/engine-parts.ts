// A small fixture for the parts' own tests: one market, orders posted straight to a store, fills built as the
// engine builds them (without the engine).
import { ChangeLog } from '../../src/engine/change-log.js';
import { DomainError } from '../../src/engine/errors.js';
import { OrderStore } from '../../src/engine/order-store.js';
import type { PendingFills } from '../../src/engine/pending-fills.js';
import { MatchRecord, PendingFillRecord } from '../../src/engine/records.js';
import type { MarketRef, NewOrder, Order } from '../../src/engine/types.js';

export const E18 = 10n ** 18n;
export const TOKEN = '0xc1';
export const MARKET: MarketRef = { marketHash: '0xm1', exchangeEventId: 'ev1', tradeable: true };

let n = 0;
export const newOrder = (over: Partial<NewOrder> = {}): NewOrder => ({
  orderHash: `0xo${++n}`,
  marketHash: MARKET.marketHash,
  maker: '0xa1',
  baseToken: TOKEN,
  executor: TOKEN,
  totalBetSize: 100n,
  percentageOdds: 40n * E18,
  expiry: 2_000_000_000,
  apiExpiry: 2_000_000_000,
  salt: String(n),
  isMakerBettingOutcomeOne: true,
  signature: '0x',
  ...over,
});

/** A log inside a command (records may be emitted). */
export function openLog(): ChangeLog {
  const log = new ChangeLog();
  log.begin();
  return log;
}

/** A fill of `taker` matching `makerStake` of each order (maker odds as the order's), recorded in `fills`. */
export function pendingFill(fills: PendingFills, taker: string, orders: [Order, bigint][], market = MARKET, at = 2000): PendingFillRecord {
  const matches = orders.map(([o, makerStake]) => {
    const takerStake = (makerStake * (100n * E18 - o.percentageOdds)) / o.percentageOdds;
    return new MatchRecord(o.orderHash, o.maker, makerStake, takerStake, o.percentageOdds);
  });
  const total = matches.reduce((s, m) => s + m.takerStake, 0n);
  const record = new PendingFillRecord(`0xf${++n}`, taker, market.marketHash, TOKEN, !orders[0]![0].isMakerBettingOutcomeOne, `s${n}`, at, matches, total);
  fills.beginTrades();
  matches.forEach((m, i) => fills.recordTrades(record, orders[i]![0], m, market, at));
  fills.add(record);
  return record;
}

export const storeWith = (...orders: Partial<NewOrder>[]) => {
  const store = new OrderStore();
  return { store, posted: orders.map((o) => store.post(newOrder(o), MARKET, 1000, TOKEN)) };
};

/** The errorCode `f` is refused with, or `accepted` when it returns (anything but a DomainError is rethrown). */
export function refusalOf(f: () => unknown): string {
  try {
    f();
  } catch (err) {
    if (err instanceof DomainError) return err.errorCode;
    throw err;
  }
  return 'accepted';
}
