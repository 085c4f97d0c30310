// The order hash (spec 4.16) and the EIP-191 personal-message digest a maker signs over it.
import { keccak256 } from './keccak.js';
import { bytesToHex, fixedHexToBytes, writeFixedHex, writeUint } from './hex.js';
import { recoverSigner } from './signatures.js';

/** The signed fields of a maker order (apiExpiry is not part of the hash). */
export interface OrderHashFields {
  marketHash: string;
  baseToken: string;
  totalBetSize: bigint;
  percentageOdds: bigint;
  expiry: bigint;
  salt: bigint;
  maker: string;
  executor: string;
  isMakerBettingOutcomeOne: boolean;
}

/** abi.encodePacked layout: bytes32, address, 4 x uint256, address, address, bool (1 byte). */
const PACKED_ORDER_LENGTH = 32 + 20 + 4 * 32 + 20 + 20 + 1;

/** The packed order bytes that are hashed; exported for tests. Throws TypeError/RangeError on malformed fields. */
export function packOrder(order: OrderHashFields): Uint8Array {
  const out = new Uint8Array(PACKED_ORDER_LENGTH);
  writeFixedHex(out, 0, order.marketHash, 32, 'marketHash');
  writeFixedHex(out, 32, order.baseToken, 20, 'baseToken');
  writeUint(out, 52, order.totalBetSize, 'totalBetSize');
  writeUint(out, 84, order.percentageOdds, 'percentageOdds');
  writeUint(out, 116, order.expiry, 'expiry');
  writeUint(out, 148, order.salt, 'salt');
  writeFixedHex(out, 180, order.maker, 20, 'maker');
  writeFixedHex(out, 200, order.executor, 20, 'executor');
  out[220] = order.isMakerBettingOutcomeOne ? 1 : 0;
  return out;
}

/**
 * keccak256 of the packed order, `0x` + 64 lower-case hex. Callers pass schema-validated fields;
 * a malformed one is a programming error and throws rather than hashing something else.
 */
export const orderHash = (order: OrderHashFields): string => '0x' + bytesToHex(keccak256(packOrder(order)));

/** "\x19Ethereum Signed Message:\n32": the EIP-191 prefix for a 32-byte message. */
const PERSONAL_PREFIX_32 = new TextEncoder().encode('\x19Ethereum Signed Message:\n32');

/** The digest a wallet signs for personal_sign over the 32 raw bytes of `hash32`. */
export function personalMessageDigest(hash32: Uint8Array): Uint8Array {
  const message = new Uint8Array(PERSONAL_PREFIX_32.length + 32);
  message.set(PERSONAL_PREFIX_32, 0);
  message.set(hash32, PERSONAL_PREFIX_32.length);
  return keccak256(message);
}

/** The digest a wallet signs for personal_sign over a UTF-8 text message (EIP-191 version 0x45). */
export const personalTextDigest = (text: string): Uint8Array => personalBytesDigest(new TextEncoder().encode(text));

/** The digest a wallet signs for personal_sign over raw bytes of any length (a text is signed as its UTF-8 bytes). */
export function personalBytesDigest(body: Uint8Array): Uint8Array {
  const prefix = new TextEncoder().encode(`\x19Ethereum Signed Message:\n${body.length}`);
  const message = new Uint8Array(prefix.length + body.length);
  message.set(prefix, 0);
  message.set(body, prefix.length);
  return keccak256(message);
}

/** The maker who signed `orderHash` (the hash bytes, as a personal message), or undefined for a bad hash or signature. */
export function recoverOrderSigner(orderHash: string, signature: string): string | undefined {
  const hash = fixedHexToBytes(orderHash, 32);
  return hash && recoverSigner(personalMessageDigest(hash), signature);
}
