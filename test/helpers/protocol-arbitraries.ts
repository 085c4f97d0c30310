// fast-check generators for the protocol tests: random keys, hashes, addresses, orders, fills and domains.
import fc from 'fast-check';
import type { Hex } from 'viem';

export const CURVE_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
export const UINT256_MAX = (1n << 256n) - 1n;

export const toHex = (bytes: Uint8Array): Hex => `0x${Buffer.from(bytes).toString('hex')}`;
export const word = (value: bigint): string => value.toString(16).padStart(64, '0');

const bytesHex = (length: number) => fc.uint8Array({ minLength: length, maxLength: length }).map(toHex);

/** Lower-case hex of 32 and 20 bytes. */
export const bytes32Arb = bytesHex(32);
export const addressArb = bytesHex(20);

/** The same hex digits with each letter's case chosen at random (the server accepts any case). */
export const anyCase = (hexArb: fc.Arbitrary<Hex>): fc.Arbitrary<string> =>
  hexArb.chain((hex) =>
    fc
      .array(fc.boolean(), { minLength: hex.length - 2, maxLength: hex.length - 2 })
      .map((upper) => '0x' + [...hex.slice(2)].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join('')),
  );

export const uint256Arb = fc.bigInt({ min: 0n, max: UINT256_MAX });
export const privateKeyArb = fc.bigInt({ min: 1n, max: CURVE_ORDER - 1n }).map((k): Hex => `0x${word(k)}`);

/** Strings with any Unicode graphemes, to exercise UTF-8 encoding of EIP-712 strings. */
export const textArb = fc.string({ unit: 'grapheme', maxLength: 40 });

export const orderArb = fc.record({
  marketHash: anyCase(bytes32Arb),
  baseToken: anyCase(addressArb),
  totalBetSize: uint256Arb,
  percentageOdds: uint256Arb,
  expiry: uint256Arb,
  salt: uint256Arb,
  maker: anyCase(addressArb),
  executor: anyCase(addressArb),
  isMakerBettingOutcomeOne: fc.boolean(),
});

export const fillDomainArb = fc.record({
  name: textArb,
  version: textArb,
  chainId: fc.oneof(fc.constantFrom(4162, 79479957), fc.integer({ min: 1, max: 2 ** 31 - 1 })),
  verifyingContract: addressArb,
});

export const cancelDomainArb = fc.record({
  name: textArb,
  version: fc.constant('1.0'),
  chainId: fc.oneof(fc.constantFrom(4162, 79479957), fc.integer({ min: 1, max: 2 ** 31 - 1 })),
  salt: bytes32Arb,
});

export const fillArb = fc.record({
  market: anyCase(bytes32Arb),
  baseToken: anyCase(addressArb),
  stakeWei: uint256Arb,
  desiredOdds: uint256Arb,
  oddsSlippage: fc.integer({ min: 0, max: 100 }),
  isTakerBettingOutcomeOne: fc.boolean(),
  fillSalt: uint256Arb,
});

export const timestampArb = fc.bigInt({ min: 0n, max: UINT256_MAX });
