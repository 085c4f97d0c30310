// EIP-55 checksummed addresses.
import { keccak256 } from './keccak.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

// Every request checksums the same few addresses (maker, token, executor): remember recent ones.
const recent = new Map<string, string>();
const RECENT_MAX = 8192;

export function checksumAddress(address: string): string {
  const known = recent.get(address);
  if (known !== undefined) return known;
  const result = computeChecksum(address);
  if (recent.size >= RECENT_MAX) recent.clear();
  recent.set(address, result);
  return result;
}

function computeChecksum(address: string): string {
  const lower = address.toLowerCase().replace(/^0x/, '');
  const hash = bytesToHex(keccak256(utf8ToBytes(lower)));
  let out = '0x';
  for (let i = 0; i < 40; i++) {
    const c = lower[i]!;
    out += parseInt(hash[i]!, 16) >= 8 ? c.toUpperCase() : c;
  }
  return out;
}

export const isAddress = (s: unknown): s is string => typeof s === 'string' && /^0x[0-9a-fA-F]{40}$/.test(s);
export const sameAddress = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
