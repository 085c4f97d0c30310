// Refund totals of the read side: kept per bettor, market and token as refunds are projected, and filled once, in
// exact bigint arithmetic, for a data dir whose refunds predate the totals table.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate } from './db.js';
import { MIGRATIONS } from './migrations.js';
import { TradingReadModels } from './read-models.js';
import type { RefundPaid } from '../engine/changes.js';
import { refundGroups } from '../trading/refund-groups.js';

const MARKET = '0x' + 'aa'.repeat(32);
const TOKEN = '0x' + 'Bb'.repeat(20);
const BETTOR = '0x' + 'Cc'.repeat(20);
// Two amounts whose sum exceeds a signed 64-bit integer: an 18-decimal token's refunds of ~10 tokens each.
const BIG = 9_000_000_000_000_000_000n;
const refund = (id: number, amount: bigint, marketHash = MARKET): RefundPaid => ({
  id, marketHash, baseToken: TOKEN, bettor: BETTOR, maker: false, fillOrderHash: '0x' + id.toString(16).padStart(64, '0'), amount, createdAt: id,
});

describe('refund totals', () => {
  it('adds each projected refund to its group total and answers whether an earlier refund exists', () => {
    const db = new Database(':memory:');
    migrate(db, MIGRATIONS);
    const rm = new TradingReadModels(db);
    rm.apply([{ type: 'refundPaid', refund: refund(1, BIG) }, { type: 'refundPaid', refund: refund(2, BIG + 1n) }]);
    rm.apply([{ type: 'refundPaid', refund: refund(3, 5n, '0x' + 'dd'.repeat(32)) }]);
    expect(rm.refundTotal(BETTOR.toLowerCase(), MARKET, TOKEN.toLowerCase())).toBe(2n * BIG + 1n);
    expect(rm.refundTotal(BETTOR, '0x' + 'dd'.repeat(32), TOKEN)).toBe(5n);
    expect(rm.refundTotal(BETTOR, '0x' + 'ee'.repeat(32), TOKEN)).toBe(0n);
    expect([1, 2, 3].map((id) => rm.hasRefundBefore(MARKET, BETTOR, id))).toEqual([false, true, true]);
  });

  it('fills the totals of refunds written before the totals table existed, exactly', () => {
    const db = new Database(':memory:');
    migrate(db, MIGRATIONS.filter((m) => m.version < 7));
    const insert = db.prepare('INSERT INTO rm_refunds VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    for (const r of [refund(1, BIG), refund(2, BIG + 7n)]) insert.run(r.id, r.marketHash, r.baseToken, r.bettor, 0, r.fillOrderHash, r.amount.toString(), r.createdAt);
    migrate(db, MIGRATIONS);
    expect(new TradingReadModels(db).refundTotal(BETTOR, MARKET, TOKEN)).toBe(2n * BIG + 7n);
    // A second start does not add them again.
    expect(new TradingReadModels(db).refundTotal(BETTOR, MARKET, TOKEN)).toBe(2n * BIG + 7n);
  });
});

describe('refund group pages', () => {
  it('equal grouping and paging all of the bettor\'s refunds in memory, for every filter and direction', () => {
    const db = new Database(':memory:');
    migrate(db, MIGRATIONS);
    const rm = new TradingReadModels(db);
    const markets = ['0x' + '01'.repeat(32), '0x' + '02'.repeat(32), '0x' + '03'.repeat(32), '0x' + '04'.repeat(32)];
    const tokens = [TOKEN, '0x' + '12'.repeat(20)];
    const other = '0x' + '99'.repeat(20);
    let seed = 7;
    // Park-Miller: deterministic, and its high bits are well spread for small ranges.
    const next = (n: number) => ((seed = (seed * 48271) % 2147483647), Math.floor((seed / 2147483647) * n));
    const events: RefundPaid[] = [];
    for (let id = 1; id <= 120; id++) {
      // Times mostly rise, with ties and a clock that sometimes steps back.
      const createdAt = 1000 + id * 10 - next(4) * 60;
      events.push({
        id, marketHash: markets[next(4)]!, baseToken: tokens[next(2)]!, bettor: next(5) === 0 ? other : BETTOR, maker: next(2) === 0,
        fillOrderHash: '0x' + (id % 7).toString(16).padStart(64, '0'), amount: BigInt(1 + next(1000)), createdAt,
      });
    }
    rm.apply(events.map((refund) => ({ type: 'refundPaid' as const, refund })));
    const filters = [
      { bettor: BETTOR.toLowerCase() },
      { bettor: BETTOR, maker: true },
      { bettor: BETTOR, maker: false, marketHash: markets[1]!.toUpperCase().replace('0X', '0x') },
      { bettor: BETTOR, baseToken: tokens[1]!.toLowerCase() },
      { bettor: BETTOR, fillHash: events[3]!.fillOrderHash },
    ];
    for (const f of filters) {
      for (const ascending of [true, false]) {
        const all = refundGroups(events, f, 6, ascending);
        for (const perPage of [1, 3, 100]) {
          for (let page = 0; page * perPage <= all.length; page++) {
            const { refunds, groups } = rm.refundGroupsPage(f, ascending, { page, perPage });
            expect(groups).toBe(all.length);
            expect(refundGroups(refunds, f, 6, ascending)).toEqual(all.slice(page * perPage, (page + 1) * perPage));
          }
        }
      }
    }
  });
});
