// What publications and consolidated entries take from a commit's change records instead of reading the store back
// must be exactly what the store holds after that commit: every trade, every executed fill's trades and every fill's
// chain record the records describe, through accepts, chain attempts, confirmations, failures and settlement.
import { describe, expect, it } from 'vitest';
import { ChangedTrades } from './changed-trades.js';
import { USDC } from '../../test/helpers/engine-params.js';
import type { Change } from '../engine/changes.js';
import type { Command } from '../engine/types.js';
import { MARKET, testHash, tradingFixture } from '../../test/helpers/trading-store-fixture.js';

describe('trades and fills described by change records', () => {
  it('equal the store after every commit', () => {
    const fx = tradingFixture();
    const rm = fx.store.readModels;
    const compared = { trades: 0, fills: 0, onChain: 0 };
    const check = (changes: readonly Change[]) => {
      const changed = new ChangedTrades(changes);
      for (const c of changes) {
        const id = c.type === 'tradeRecorded' ? c.trade.id : c.type === 'tradeStatusChanged' || c.type === 'tradeSettled' ? c.tradeId : undefined;
        const known = id === undefined ? undefined : changed.trade(id);
        if (known) {
          expect(known).toEqual(rm.trade(id!));
          compared.trades++;
        }
        const fillHash = c.type === 'fillAccepted' || c.type === 'fillExecuted' || c.type === 'fillAttempted' ? c.fillHash : undefined;
        if (fillHash === undefined) continue;
        const trades = changed.tradesOfFill(fillHash);
        if (trades) {
          expect(trades).toEqual(rm.tradesOfFill(fillHash));
          compared.fills++;
        }
        const onChain = changed.fillOnChain(fillHash);
        if (onChain) {
          expect(onChain).toEqual(rm.fillOnChain(fillHash));
          compared.onChain++;
        }
      }
    };
    const run = (cmd: Command) => check(fx.commit(cmd).changes);
    // Accepted and confirmed in separate commits; the second fill is attempted on chain twice first.
    run(fx.fillCommand(1, 10n * USDC));
    run({ kind: 'confirmFill', at: fx.next(), fillHash: testHash('f', 1) });
    run(fx.fillCommand(2, 50n * USDC));
    run({ kind: 'fillAttempt', at: fx.next(), fillHashes: [testHash('f', 2)], txHash: testHash('c', 1) });
    run({ kind: 'fillAttempt', at: fx.next(), fillHashes: [testHash('f', 2)], txHash: testHash('c', 2) });
    run({ kind: 'confirmFill', at: fx.next(), fillHash: testHash('f', 2), chain: { executed: true, txHash: testHash('c', 2) } });
    // A confirmation with a chain transaction and a revert reason (the local ledger still decides by its balances),
    // then a fill confirmed after its market was reported (it settles in the confirming command).
    run(fx.fillCommand(3, 10n * USDC));
    run({ kind: 'confirmFill', at: fx.next(), fillHash: testHash('f', 3), chain: { executed: false, txHash: testHash('c', 3), reason: 'OrderExpired' } });
    run(fx.fillCommand(4, 10n * USDC));
    run({ kind: 'reportMarkets', at: fx.next(), reports: [{ marketHash: MARKET.marketHash, outcome: 1 }] });
    run({ kind: 'confirmFill', at: fx.next(), fillHash: testHash('f', 4) });
    expect(rm.tradesOfFill(testHash('f', 4)).every((t) => t.settled && t.status === 'SUCCESS')).toBe(true);
    expect(rm.fillOnChain(testHash('f', 3))).toMatchObject({ txHash: testHash('c', 3), failureReason: 'OrderExpired' });
    expect(rm.fillOnChain(testHash('f', 2))).toEqual({ attempts: [testHash('c', 1), testHash('c', 2)], lastAttemptAt: expect.any(Number), txHash: testHash('c', 2) });
    expect(compared).toEqual({ trades: expect.any(Number), fills: 4, onChain: expect.any(Number) });
    expect(compared.trades).toBeGreaterThanOrEqual(16);
  });
});
