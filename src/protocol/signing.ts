// Signing with a raw private key (the client package, the CLI, benches, the OpenAPI examples): the counterpart of
// this folder's verification. Signatures are deterministic (RFC 6979), low-s, and encoded r || s || v with
// v = 27 or 28, like a wallet's.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import {
  cancelAllDigest,
  cancelEventDigest,
  cancelV2Digest,
  fillDigest,
  parlayRequestDigest,
  type CancelDomain,
  type FillDomain,
  type FillRequest,
  type ParlayRequestMessage,
} from './eip712.js';
import { orderHash, personalMessageDigest, type OrderHashFields } from './hashing.js';
import { bytesToHex, fixedHexToBytes } from './hex.js';
import { publicKeyToAddress } from './signatures.js';

/** A private key as `0x` + 64 hex or 32 bytes. */
export type PrivateKey = string | Uint8Array;

function privateKeyBytes(key: PrivateKey): Uint8Array {
  const bytes = typeof key === 'string' ? fixedHexToBytes(key, 32) : key;
  if (!bytes || bytes.length !== 32 || !secp256k1.utils.isValidSecretKey(bytes)) {
    throw new TypeError('private key must be 32 bytes (0x + 64 hex) inside the curve order');
  }
  return bytes;
}

/** The checksummed address of a private key. */
export const addressOf = (key: PrivateKey): string =>
  publicKeyToAddress(secp256k1.getPublicKey(privateKeyBytes(key), false));

/** Signs a 32-byte digest as is (no further hashing). */
export function signDigest(digest: Uint8Array, key: PrivateKey): string {
  // noble's 'recovered' format is recovery byte || r || s; Ethereum wants r || s || (27 + recovery).
  const recovered = secp256k1.sign(digest, privateKeyBytes(key), { prehash: false, format: 'recovered' });
  return '0x' + bytesToHex(recovered.subarray(1)) + (27 + recovered[0]!).toString(16);
}

const signHexDigest = (digest: string, key: PrivateKey): string => signDigest(fixedHexToBytes(digest, 32)!, key);

/** The maker's signature for POST /orders/new: personal_sign over the 32 order-hash bytes. */
export const signOrder = (order: OrderHashFields, key: PrivateKey): string =>
  signDigest(personalMessageDigest(fixedHexToBytes(orderHash(order), 32)!), key);

/** The taker's `takerSig` for POST /orders/fill/v2. */
export const signFill = (domain: FillDomain, fill: FillRequest, key: PrivateKey): string =>
  signHexDigest(fillDigest(domain, fill), key);

export const signCancelV2 = (domain: CancelDomain, message: { orderHashes: readonly string[]; timestamp: bigint }, key: PrivateKey): string =>
  signHexDigest(cancelV2Digest(domain, message), key);

export const signCancelEvent = (domain: CancelDomain, message: { exchangeEventId: string; timestamp: bigint }, key: PrivateKey): string =>
  signHexDigest(cancelEventDigest(domain, message), key);

export const signCancelAll = (domain: CancelDomain, message: { timestamp: bigint }, key: PrivateKey): string =>
  signHexDigest(cancelAllDigest(domain, message), key);

/** The bettor's signature for POST /parlays/request. */
export const signParlayRequest = (domain: CancelDomain, message: ParlayRequestMessage, key: PrivateKey): string =>
  signHexDigest(parlayRequestDigest(domain, message), key);
