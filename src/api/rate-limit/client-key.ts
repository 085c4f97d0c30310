// Who a request is counted against: its API key when it sends one, else its address.
import type { ClientKey } from './limiter.js';

/**
 * A 53-bit fingerprint of an API key, so the limiter never holds keys and never asks the database.
 * Not cryptographic: it only has to spread keys (accidental collisions among a million keys ~ 1e-4), and a
 * deliberate collision would need the victim's secret key. Two multiply-xorshift lanes over the UTF-16 units.
 */
export function apiKeyFingerprint(key: string): number {
  let a = 0x811c9dc5;
  let b = 0x2545f491 ^ key.length;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  a = Math.imul(a ^ (a >>> 16), 0x85ebca6b);
  a = Math.imul(a ^ (a >>> 13), 0xc2b2ae35) ^ b;
  b = Math.imul(b ^ (b >>> 16), 0x27d4eb2f) ^ a;
  return (a >>> 0) * 0x200000 + ((b >>> 0) >>> 11);
}

/** API key fingerprints are numbers and addresses strings, so the two can never share a bucket. */
export function clientKeyOf(apiKeyHeader: string | string[] | undefined, ip: string): ClientKey {
  return typeof apiKeyHeader === 'string' && apiKeyHeader !== '' ? apiKeyFingerprint(apiKeyHeader) : ip;
}
