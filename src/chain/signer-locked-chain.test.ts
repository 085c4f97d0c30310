import { describe, expect, it } from 'vitest';
import { SignerLockedChain, type SignerLock } from './signer-locked-chain.js';
import type { ReportedMarket, SettlementChain } from './settlement-chain.js';

const silent = { info: () => {}, warn: () => {} };

/** A lock granted when the test says so, and a chain that records what it was asked. */
function setUp() {
  let grant: () => void = () => {};
  const released: string[] = [];
  const lock: SignerLock = { lost: new Promise<Error>(() => {}), release: async () => void released.push('released') };
  const granted = new Promise<SignerLock>((resolve) => (grant = () => resolve(lock)));
  const calls: string[] = [];
  const inner: SettlementChain = {
    start: () => void calls.push('start'),
    submit: (fillHash) => void calls.push(`submit ${fillHash}`),
    marketsReported: (markets: ReportedMarket[]) => void calls.push(`markets ${markets.map((m) => m.marketHash).join(',')}`),
    refundsPaid: () => void calls.push('refunds'),
    stop: () => void calls.push('stop'),
  };
  const chain = new SignerLockedChain(inner, () => granted, silent);
  return { chain, calls, released, grant };
}

const flush = () => new Promise((r) => setTimeout(r, 0));
const market = (marketHash: string): ReportedMarket => ({ marketHash, outcome: 1, bettors: [] });

describe('a chain behind the settlement lock', () => {
  it('starts nothing until the lock is held; then starts, hands over payouts in order and each waiting fill once', async () => {
    const { chain, calls, grant } = setUp();
    chain.start();
    const waits = [chain.submit('0xa', 1), chain.submit('0xa', 1), chain.submit('0xb', 2)];
    chain.marketsReported!([market('0x1')]);
    chain.refundsPaid!([]);
    chain.marketsReported!([market('0x2')]);
    await flush();
    expect(calls).toEqual([]);
    // Repeats of a waiting fill's submit join it: one submit per fill however often it was tried.
    expect(waits[0]).toBe(waits[1]);

    grant();
    await Promise.all(waits);
    expect(calls).toEqual(['start', 'markets 0x1', 'refunds', 'markets 0x2', 'submit 0xa', 'submit 0xb']);
    chain.submit('0xc', 3);
    chain.marketsReported!([market('0x3')]);
    expect(calls.slice(-2)).toEqual(['submit 0xc', 'markets 0x3']);
  });

  it('keeps the payout hooks of a chain that pays on chain only, and gives the lock back on stop', async () => {
    const { chain, calls, released, grant } = setUp();
    const local = new SignerLockedChain({ submit: () => {}, stop: () => {} }, () => new Promise(() => {}), silent);
    expect([local.marketsReported, local.refundsPaid]).toEqual([undefined, undefined]);
    chain.start();
    grant();
    await flush();
    chain.stop();
    await flush();
    expect(calls).toEqual(['start', 'stop']);
    expect(released).toEqual(['released']);
  });
});
