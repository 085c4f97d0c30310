import fc from 'fast-check';
import { hashStruct as viemHashStruct, hashTypedData as viemHashTypedData, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { addressArb, bytes32Arb, textArb, toHex, uint256Arb } from '../../test/helpers/protocol-arbitraries.js';
import { encodeType, hashStruct, hashTypedData, type TypedDataDomain } from './typed-data.js';

/** Every supported field kind: nested structs, arrays of structs and strings, uint8/uint64/uint256, bool, bytes32, address. */
const richTypes = {
  Mail: [
    { name: 'from', type: 'Person' },
    { name: 'to', type: 'Person[]' },
    { name: 'subject', type: 'string' },
    { name: 'tags', type: 'string[]' },
    { name: 'attachment', type: 'Asset' },
  ],
  Person: [
    { name: 'name', type: 'string' },
    { name: 'wallet', type: 'address' },
    { name: 'verified', type: 'bool' },
  ],
  Asset: [
    { name: 'kind', type: 'uint8' },
    { name: 'size', type: 'uint64' },
    { name: 'amount', type: 'uint256' },
    { name: 'digest', type: 'bytes32' },
  ],
} as const;

const personArb = fc.record({ name: textArb, wallet: addressArb, verified: fc.boolean() });
const mailArb = fc.record({
  from: personArb,
  to: fc.array(personArb, { maxLength: 4 }),
  subject: textArb,
  tags: fc.array(textArb, { maxLength: 5 }),
  attachment: fc.record({
    kind: fc.integer({ min: 0, max: 255 }),
    size: fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
    amount: uint256Arb,
    digest: bytes32Arb,
  }),
});

/** A domain with any subset of the five EIP712Domain fields. */
const domainArb: fc.Arbitrary<TypedDataDomain> = fc.record(
  {
    name: textArb,
    version: textArb,
    chainId: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
    verifyingContract: addressArb,
    salt: bytes32Arb,
  },
  { requiredKeys: [] },
);

describe('encodeType', () => {
  it('lists the primary type, then each referenced struct once in name order', () => {
    expect(encodeType(richTypes, 'Mail')).toBe(
      'Mail(Person from,Person[] to,string subject,string[] tags,Asset attachment)' +
        'Asset(uint8 kind,uint64 size,uint256 amount,bytes32 digest)' +
        'Person(string name,address wallet,bool verified)',
    );
    expect(encodeType(richTypes, 'Person')).toBe('Person(string name,address wallet,bool verified)');
  });

  it('throws for an undefined struct', () => {
    expect(() => encodeType(richTypes, 'Letter')).toThrow(/Letter is not defined/);
  });
});

describe('hashStruct and hashTypedData', () => {
  it("equal viem's hashStruct for random values of every supported field kind", () => {
    fc.assert(
      fc.property(mailArb, (mail) => {
        expect(toHex(hashStruct(richTypes, 'Mail', mail))).toBe(viemHashStruct({ data: mail, primaryType: 'Mail', types: richTypes }));
      }),
      { numRuns: 200 },
    );
  });

  it("equal viem's hashTypedData for domains with any subset of fields", () => {
    fc.assert(
      fc.property(domainArb, personArb, (domain, person) => {
        const ours = toHex(hashTypedData(domain, richTypes, 'Person', person));
        const theirs = viemHashTypedData({
          domain: domain as { salt?: Hex; verifyingContract?: Hex },
          types: richTypes,
          primaryType: 'Person',
          message: person,
        });
        expect(ours).toBe(theirs);
      }),
      { numRuns: 200 },
    );
  });

  it('keeps memoised domains apart: an absent field is not the text "undefined", and field boundaries count', () => {
    const person = { name: 'a', wallet: `0x${'11'.repeat(20)}` as Hex, verified: true };
    const domains: { name?: string; version?: string; chainId?: number | bigint }[] = [
      { version: '1' },
      { name: 'undefined', version: '1' },
      { name: 'a\u0000b', version: 'c' },
      { name: 'a', version: 'b\u0000c' },
      { name: 'n', chainId: 5 },
      { name: 'n', chainId: 5n, version: undefined },
    ];
    const digests = domains.map((d) => toHex(hashTypedData(d, richTypes, 'Person', person)));
    digests.forEach((digest, i) => {
      expect(digest).toBe(viemHashTypedData({ domain: domains[i]!, types: richTypes, primaryType: 'Person', message: person }));
    });
    expect(new Set(digests.slice(0, 4)).size).toBe(4);
    expect(digests[4]).toBe(digests[5]);
  });

  it('stays correct past the string memo capacity and for strings too long to memoise', () => {
    const types = { S: [{ name: 's', type: 'string' }] } as const;
    const strings = [...Array.from({ length: 5000 }, (_, i) => `s${i}`), 'x'.repeat(129), 'y'.repeat(5000)];
    for (const s of strings) hashStruct(types, 'S', { s });
    for (const s of [...strings.slice(0, 3), ...strings.slice(-3)]) {
      expect(toHex(hashStruct(types, 'S', { s }))).toBe(viemHashStruct({ data: { s }, primaryType: 'S', types }));
    }
  });

  it('throws on values that do not fit their type', () => {
    const asset = { kind: 1, size: 2n, amount: 3n, digest: '0x' + '00'.repeat(32) };
    expect(() => hashStruct(richTypes, 'Asset', asset)).not.toThrow();
    expect(() => hashStruct(richTypes, 'Asset', { ...asset, kind: 256 })).toThrow(/Asset.kind must be an integer from 0 to 2\^8 - 1/);
    expect(() => hashStruct(richTypes, 'Asset', { ...asset, kind: 1.5 })).toThrow(RangeError);
    expect(() => hashStruct(richTypes, 'Asset', { ...asset, size: 1n << 64n })).toThrow(/Asset.size/);
    expect(() => hashStruct(richTypes, 'Asset', { ...asset, amount: '3' })).toThrow(/Asset.amount must be a bigint/);
    expect(() => hashStruct(richTypes, 'Asset', { ...asset, digest: '0x00' })).toThrow(/Asset.digest/);
    const person = { name: 'a', wallet: '0x' + '11'.repeat(20), verified: true };
    expect(() => hashStruct(richTypes, 'Person', { ...person, verified: 'true' })).toThrow(/Person.verified must be a boolean/);
    expect(() => hashStruct(richTypes, 'Person', { ...person, name: 7 })).toThrow(/Person.name must be a string/);
    expect(() => hashStruct(richTypes, 'Person', { ...person, wallet: '0x11' })).toThrow(/Person.wallet/);
    expect(() => hashStruct(richTypes, 'Person', null)).toThrow(/Person must be an object/);
    expect(() => hashStruct({ T: [{ name: 'x', type: 'Person[]' }] }, 'T', { x: 'no' })).toThrow(/T.x must be an array/);
  });

  it('rejects types it does not implement rather than mis-encoding them', () => {
    for (const type of ['int256', 'bytes', 'bytes4', 'uint7', 'uint264', 'uint', 'string[2]']) {
      expect(() => hashStruct({ T: [{ name: 'x', type }] }, 'T', { x: 1n }), type).toThrow(/not supported|must be/);
    }
  });
});
