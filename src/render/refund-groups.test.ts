import { describe, expect, it } from 'vitest';
import type { RefundPaid as RefundEvent } from '../engine/changes.js';
import { refundGroups } from './refund-groups.js';

const M1 = '0x' + '1'.repeat(64);
const M2 = '0x' + '2'.repeat(64);
const F1 = '0x' + 'a'.repeat(64);
const F2 = '0x' + 'b'.repeat(64);
const TOKEN = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const BETTOR = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const OTHER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

let id = 0;
const refund = (marketHash: string, amount: bigint, createdAt: number, extra: Partial<RefundEvent> = {}): RefundEvent => ({
  id: ++id,
  marketHash,
  baseToken: TOKEN,
  bettor: BETTOR,
  maker: true,
  fillOrderHash: F1,
  amount,
  createdAt,
  ...extra,
});

describe('refundGroups', () => {
  const events = [
    refund(M1, 25_000_000n, 1000),
    refund(M2, 1_500_001n, 2000, { maker: false, fillOrderHash: F2 }),
    refund(M1, 10_000_000n, 3000, { fillOrderHash: F2 }),
    refund(M1, 7n, 4000, { bettor: OTHER }),
  ];

  it('groups per market and token with the total in human units, ordered by the latest refund', () => {
    const desc = refundGroups(events, { bettor: BETTOR.toLowerCase() }, 6, false);
    expect(desc.map((g) => [g.marketHash, g.totalRefundedBetTimeValue, g.events.map((e) => e.amount)])).toEqual([
      [M1, 35, ['10000000', '25000000']],
      [M2, 1.500001, ['1500001']],
    ]);
    expect(desc[1]!.events[0]).toEqual({
      marketHash: M2,
      baseToken: TOKEN,
      bettor: BETTOR,
      maker: false,
      fillOrderHash: F2,
      amount: '1500001',
      amountBetTimeValue: '1.500001',
      createdAt: new Date(2000).toISOString(),
    });
    const asc = refundGroups(events, { bettor: BETTOR }, 6, true);
    expect(asc.map((g) => [g.marketHash, g.events.map((e) => e.createdAt)])).toEqual([
      [M2, [new Date(2000).toISOString()]],
      [M1, [new Date(1000).toISOString(), new Date(3000).toISOString()]],
    ]);
  });

  it('filters by market, token, fill and maker flag', () => {
    const amounts = (f: Parameters<typeof refundGroups>[1]) => refundGroups(events, f, 6, true).flatMap((g) => g.events.map((e) => e.amount));
    expect(amounts({ bettor: BETTOR, marketHash: M2 })).toEqual(['1500001']);
    expect(amounts({ bettor: BETTOR, fillHash: F2.toUpperCase().replace('0X', '0x') })).toEqual(['1500001', '10000000']);
    expect(amounts({ bettor: BETTOR, maker: true })).toEqual(['25000000', '10000000']);
    expect(amounts({ bettor: BETTOR, maker: false })).toEqual(['1500001']);
    expect(amounts({ bettor: BETTOR, baseToken: TOKEN.toLowerCase() })).toHaveLength(3);
    expect(amounts({ bettor: BETTOR, baseToken: '0x' + '0'.repeat(40) })).toEqual([]);
    expect(amounts({ bettor: OTHER })).toEqual(['7']);
  });
});
