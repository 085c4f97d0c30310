import { describe, expect, it } from 'vitest';
import type { VerifyJob } from './jobs.js';
import { fromWire, toWire } from './wire.js';

const cancelDomain = { name: 'CancelOrderV2Oddex', version: '1.0', chainId: 137, salt: '0x' + '5a'.repeat(32) };
const signature = '0x' + 'ab'.repeat(65);
const jobs: VerifyJob[] = [
  {
    kind: 'order',
    signature,
    order: {
      marketHash: '0x' + '11'.repeat(32),
      baseToken: '0x' + '22'.repeat(20),
      totalBetSize: (1n << 255n) + 7n,
      percentageOdds: 40n * 10n ** 18n,
      expiry: 2_000_000_000n,
      salt: (1n << 256n) - 1n,
      maker: '0x' + '33'.repeat(20),
      executor: '0x' + '44'.repeat(20),
      isMakerBettingOutcomeOne: false,
    },
  },
  {
    kind: 'fill',
    signature,
    domain: { name: 'Fill', version: '6.0', chainId: 137, verifyingContract: '0x' + '55'.repeat(20) },
    fill: {
      market: '0x' + '66'.repeat(32),
      baseToken: '0x' + '22'.repeat(20),
      stakeWei: 30_000_000n,
      desiredOdds: 60n * 10n ** 18n,
      oddsSlippage: 3,
      isTakerBettingOutcomeOne: true,
      fillSalt: 123456789012345678901234567890n,
    },
  },
  { kind: 'cancelV2', signature, domain: cancelDomain, message: { orderHashes: ['0x' + '77'.repeat(32), '0x' + '88'.repeat(32)], timestamp: 1_700_000_000n } },
  { kind: 'cancelV2', signature, domain: cancelDomain, message: { orderHashes: [], timestamp: 0n } },
  { kind: 'cancelEvent', signature, domain: cancelDomain, message: { exchangeEventId: 'L1001', timestamp: 1_700_000_001n } },
  { kind: 'cancelAll', signature, domain: cancelDomain, message: { timestamp: 1_700_000_002n } },
  {
    kind: 'parlayRequest',
    signature,
    domain: cancelDomain,
    message: {
      legs: [
        { marketHash: '0x' + '99'.repeat(32), bettingOutcomeOne: true },
        { marketHash: '0x' + 'aa'.repeat(32), bettingOutcomeOne: false },
      ],
      baseToken: '0x' + '22'.repeat(20),
      requestSize: 25_000_000n,
      timestamp: 1_700_000_003n,
    },
  },
];

describe('verification jobs on the wire', () => {
  it.each(jobs.map((job) => [job.kind, job] as const))('%s survives the trip to a worker unchanged', (_kind, job) => {
    const wire = toWire(job);
    expect(wire.every((v) => ['string', 'number', 'boolean'].includes(typeof v))).toBe(true);
    expect(fromWire(structuredClone(wire))).toEqual(job);
  });

  it('refuses an unknown kind', () => {
    expect(() => fromWire([9, signature])).toThrow('unknown verification job kind 9');
  });
});
