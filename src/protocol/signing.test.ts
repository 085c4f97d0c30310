import fc from 'fast-check';
import { recoverMessageAddress, recoverTypedDataAddress, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import {
  CURVE_ORDER,
  bytes32Arb,
  cancelDomainArb,
  fillArb,
  fillDomainArb,
  orderArb,
  privateKeyArb,
  textArb,
  timestampArb,
  word,
} from '../../test/helpers/protocol-arbitraries.js';
import { cancelAllTypes, cancelEventTypes, cancelV2Types, fillMessage, fillTypes } from './eip712.js';
import { orderHash } from './hashing.js';
import { addressOf, signCancelAll, signCancelEvent, signCancelV2, signDigest, signFill, signOrder } from './signing.js';

const RUNS = { numRuns: 100 };
const HALF_ORDER = CURVE_ORDER >> 1n;

const asViemDomain = <D extends { verifyingContract?: string; salt?: string }>(d: D) => d as D & { verifyingContract?: Hex; salt?: Hex };

/** r || s || v with s in the low half and v 27/28, as a wallet would produce. */
function expectWalletShape(sig: string): void {
  expect(sig).toMatch(/^0x[0-9a-f]{128}(1b|1c)$/);
  expect(BigInt('0x' + sig.slice(66, 130)) <= HALF_ORDER).toBe(true);
}

describe('addressOf', () => {
  it('derives the same checksummed address as viem', () => {
    fc.assert(
      fc.property(privateKeyArb, (key) => {
        expect(addressOf(key)).toBe(privateKeyToAccount(key).address);
        expect(addressOf(Uint8Array.from(Buffer.from(key.slice(2), 'hex')))).toBe(privateKeyToAccount(key).address);
      }),
      RUNS,
    );
  });

  it('throws for keys that are not valid secp256k1 secrets', () => {
    expect(() => addressOf('0x' + '00'.repeat(32))).toThrow(/private key/);
    expect(() => addressOf('0x' + word(CURVE_ORDER))).toThrow(/private key/);
    expect(() => addressOf('0x' + '11'.repeat(31))).toThrow(/private key/);
    expect(() => addressOf('11'.repeat(32))).toThrow(/private key/);
    expect(() => addressOf(new Uint8Array(31).fill(1))).toThrow(/private key/);
  });
});

describe('sdk signatures verify in viem and equal its deterministic signatures', () => {
  it('signOrder', async () => {
    await fc.assert(
      fc.asyncProperty(orderArb, privateKeyArb, async (order, key) => {
        const sig = signOrder(order, key);
        expectWalletShape(sig);
        const hash = orderHash(order) as Hex;
        expect(await recoverMessageAddress({ message: { raw: hash }, signature: sig as Hex })).toBe(privateKeyToAccount(key).address);
        expect(sig).toBe(await privateKeyToAccount(key).signMessage({ message: { raw: hash } }));
      }),
      RUNS,
    );
  });

  it('signFill', async () => {
    await fc.assert(
      fc.asyncProperty(fillDomainArb, fillArb, privateKeyArb, async (domain, fill, key) => {
        const sig = signFill(domain, fill, key);
        expectWalletShape(sig);
        const typed = { domain: asViemDomain(domain), types: fillTypes, primaryType: 'Details' as const, message: fillMessage(fill) as never };
        expect(await recoverTypedDataAddress({ ...typed, signature: sig as Hex })).toBe(privateKeyToAccount(key).address);
        expect(sig).toBe(await privateKeyToAccount(key).signTypedData(typed));
      }),
      RUNS,
    );
  });

  it('signCancelV2, signCancelEvent and signCancelAll', async () => {
    await fc.assert(
      fc.asyncProperty(
        cancelDomainArb,
        fc.array(bytes32Arb, { maxLength: 8 }),
        textArb,
        timestampArb,
        privateKeyArb,
        async (domain, orderHashes, exchangeEventId, timestamp, key) => {
          const address = privateKeyToAccount(key).address;
          const d = asViemDomain(domain);
          const v2 = signCancelV2(domain, { orderHashes, timestamp }, key);
          const event = signCancelEvent(domain, { exchangeEventId, timestamp }, key);
          const all = signCancelAll(domain, { timestamp }, key);
          for (const sig of [v2, event, all]) expectWalletShape(sig);
          const v2Typed = { domain: d, types: cancelV2Types, primaryType: 'Details' as const, message: { orderHashes, timestamp } };
          const eventTyped = { domain: d, types: cancelEventTypes, primaryType: 'Details' as const, message: { exchangeEventId, timestamp } };
          const allTyped = { domain: d, types: cancelAllTypes, primaryType: 'Details' as const, message: { timestamp } };
          expect(await recoverTypedDataAddress({ ...v2Typed, signature: v2 as Hex })).toBe(address);
          expect(await recoverTypedDataAddress({ ...eventTyped, signature: event as Hex })).toBe(address);
          expect(await recoverTypedDataAddress({ ...allTyped, signature: all as Hex })).toBe(address);
          expect(all).toBe(await privateKeyToAccount(key).signTypedData(allTyped));
        },
      ),
      { numRuns: 50 },
    );
  });

  it('signDigest signs the 32 bytes as given and rejects a bad key', () => {
    const digest = new Uint8Array(32).fill(9);
    const key = `0x${word(3n)}`;
    expectWalletShape(signDigest(digest, key));
    expect(signDigest(digest, key)).toBe(signDigest(digest, key));
    expect(() => signDigest(digest, '0xzz')).toThrow(/private key/);
  });
});
