// Refund totals of the read side: kept per bettor, market and token as refunds are projected, and filled once, in
// exact bigint arithmetic, for a data dir whose refunds predate the totals table.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate } from './db.js';
import { MIGRATIONS } from './migrations.js';
import { TradingReadModels } from './read-models.js';
import type { RefundPaid } from '../engine/changes.js';

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
