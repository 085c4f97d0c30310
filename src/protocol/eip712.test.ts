import fc from 'fast-check';
import { hashTypedData, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import {
  bytes32Arb,
  cancelDomainArb,
  fillArb,
  fillDomainArb,
  privateKeyArb,
  textArb,
  timestampArb,
} from '../../test/helpers/protocol-arbitraries.js';
import {
  cancelAllDigest,
  cancelAllTypes,
  cancelEventDigest,
  cancelEventTypes,
  cancelV2Digest,
  cancelV2Types,
  fillDigest,
  fillTypes,
  recoverTypedDataSigner,
  type FillRequest,
} from './eip712.js';
import { encodeType } from './typed-data.js';

const RUNS = { numRuns: 200 };

/** The fill message exactly as spec 4.17 describes it, written independently of fillMessage(). */
const specFillMessage = (f: FillRequest) => ({
  action: 'N/A',
  market: f.market,
  betting: 'N/A',
  stake: 'N/A',
  worstOdds: 'N/A',
  worstReturning: 'N/A',
  fills: {
    stakeWei: f.stakeWei.toString(),
    marketHash: f.market,
    baseToken: f.baseToken,
    desiredOdds: f.desiredOdds.toString(),
    oddsSlippage: BigInt(f.oddsSlippage),
    isTakerBettingOutcomeOne: f.isTakerBettingOutcomeOne,
    fillSalt: f.fillSalt,
    beneficiary: '0x0000000000000000000000000000000000000000' as Hex,
    beneficiaryType: 0,
    cashOutTarget: ('0x' + '0'.repeat(64)) as Hex,
  },
});

const viemDomain = <D extends { verifyingContract?: string; salt?: string }>(d: D) =>
  d as D & { verifyingContract?: Hex; salt?: Hex };

/** cancelAllDigest of the fixed vector below, as computed by viem. */
const CANCEL_ALL_VECTOR = '0x5cc3fc58b4611717ab73605daba8c935c4705f0f40ea965b052cf33dc77fe0b5';

const orderHashesArb = fc.array(bytes32Arb, { maxLength: 12 });

describe('type definitions', () => {
  it('encode the fill and cancel types the spec names', () => {
    expect(encodeType(fillTypes, 'Details')).toBe(
      'Details(string action,string market,string betting,string stake,string worstOdds,string worstReturning,FillObject fills)' +
        'FillObject(string stakeWei,string marketHash,string baseToken,string desiredOdds,uint256 oddsSlippage,' +
        'bool isTakerBettingOutcomeOne,uint256 fillSalt,address beneficiary,uint8 beneficiaryType,bytes32 cashOutTarget)',
    );
    expect(encodeType(cancelV2Types, 'Details')).toBe('Details(string[] orderHashes,uint256 timestamp)');
    expect(encodeType(cancelEventTypes, 'Details')).toBe('Details(string exchangeEventId,uint256 timestamp)');
    expect(encodeType(cancelAllTypes, 'Details')).toBe('Details(uint256 timestamp)');
  });
});

describe('digests equal viem hashTypedData', () => {
  it('fill v2', () => {
    fc.assert(
      fc.property(fillDomainArb, fillArb, (domain, fill) => {
        const expected = hashTypedData({ domain: viemDomain(domain), types: fillTypes, primaryType: 'Details', message: specFillMessage(fill) });
        expect(fillDigest(domain, fill)).toBe(expected);
      }),
      RUNS,
    );
  });

  it('cancel/v2', () => {
    fc.assert(
      fc.property(cancelDomainArb, orderHashesArb, timestampArb, (domain, orderHashes, timestamp) => {
        const expected = hashTypedData({
          domain: viemDomain(domain),
          types: cancelV2Types,
          primaryType: 'Details',
          message: { orderHashes, timestamp },
        });
        expect(cancelV2Digest(domain, { orderHashes, timestamp })).toBe(expected);
      }),
      RUNS,
    );
  });

  it('cancel/event', () => {
    fc.assert(
      fc.property(cancelDomainArb, textArb, timestampArb, (domain, exchangeEventId, timestamp) => {
        const expected = hashTypedData({
          domain: viemDomain(domain),
          types: cancelEventTypes,
          primaryType: 'Details',
          message: { exchangeEventId, timestamp },
        });
        expect(cancelEventDigest(domain, { exchangeEventId, timestamp })).toBe(expected);
      }),
      RUNS,
    );
  });

  it('cancel/all', () => {
    fc.assert(
      fc.property(cancelDomainArb, timestampArb, (domain, timestamp) => {
        const expected = hashTypedData({ domain: viemDomain(domain), types: cancelAllTypes, primaryType: 'Details', message: { timestamp } });
        expect(cancelAllDigest(domain, { timestamp })).toBe(expected);
      }),
      RUNS,
    );
  });

  it('cancel/all matches a fixed vector (main network, computed with viem)', () => {
    const domain = { name: 'CancelAllOrdersOddex', version: '1.0', chainId: 4162, salt: '0x' + '5a'.repeat(32) };
    expect(cancelAllDigest(domain, { timestamp: 1_700_000_000n })).toBe(
      hashTypedData({ domain: viemDomain(domain), types: cancelAllTypes, primaryType: 'Details', message: { timestamp: 1_700_000_000n } }),
    );
    expect(cancelAllDigest(domain, { timestamp: 1_700_000_000n })).toBe(CANCEL_ALL_VECTOR);
  });
});

describe('recoverTypedDataSigner', () => {
  it('recovers the taker of a viem-signed fill', async () => {
    await fc.assert(
      fc.asyncProperty(fillDomainArb, fillArb, privateKeyArb, async (domain, fill, key) => {
        const account = privateKeyToAccount(key);
        const sig = await account.signTypedData({
          domain: viemDomain(domain),
          types: fillTypes,
          primaryType: 'Details',
          message: specFillMessage(fill),
        });
        expect(recoverTypedDataSigner(fillDigest(domain, fill), sig)).toBe(account.address);
      }),
      { numRuns: 100 },
    );
  });

  it('recovers the maker of viem-signed cancels of each kind', async () => {
    await fc.assert(
      fc.asyncProperty(cancelDomainArb, orderHashesArb, textArb, timestampArb, privateKeyArb, async (domain, orderHashes, eventId, timestamp, key) => {
        const account = privateKeyToAccount(key);
        const d = viemDomain(domain);
        const v2 = await account.signTypedData({ domain: d, types: cancelV2Types, primaryType: 'Details', message: { orderHashes, timestamp } });
        const event = await account.signTypedData({
          domain: d,
          types: cancelEventTypes,
          primaryType: 'Details',
          message: { exchangeEventId: eventId, timestamp },
        });
        const all = await account.signTypedData({ domain: d, types: cancelAllTypes, primaryType: 'Details', message: { timestamp } });
        expect(recoverTypedDataSigner(cancelV2Digest(domain, { orderHashes, timestamp }), v2)).toBe(account.address);
        expect(recoverTypedDataSigner(cancelEventDigest(domain, { exchangeEventId: eventId, timestamp }), event)).toBe(account.address);
        expect(recoverTypedDataSigner(cancelAllDigest(domain, { timestamp }), all)).toBe(account.address);
        // A signature of one kind never authorises another.
        expect(recoverTypedDataSigner(cancelAllDigest(domain, { timestamp }), v2)).not.toBe(account.address);
      }),
      { numRuns: 50 },
    );
  });

  it('gives a different address when the domain or any signed value differs', async () => {
    const account = privateKeyToAccount(`0x${'07'.repeat(32)}`);
    const domain = { name: 'Oddex', version: '1.0', chainId: 79479957, verifyingContract: '0x' + '12'.repeat(20) };
    const fill: FillRequest = {
      market: '0x' + 'ab'.repeat(32),
      baseToken: '0x' + '34'.repeat(20),
      stakeWei: 1_000_000n,
      desiredOdds: 52_000_000_000_000_000_000n,
      oddsSlippage: 5,
      isTakerBettingOutcomeOne: true,
      fillSalt: 77n,
    };
    const sig = await account.signTypedData({ domain: viemDomain(domain), types: fillTypes, primaryType: 'Details', message: specFillMessage(fill) });
    expect(recoverTypedDataSigner(fillDigest(domain, fill), sig)).toBe(account.address);
    const altered = [
      fillDigest({ ...domain, chainId: 4162 }, fill),
      fillDigest({ ...domain, name: 'Other' }, fill),
      fillDigest({ ...domain, version: '2.0' }, fill),
      fillDigest({ ...domain, verifyingContract: '0x' + '13'.repeat(20) }, fill),
      fillDigest(domain, { ...fill, stakeWei: 1_000_001n }),
      fillDigest(domain, { ...fill, desiredOdds: 52_000_000_000_000_000_001n }),
      fillDigest(domain, { ...fill, oddsSlippage: 6 }),
      fillDigest(domain, { ...fill, isTakerBettingOutcomeOne: false }),
      fillDigest(domain, { ...fill, fillSalt: 78n }),
      fillDigest(domain, { ...fill, market: fill.market.toUpperCase().replace('0X', '0x') }),
      fillDigest(domain, { ...fill, baseToken: '0x' + '35'.repeat(20) }),
    ];
    for (const digest of altered) expect(recoverTypedDataSigner(digest, sig)).not.toBe(account.address);
  });

  it('returns undefined for a malformed digest or signature', async () => {
    const account = privateKeyToAccount(`0x${'07'.repeat(32)}`);
    const domain = { name: 'CancelAllOrdersOddex', version: '1.0', chainId: 4162, salt: '0x' + '5a'.repeat(32) };
    const digest = cancelAllDigest(domain, { timestamp: 1n });
    const sig = await account.signTypedData({ domain: viemDomain(domain), types: cancelAllTypes, primaryType: 'Details', message: { timestamp: 1n } });
    expect(recoverTypedDataSigner(digest, sig)).toBe(account.address);
    expect(recoverTypedDataSigner(digest.slice(0, 64), sig)).toBeUndefined();
    expect(recoverTypedDataSigner('', sig)).toBeUndefined();
    expect(recoverTypedDataSigner(digest, sig.slice(0, 130))).toBeUndefined();
    expect(recoverTypedDataSigner(digest, sig.slice(0, 130) + '1d')).toBeUndefined();
    expect(recoverTypedDataSigner(digest, 'x'.repeat(132))).toBeUndefined();
  });
});
