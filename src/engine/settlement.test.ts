// Settlement alone: executed fills build positions and refund escrow above the worst case; a report pays each
// position net of its refunds; funds are conserved throughout.
import { describe, expect, it } from 'vitest';
import { E18, openLog, pendingFill, storeWith } from '../../test/helpers/engine-parts.js';
import { PendingFills } from './pending-fills.js';
import { Settlement } from './settlement.js';
import { LocalLedger } from './wallets/local-ledger.js';

const ZERO = '0x0000000000000000000000000000000000000000';

function setup() {
  const log = openLog();
  const wallets = new LocalLedger();
  for (const a of ['0xa1', '0xb1']) wallets.mint(a, 1000n);
  return { log, wallets, settlement: new Settlement(wallets, log, ZERO), fills: new PendingFills({ affiliate: '0x00' }, log) };
}

describe('Settlement', () => {
  it('an executed fill moves both stakes to escrow; a failed one changes no funds', () => {
    const { wallets, settlement, fills } = setup();
    const { posted } = storeWith({ percentageOdds: 40n * E18 });
    const failed = pendingFill(fills, '0xb1', [[posted[0]!, 40n]]);
    settlement.fillExecuted(failed, false, 3000);
    expect(wallets.escrowOf('0xa1')).toBe(0n);
    const ok = pendingFill(fills, '0xb1', [[posted[0]!, 40n]]);
    settlement.fillExecuted(ok, true, 3000);
    expect([wallets.escrowOf('0xa1'), wallets.escrowOf('0xb1')]).toEqual([40n, 60n]);
    expect(settlement.bettorsIn(ok.marketHash).sort()).toEqual(['0xa1', '0xb1']);
    expect(wallets.total()).toBe(wallets.minted);
  });

  it('opposite trades of one bettor refund the escrow its worst case no longer needs, netted at settlement', () => {
    const { wallets, settlement, fills, log } = setup();
    // Each bettor ends up backing both outcomes (0xa1: 40 on one, 40 on two), so either way it wins what it loses:
    // escrow beyond the worst case goes back at once.
    const { posted } = storeWith({ maker: '0xa1', percentageOdds: 40n * E18 }, { maker: '0xb1', percentageOdds: 60n * E18 });
    settlement.fillExecuted(pendingFill(fills, '0xb1', [[posted[0]!, 40n]]), true, 3000);
    settlement.fillExecuted(pendingFill(fills, '0xa1', [[posted[1]!, 60n]]), true, 3000);
    const refunds = log.records().filter((c) => c.type === 'refundPaid');
    expect(refunds.length).toBeGreaterThan(0);
    expect(settlement.refunds).toBe(refunds.length);
    const before = wallets.balanceOf('0xa1') + wallets.balanceOf('0xb1');
    expect(settlement.report({ marketHash: posted[0]!.marketHash, outcome: 1 }, undefined, 4000)).toBe(true);
    expect(settlement.report({ marketHash: posted[0]!.marketHash, outcome: 1 }, undefined, 4000)).toBe(false);
    settlement.settleMarket(posted[0]!.marketHash, 4000);
    // Everything held comes back (each bettor's own trades offset), escrow is empty and funds are conserved.
    expect(wallets.escrowOf('0xa1') + wallets.escrowOf('0xb1')).toBe(0n);
    expect(wallets.balanceOf('0xa1') + wallets.balanceOf('0xb1')).toBeGreaterThan(before);
    expect(wallets.total()).toBe(wallets.minted);
    expect(settlement.bettorsIn(posted[0]!.marketHash)).toEqual([]);
  });

  it('a market is reported with one outcome: another is refused, and a reported market refuses status changes', () => {
    const { settlement } = setup();
    settlement.report({ marketHash: '0xm1', outcome: 1 }, undefined, 1);
    expect(() => settlement.checkReports([{ marketHash: '0xm1', outcome: 1 }])).not.toThrow();
    expect(() => settlement.checkReports([{ marketHash: '0xm1', outcome: 2 }])).toThrow(expect.objectContaining({ errorCode: 'MARKET_ALREADY_REPORTED' }));
    expect(() => settlement.checkReports([{ marketHash: '0xm2', outcome: 1 }, { marketHash: '0xm2', outcome: 2 }])).toThrow();
    expect(() => settlement.checkNotReported(['0xm2', '0xm1'])).toThrow();
  });

  it('a trade confirmed after its market was reported is paid at once', () => {
    const { wallets, settlement, fills, log } = setup();
    const { posted } = storeWith({ percentageOdds: 40n * E18 });
    const record = pendingFill(fills, '0xb1', [[posted[0]!, 40n]]);
    settlement.report({ marketHash: record.marketHash, outcome: 1 }, undefined, 2500);
    settlement.fillExecuted(record, true, 3000);
    expect(log.records().filter((c) => c.type === 'tradeSettled')).toHaveLength(2);
    expect([wallets.balanceOf('0xa1'), wallets.balanceOf('0xb1')]).toEqual([1060n, 940n]);
    expect(wallets.total()).toBe(wallets.minted);
  });

  it('snapshot and from give back the same state', () => {
    const { wallets, settlement, fills, log } = setup();
    const { posted } = storeWith({ percentageOdds: 40n * E18 });
    settlement.fillExecuted(pendingFill(fills, '0xb1', [[posted[0]!, 40n]]), true, 3000);
    settlement.report({ marketHash: '0xother', outcome: 0 }, undefined, 1);
    const state = settlement.snapshot();
    expect(Settlement.from(wallets, log, ZERO, state).snapshot()).toEqual(state);
  });
});
