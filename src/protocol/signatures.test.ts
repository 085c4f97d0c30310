import { secp256k1 } from '@noble/curves/secp256k1.js';
import fc from 'fast-check';
import type { Hex } from 'viem';
import { privateKeyToAccount, sign } from 'viem/accounts';
import { afterEach, describe, expect, it } from 'vitest';
import { CURVE_ORDER, bytes32Arb, privateKeyArb, toHex, word } from '../../test/helpers/protocol-arbitraries.js';
import {
  canonicalSignature,
  forceNobleFallback,
  parseSignature,
  recoverSigner,
  recoverSignerOfHexDigest,
  recoveryBackend,
  type RecoveryBackend,
} from './signatures.js';

const BACKENDS: RecoveryBackend[] = ['native', 'noble'];
const HALF_ORDER = CURVE_ORDER >> 1n;

function useBackend(backend: RecoveryBackend): void {
  forceNobleFallback(backend === 'noble');
  expect(recoveryBackend()).toBe(backend);
}

afterEach(() => forceNobleFallback(false));

const bytes = (hex: string): Uint8Array => Uint8Array.from(Buffer.from(hex.slice(2), 'hex'));
const signature = (r: bigint, s: bigint, v: number): string => `0x${word(r)}${word(s)}${v.toString(16).padStart(2, '0')}`;
const split = (sig: string) => ({ r: BigInt(sig.slice(0, 66)), s: BigInt('0x' + sig.slice(66, 130)), v: parseInt(sig.slice(130), 16) });

const KEY: Hex = `0x${word(0xc0ffeen)}`;
const ACCOUNT = privateKeyToAccount(KEY);
const DIGEST: Hex = `0x${'ab'.repeat(32)}`;

describe('recoverSigner', () => {
  it('uses the native addon here, and forceNobleFallback switches to noble and back', () => {
    expect(recoveryBackend()).toBe('native');
    forceNobleFallback(true);
    expect(recoveryBackend()).toBe('noble');
    forceNobleFallback(false);
    expect(recoveryBackend()).toBe('native');
  });

  for (const backend of BACKENDS) {
    it(`recovers the signer of viem-signed digests (${backend})`, async () => {
      useBackend(backend);
      await fc.assert(
        fc.asyncProperty(bytes32Arb, privateKeyArb, async (digest, key) => {
          const sig = await sign({ hash: digest, privateKey: key, to: 'hex' });
          expect(recoverSigner(bytes(digest), sig)).toBe(privateKeyToAccount(key).address);
          expect(recoverSignerOfHexDigest(digest, sig)).toBe(privateKeyToAccount(key).address);
        }),
        { numRuns: 200 },
      );
    });

    it(`accepts v as 0/1 as well as 27/28 (${backend})`, async () => {
      useBackend(backend);
      const sig = await sign({ hash: DIGEST, privateKey: KEY, to: 'hex' });
      const { r, s, v } = split(sig);
      expect([27, 28]).toContain(v);
      expect(recoverSigner(bytes(DIGEST), signature(r, s, v))).toBe(ACCOUNT.address);
      expect(recoverSigner(bytes(DIGEST), signature(r, s, v - 27))).toBe(ACCOUNT.address);
      // The other parity recovers some other key, never the signer.
      expect(recoverSigner(bytes(DIGEST), signature(r, s, v === 27 ? 28 : 27))).not.toBe(ACCOUNT.address);
    });

    it(`rejects high-s signatures although (r, n - s) with flipped v is mathematically valid (${backend})`, async () => {
      useBackend(backend);
      const { r, s, v } = split(await sign({ hash: DIGEST, privateKey: KEY, to: 'hex' }));
      const highS = signature(r, CURVE_ORDER - s, v === 27 ? 28 : 27);
      const compact = bytes(highS).subarray(0, 64);
      expect(secp256k1.verify(compact, bytes(DIGEST), secp256k1.getPublicKey(bytes(KEY)), { prehash: false, lowS: false })).toBe(true);
      expect(recoverSigner(bytes(DIGEST), highS)).toBeUndefined();
    });

    it(`returns undefined when r is not the x coordinate of a curve point (${backend})`, () => {
      useBackend(backend);
      let r = 1n;
      while (isCurveX(r)) r++;
      expect(recoverSigner(bytes(DIGEST), signature(r, 1n, 27))).toBeUndefined();
      expect(recoverSigner(bytes(DIGEST), signature(r, 1n, 28))).toBeUndefined();
    });
  }

  it('agrees between native and noble on random 65-byte signatures, recoverable or not', () => {
    const sigArb = fc.tuple(fc.bigInt({ min: 1n, max: CURVE_ORDER - 1n }), fc.bigInt({ min: 1n, max: HALF_ORDER }), fc.constantFrom(0, 1, 27, 28));
    const outcomes = { recovered: 0, unrecoverable: 0 };
    fc.assert(
      fc.property(bytes32Arb, sigArb, (digest, [r, s, v]) => {
        const sig = signature(r, s, v);
        useBackend('native');
        const native = recoverSigner(bytes(digest), sig);
        useBackend('noble');
        expect(recoverSigner(bytes(digest), sig)).toBe(native);
        outcomes[native === undefined ? 'unrecoverable' : 'recovered']++;
      }),
      { numRuns: 200 },
    );
    // About half of random r values are not on the curve: both outcomes must have been compared.
    expect(outcomes.recovered).toBeGreaterThan(20);
    expect(outcomes.unrecoverable).toBeGreaterThan(20);
  });

  it('returns undefined for a digest that is not 32 bytes', async () => {
    const sig = await sign({ hash: DIGEST, privateKey: KEY, to: 'hex' });
    expect(recoverSigner(bytes(DIGEST).subarray(1), sig)).toBeUndefined();
    expect(recoverSignerOfHexDigest(DIGEST.slice(0, -2), sig)).toBeUndefined();
    expect(recoverSignerOfHexDigest(DIGEST.slice(2), sig)).toBeUndefined();
    expect(recoverSignerOfHexDigest(undefined, sig)).toBeUndefined();
  });
});

function isCurveX(x: bigint): boolean {
  try {
    secp256k1.Point.fromHex('02' + word(x));
    return true;
  } catch {
    return false;
  }
}

describe('parseSignature', () => {
  const r = 0x1234n;
  const s = 0x5678n;

  it('splits r || s and maps v 27/28 and 0/1 to recovery id 0/1', () => {
    for (const [v, id] of [[27, 0], [28, 1], [0, 0], [1, 1]] as const) {
      const parsed = parseSignature(signature(r, s, v));
      expect(parsed?.recoveryId).toBe(id);
      expect(toHex(parsed!.compact)).toBe(`0x${word(r)}${word(s)}`);
    }
  });

  it('rejects v outside 0, 1, 27, 28', () => {
    for (const v of [2, 3, 26, 29, 30, 37, 255]) expect(parseSignature(signature(r, s, v))).toBeUndefined();
  });

  it('rejects malformed hex, a wrong length and non-strings', () => {
    const good = signature(r, s, 27);
    expect(parseSignature(good)).toBeDefined();
    expect(parseSignature(good.slice(2))).toBeUndefined();
    expect(parseSignature('0X' + good.slice(2))).toBeUndefined();
    expect(parseSignature(good.slice(0, -1) + 'g')).toBeUndefined();
    expect(parseSignature(good.slice(0, 10) + ' ' + good.slice(11))).toBeUndefined();
    expect(parseSignature(good.slice(0, 10) + 'é' + good.slice(11))).toBeUndefined();
    expect(parseSignature(good.slice(0, -2))).toBeUndefined();
    expect(parseSignature(good + '1b')).toBeUndefined();
    expect(parseSignature(good + '1')).toBeUndefined();
    expect(parseSignature('')).toBeUndefined();
    expect(parseSignature('0x')).toBeUndefined();
    expect(parseSignature(undefined)).toBeUndefined();
    expect(parseSignature(null)).toBeUndefined();
    expect(parseSignature(12345)).toBeUndefined();
    expect(parseSignature(bytes(good))).toBeUndefined();
  });

  it('accepts s up to n/2 and rejects anything above (EIP-2)', () => {
    expect(parseSignature(signature(r, HALF_ORDER, 27))).toBeDefined();
    expect(parseSignature(signature(r, HALF_ORDER + 1n, 27))).toBeUndefined();
    expect(parseSignature(signature(r, CURVE_ORDER - 1n, 27))).toBeUndefined();
  });

  it('rejects r or s of zero and r of n or more', () => {
    expect(parseSignature(signature(0n, s, 27))).toBeUndefined();
    expect(parseSignature(signature(r, 0n, 27))).toBeUndefined();
    expect(parseSignature(signature(CURVE_ORDER - 1n, s, 27))).toBeDefined();
    expect(parseSignature(signature(CURVE_ORDER, s, 27))).toBeUndefined();
    expect(parseSignature(signature((1n << 256n) - 1n, s, 27))).toBeUndefined();
  });
});

describe('canonicalSignature', () => {
  it('writes v as 27/28 in lower case, the form the settlement contract verifies, and recovers the same signer', async () => {
    const sig = await sign({ hash: DIGEST, privateKey: KEY, to: 'hex' });
    const { r, s, v } = split(sig);
    const upper = `0x${sig.slice(2).toUpperCase()}`;
    expect(canonicalSignature(upper)).toBe(sig.toLowerCase());
    expect(canonicalSignature(signature(r, s, v - 27))).toBe(sig.toLowerCase());
    expect(recoverSigner(bytes(DIGEST), canonicalSignature(signature(r, s, v - 27)))).toBe(ACCOUNT.address);
  });
});
