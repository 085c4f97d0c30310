// Pending fills alone: each match records a maker and a taker trade, quarter lines split in halves, attempts, state.
import { describe, expect, it } from 'vitest';
import { E18, MARKET, openLog, pendingFill, storeWith } from '../../test/helpers/engine-parts.js';
import { PendingFills, splitQuarterLine } from './pending-fills.js';

const affiliate = { affiliate: '0x00' };

describe('PendingFills', () => {
  it('records a maker and a taker trade per match, on opposite outcomes with their own odds', () => {
    const fills = new PendingFills(affiliate, openLog());
    const { posted } = storeWith({ percentageOdds: 40n * E18 });
    const record = pendingFill(fills, '0xb1', [[posted[0]!, 40n]]);
    const [maker, taker] = fills.get(record.fillHash)!.trades;
    expect(maker).toMatchObject({ id: '1', bettor: '0xa1', counterparty: '0xb1', maker: true, bettingOutcomeOne: true, stake: 40n, counterStake: 60n, odds: 40n * E18 });
    expect(taker).toMatchObject({ id: '2', bettor: '0xb1', counterparty: '0xa1', maker: false, bettingOutcomeOne: false, stake: 60n, counterStake: 40n, odds: 60n * E18 });
  });

  it('splits a quarter line into two legs, the lower taking the odd wei', () => {
    expect(splitQuarterLine(['lo', 'hi'], 5n, 7n)).toEqual([
      { marketHash: 'lo', makerStake: 3n, takerStake: 4n },
      { marketHash: 'hi', makerStake: 2n, takerStake: 3n },
    ]);
    const fills = new PendingFills(affiliate, openLog());
    const { posted } = storeWith({});
    const record = pendingFill(fills, '0xb1', [[posted[0]!, 40n]], { ...MARKET, legs: ['lo', 'hi'] });
    expect(record.trades.map((t) => [t.marketHash, t.stake])).toEqual([
      ['lo', 20n],
      ['lo', 30n],
      ['hi', 20n],
      ['hi', 30n],
    ]);
  });

  it('keeps the attempts of a pending fill, and forgets the fill once removed', () => {
    const log = openLog();
    const fills = new PendingFills(affiliate, log);
    const { posted } = storeWith({});
    const record = pendingFill(fills, '0xb1', [[posted[0]!, 40n]]);
    fills.attempted([record.fillHash, '0xunknown'], '0xtx', 3000);
    expect(fills.get(record.fillHash)).toMatchObject({ attempts: ['0xtx'], lastAttemptAt: 3000 });
    expect(log.records().filter((c) => c.type === 'fillAttempted')).toHaveLength(1);
    fills.remove(record.fillHash);
    expect(fills.size).toBe(0);
  });

  it('snapshot and from give back the same state, copies not the records', () => {
    const fills = new PendingFills(affiliate, openLog());
    const { posted } = storeWith({});
    pendingFill(fills, '0xb1', [[posted[0]!, 40n]]);
    const state = fills.snapshot();
    const copy = PendingFills.from(affiliate, openLog(), state);
    expect(copy.snapshot()).toEqual(state);
    expect(copy.tradeCount).toBe(2);
    expect(copy.get(state.pendingFills[0]!.fillHash)).not.toBe(state.pendingFills[0]);
  });
});
