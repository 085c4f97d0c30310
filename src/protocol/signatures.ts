// Signer recovery from 65-byte secp256k1 signatures (r || s || v) over a 32-byte digest.
// Native libsecp256k1 when its addon loads (about 20x faster), otherwise pure-JS @noble/curves.
import { secp256k1 as noble } from '@noble/curves/secp256k1.js';
import type * as Secp256k1 from 'secp256k1';
import { keccak256 } from './keccak.js';
import { checksumAddress } from './address.js';
import { bytesToHex, fixedHexToBytes } from './hex.js';
import { boundedMemo } from './memo.js';

type NativeSecp256k1 = typeof Secp256k1;

/**
 * `import secp256k1 from 'secp256k1'` works in ESM (the default import is the CJS module.exports), but the
 * package's index.js silently swaps in its slow `elliptic` build when the addon fails to load. Requiring
 * `secp256k1/bindings.js` instead throws in that case, so we can fall back to noble and know we did.
 */
function loadNativeAddon(): NativeSecp256k1 | undefined {
  try {
    // Through process.getBuiltinModule, not a static `node:module` import, so browser bundles of the client
    // (which reach this module through the hashing code) load it and simply use noble.
    const nodeModule = globalThis.process?.getBuiltinModule?.('node:module');
    return nodeModule?.createRequire(import.meta.url)('secp256k1/bindings.js') as NativeSecp256k1 | undefined;
  } catch {
    return undefined;
  }
}

const nativeAddon = loadNativeAddon();
let nobleForced = false;

export type RecoveryBackend = 'native' | 'noble';

/** The backend recoverSigner uses now. */
export const recoveryBackend = (): RecoveryBackend => (nativeAddon && !nobleForced ? 'native' : 'noble');

/** Forces the pure-JS path (tests and benches compare both); false returns to native when it loaded. */
export function forceNobleFallback(on: boolean): void {
  nobleForced = on;
}

/** secp256k1 group order n and n/2, big-endian, for byte-wise range checks without bigint conversions. */
const CURVE_ORDER = hexWord('fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141');
const HALF_CURVE_ORDER = hexWord('7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0');

function hexWord(hex: string): Uint8Array {
  return fixedHexToBytes('0x' + hex, 32)!;
}

/** Compares the 32-byte word at `bytes[offset..]` with `bound`: negative, zero or positive. */
function compareWord(bytes: Uint8Array, offset: number, bound: Uint8Array): number {
  for (let i = 0; i < 32; i++) {
    const d = bytes[offset + i]! - bound[i]!;
    if (d !== 0) return d;
  }
  return 0;
}

const isZeroWord = (bytes: Uint8Array, offset: number): boolean => {
  for (let i = 0; i < 32; i++) if (bytes[offset + i] !== 0) return false;
  return true;
};

export interface ParsedSignature {
  /** r || s, 64 bytes. */
  compact: Uint8Array;
  recoveryId: 0 | 1;
}

/**
 * Parses `0x` + 130 hex digits. v may be 27/28 (Ethereum) or 0/1. Rejects r or s outside [1, n-1]
 * and high-s signatures (EIP-2: s > n/2), which would otherwise give a second valid signature per message.
 */
export function parseSignature(signature: unknown): ParsedSignature | undefined {
  const bytes = fixedHexToBytes(signature, 65);
  if (!bytes) return undefined;
  const v = bytes[64]!;
  const recoveryId = v >= 27 ? v - 27 : v;
  if (recoveryId !== 0 && recoveryId !== 1) return undefined;
  if (isZeroWord(bytes, 0) || compareWord(bytes, 0, CURVE_ORDER) >= 0) return undefined;
  if (isZeroWord(bytes, 32) || compareWord(bytes, 32, HALF_CURVE_ORDER) > 0) return undefined;
  return { compact: bytes.subarray(0, 64), recoveryId };
}

/**
 * The signature as the settlement contract (OpenZeppelin ECDSA) verifies it: lower-case hex with v as 27/28. The API
 * accepts v as 0/1 too, but a signature stored or handed to the chain in that form would be refused there
 * (ECDSAInvalidSignature), so accepted orders and fills keep this form. Expects a signature parseSignature accepts.
 */
export function canonicalSignature(signature: string): string {
  const lower = signature.toLowerCase();
  const v = parseInt(lower.slice(-2), 16);
  return v >= 27 ? lower : lower.slice(0, -2) + (v + 27).toString(16);
}

/** Checksumming costs a keccak; the same makers and takers sign request after request. */
const memoChecksumAddress = boundedMemo(checksumAddress, 4096);

/** The checksummed address of a 65-byte uncompressed public key (0x04 || x || y). */
export function publicKeyToAddress(uncompressed: Uint8Array): string {
  return memoChecksumAddress(bytesToHex(keccak256(uncompressed.subarray(1)).subarray(12)));
}

function recoverPublicKey(sig: ParsedSignature, digest: Uint8Array): Uint8Array {
  if (nativeAddon && !nobleForced) return nativeAddon.ecdsaRecover(sig.compact, sig.recoveryId, digest, false);
  return noble.Signature.fromBytes(sig.compact, 'compact').addRecoveryBit(sig.recoveryId).recoverPublicKey(digest).toBytes(false);
}

/** The checksummed address that signed the 32-byte `digest`, or undefined for any malformed or unrecoverable signature. */
export function recoverSigner(digest: Uint8Array, signature: unknown): string | undefined {
  if (digest.length !== 32) return undefined;
  const sig = parseSignature(signature);
  if (!sig) return undefined;
  try {
    return publicKeyToAddress(recoverPublicKey(sig, digest));
  } catch {
    // r is not the x of a curve point for this recovery id: no signer.
    return undefined;
  }
}

/** recoverSigner for a digest given as `0x` + 64 hex digits. */
export function recoverSignerOfHexDigest(digest: unknown, signature: unknown): string | undefined {
  const bytes = fixedHexToBytes(digest, 32);
  return bytes && recoverSigner(bytes, signature);
}
