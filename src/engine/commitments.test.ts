// Commitments alone: free balance, shortfall restrictions, and a state round trip with injected wallets.
import { describe, expect, it } from 'vitest';
import { ChangeLog } from './change-log.js';
import { Commitments } from './commitments.js';
import { defaultEngineParams } from '../../test/helpers/engine-params.js';
import { LocalLedger } from './wallets/local-ledger.js';
import { walletsFor } from './wallets/wallets-for.js';

const params = defaultEngineParams('0xc1');

function setup() {
  const wallets = new LocalLedger();
  wallets.mint('0xa', 1000n);
  return { wallets, c: new Commitments(wallets, params), log: new ChangeLog() };
}

describe('Commitments', () => {
  it('free balance is what the wallet may spend less exposure and pending taker stakes', () => {
    const { wallets, c } = setup();
    c.addExposure('0xa', 300n);
    c.addPendingTakerStake('0xa', 200n);
    expect(c.freeBalance('0xa')).toBe(500n);
    wallets.approved('0xa', 600n);
    expect(c.freeBalance('0xa')).toBe(100n);
    c.addExposure('0xa', -300n);
    c.addPendingTakerStake('0xa', -200n);
    expect(c.snapshot().exposure).toEqual([]);
    expect(c.snapshot().pendingTakerStake).toEqual([]);
  });

  it('restricts an account after the threshold of shortfalls within the window, and lifts it', () => {
    const { c, log } = setup();
    log.begin();
    c.recordShortfall(log, '0xa', 1000);
    c.recordShortfall(log, '0xa', 2000);
    expect(c.isRestricted('0xa', 2000)).toBe(false);
    c.recordShortfall(log, '0xa', 3000);
    expect(c.isRestricted('0xa', 3000 + params.restrictionMs - 1)).toBe(true);
    expect(c.isRestricted('0xa', 3000 + params.restrictionMs)).toBe(false);
    c.liftRestriction(log, '0xa');
    expect(c.restrictionOf('0xa')).toBeUndefined();
    expect(log.records()).toEqual([
      { type: 'restrictionChanged', address: '0xa', restrictedUntil: null, shortfalls: [1000] },
      { type: 'restrictionChanged', address: '0xa', restrictedUntil: null, shortfalls: [1000, 2000] },
      { type: 'restrictionChanged', address: '0xa', restrictedUntil: 3000 + params.restrictionMs, shortfalls: [1000, 2000, 3000] },
      { type: 'restrictionChanged', address: '0xa', restrictedUntil: null, shortfalls: [] },
    ]);
    log.end();
  });

  it('a restriction read is a copy', () => {
    const { c, log } = setup();
    log.begin();
    c.recordShortfall(log, '0xa', 1000);
    log.end();
    c.restrictionOf('0xa')!.shortfalls.push(5);
    expect(c.restrictionOf('0xa')!.shortfalls).toEqual([1000]);
  });

  it('snapshot and from give back the same state, on wallets rebuilt from the ledger state', () => {
    const { c, log } = setup();
    c.addExposure('0xa', 10n);
    c.addPendingTakerStake('0xb', 20n);
    log.begin();
    c.recordShortfall(log, '0xa', 1000);
    log.end();
    const state = c.snapshot();
    const copy = Commitments.from(walletsFor(false, state.ledger), params, state);
    expect(copy.snapshot()).toEqual(state);
    expect(copy.freeBalance('0xa')).toBe(990n);
  });
});
