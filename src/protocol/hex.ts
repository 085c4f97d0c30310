// Strict hex <-> bytes helpers for the hashing hot path. Strict means a bad digit is reported,
// never silently truncated (as Buffer.from(hex, 'hex') would), and no regex or intermediate strings.
export { bytesToHex } from '@noble/hashes/utils.js';

const UINT256_MAX = (1n << 256n) - 1n;

/** Nibble value of each ASCII code; -1 for anything that is not a hex digit. */
const NIBBLE = new Int8Array(128).fill(-1);
for (let i = 0; i < 10; i++) NIBBLE[48 + i] = i;
for (let i = 0; i < 6; i++) {
  NIBBLE[65 + i] = 10 + i;
  NIBBLE[97 + i] = 10 + i;
}

const nibble = (code: number): number => (code < 128 ? NIBBLE[code]! : -1);

/** Decodes hex digits `hex[from..]` (an even count) into `out` at `offset`; false on any non-hex digit. */
export function writeHexDigits(out: Uint8Array, offset: number, hex: string, from: number): boolean {
  for (let i = from; i < hex.length; i += 2) {
    const hi = nibble(hex.charCodeAt(i));
    const lo = nibble(hex.charCodeAt(i + 1));
    if (hi < 0 || lo < 0) return false;
    out[offset++] = (hi << 4) | lo;
  }
  return true;
}

/** True when `hex` is `0x` followed by exactly `byteLength * 2` characters (digits are checked when decoding). */
export const hasPrefixAndLength = (hex: unknown, byteLength: number): hex is string =>
  typeof hex === 'string' && hex.length === 2 + byteLength * 2 && hex.charCodeAt(0) === 48 && hex.charCodeAt(1) === 120;

/** `0x` + exactly `byteLength` bytes of hex (any case) as bytes, or undefined. */
export function fixedHexToBytes(hex: unknown, byteLength: number): Uint8Array | undefined {
  if (!hasPrefixAndLength(hex, byteLength)) return undefined;
  const out = new Uint8Array(byteLength);
  return writeHexDigits(out, 0, hex, 2) ? out : undefined;
}

/** Writes `0x`-prefixed hex of exactly `byteLength` bytes into `out`; throws on anything else (a caller bug). */
export function writeFixedHex(out: Uint8Array, offset: number, hex: string, byteLength: number, what: string): void {
  if (!hasPrefixAndLength(hex, byteLength) || !writeHexDigits(out, offset, hex, 2)) {
    throw new TypeError(`${what} must be 0x + ${byteLength * 2} hex digits`);
  }
}

/** Writes `value` as a 32-byte big-endian word (zero-padded on the left); throws outside uint`bits`. */
export function writeUint(out: Uint8Array, offset: number, value: bigint | number, what: string, bits = 256): void {
  const v = typeof value === 'bigint' ? value : Number.isSafeInteger(value) ? BigInt(value) : -1n;
  if (v < 0n || v > (bits === 256 ? UINT256_MAX : (1n << BigInt(bits)) - 1n)) {
    throw new RangeError(`${what} must be an integer from 0 to 2^${bits} - 1`);
  }
  out.fill(0, offset, offset + 32);
  if (v === 0n) return;
  let digits = v.toString(16);
  if (digits.length % 2 === 1) digits = '0' + digits;
  writeHexDigits(out, offset + 32 - digits.length / 2, digits, 0);
}
