import fc from 'fast-check';
import { encodePacked, getAddress, keccak256, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { orderArb, privateKeyArb } from '../../test/helpers/protocol-arbitraries.js';
import { orderHash, packOrder, recoverOrderSigner, type OrderHashFields } from './hashing.js';

const RUNS = { numRuns: 200 };

/** The order hash as viem computes it: solidity abi.encodePacked in spec order, then keccak256. */
const viemOrderHash = (o: OrderHashFields): Hex =>
  keccak256(
    encodePacked(
      ['bytes32', 'address', 'uint256', 'uint256', 'uint256', 'uint256', 'address', 'address', 'bool'],
      [
        o.marketHash.toLowerCase() as Hex,
        getAddress(o.baseToken),
        o.totalBetSize,
        o.percentageOdds,
        o.expiry,
        o.salt,
        getAddress(o.maker),
        getAddress(o.executor),
        o.isMakerBettingOutcomeOne,
      ],
    ),
  );

const FIXED_ORDER: OrderHashFields = {
  marketHash: '0x' + '11'.repeat(32),
  baseToken: '0x5555555555555555555555555555555555555555',
  totalBetSize: 1_000_000_000n,
  percentageOdds: 50_000_000_000_000_000_000n,
  expiry: 1_700_000_000n,
  salt: 42n,
  maker: '0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf',
  executor: '0x3333333333333333333333333333333333333333',
  isMakerBettingOutcomeOne: false,
};

describe('orderHash', () => {
  it('matches a known vector (computed with viem encodePacked + keccak256)', () => {
    expect(orderHash(FIXED_ORDER)).toBe('0x64c8d0b768cde3882c80307b1087e8fe9ad74f46f1b20e466cd472744353524f');
  });

  it("equals viem's keccak256(encodePacked(...)) for random orders, hex in any case", () => {
    fc.assert(
      fc.property(orderArb, (order) => {
        const hash = orderHash(order);
        expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
        expect(hash).toBe(viemOrderHash(order));
      }),
      RUNS,
    );
  });

  it('packs 221 bytes with the bool as the last single byte', () => {
    const packed = packOrder({ ...FIXED_ORDER, isMakerBettingOutcomeOne: true });
    expect(packed.length).toBe(32 + 20 + 4 * 32 + 20 + 20 + 1);
    expect(packed[220]).toBe(1);
    expect(packOrder(FIXED_ORDER)[220]).toBe(0);
    // salt 42 is the last byte of the fourth uint256 word (offset 52 + 3 * 32).
    expect(packed[148 + 31]).toBe(42);
    expect(Buffer.from(packed.subarray(180, 200)).toString('hex')).toBe('7e5f4552091a69125d5dfcb7b8c2659029395bdf');
  });

  it('changes when any single field changes', () => {
    const base = orderHash(FIXED_ORDER);
    const variants: Partial<OrderHashFields>[] = [
      { marketHash: '0x' + '12'.repeat(32) },
      { baseToken: '0x5555555555555555555555555555555555555556' },
      { totalBetSize: 1_000_000_001n },
      { percentageOdds: 50_000_000_000_000_000_001n },
      { expiry: 1_700_000_001n },
      { salt: 43n },
      { maker: '0x3333333333333333333333333333333333333333' },
      { executor: '0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf' },
      { isMakerBettingOutcomeOne: true },
    ];
    const hashes = variants.map((v) => orderHash({ ...FIXED_ORDER, ...v }));
    expect(new Set([base, ...hashes]).size).toBe(variants.length + 1);
  });

  it('throws on malformed fields instead of hashing something else', () => {
    expect(() => orderHash({ ...FIXED_ORDER, marketHash: '0x' + '11'.repeat(31) })).toThrow(TypeError);
    expect(() => orderHash({ ...FIXED_ORDER, marketHash: '0x' + 'zz'.repeat(32) })).toThrow(/marketHash/);
    expect(() => orderHash({ ...FIXED_ORDER, maker: '5555555555555555555555555555555555555555' })).toThrow(/maker/);
    expect(() => orderHash({ ...FIXED_ORDER, executor: '0x' + '3'.repeat(41) })).toThrow(/executor/);
    expect(() => orderHash({ ...FIXED_ORDER, salt: -1n })).toThrow(RangeError);
    expect(() => orderHash({ ...FIXED_ORDER, totalBetSize: 1n << 256n })).toThrow(/totalBetSize/);
    expect(orderHash({ ...FIXED_ORDER, salt: (1n << 256n) - 1n })).toMatch(/^0x[0-9a-f]{64}$/);
  });
});

describe('recoverOrderSigner', () => {
  it('recovers the maker from a viem personal-message signature over the hash bytes', async () => {
    await fc.assert(
      fc.asyncProperty(orderArb, privateKeyArb, async (order, key) => {
        const account = privateKeyToAccount(key);
        const hash = orderHash(order);
        const signature = await account.signMessage({ message: { raw: hash as Hex } });
        expect(recoverOrderSigner(hash, signature)).toBe(account.address);
        expect(recoverOrderSigner(hash.toUpperCase().replace('0X', '0x'), signature)).toBe(account.address);
      }),
      RUNS,
    );
  });

  it('gives a different address for a signature over a different order', async () => {
    await fc.assert(
      fc.asyncProperty(orderArb, orderArb, privateKeyArb, async (signed, other, key) => {
        fc.pre(orderHash(signed) !== orderHash(other));
        const account = privateKeyToAccount(key);
        const signature = await account.signMessage({ message: { raw: orderHash(signed) as Hex } });
        expect(recoverOrderSigner(orderHash(other), signature)).not.toBe(account.address);
      }),
      { numRuns: 50 },
    );
  });

  it('does not accept a signature over the hash as a hex STRING (the bytes are what is signed)', async () => {
    const account = privateKeyToAccount(`0x${'01'.padStart(64, '0')}`);
    const hash = orderHash(FIXED_ORDER);
    const overText = await account.signMessage({ message: hash });
    expect(recoverOrderSigner(hash, overText)).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(recoverOrderSigner(hash, overText)).not.toBe(account.address);
  });

  it('returns undefined for a malformed order hash or signature', async () => {
    const account = privateKeyToAccount(`0x${'01'.padStart(64, '0')}`);
    const hash = orderHash(FIXED_ORDER);
    const signature = await account.signMessage({ message: { raw: hash as Hex } });
    expect(recoverOrderSigner(hash.slice(0, -2), signature)).toBeUndefined();
    expect(recoverOrderSigner(hash.slice(0, -1) + 'g', signature)).toBeUndefined();
    expect(recoverOrderSigner(hash, signature.slice(0, -2))).toBeUndefined();
    expect(recoverOrderSigner(hash, '')).toBeUndefined();
    expect(recoverOrderSigner(hash, 'not a signature')).toBeUndefined();
  });
});
