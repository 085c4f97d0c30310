import { describe, expect, it } from 'vitest';
import { bytesToHex, fixedHexToBytes, writeFixedHex, writeUint } from './hex.js';

const word = (value: bigint | number, bits?: number): string => {
  const out = new Uint8Array(32).fill(0xee);
  writeUint(out, 0, value, 'v', bits);
  return bytesToHex(out);
};

describe('fixedHexToBytes', () => {
  it('decodes 0x + exactly 2n digits in any case', () => {
    expect([...fixedHexToBytes('0x00fFaB', 3)!]).toEqual([0, 255, 171]);
    expect([...fixedHexToBytes('0x', 0)!]).toEqual([]);
  });

  it('returns undefined for a wrong length, a missing or upper-case prefix, or a non-hex digit', () => {
    for (const bad of ['0x00ff', '0x00ffab00', '00ffab', '0X00ffab', '0x00fg00', '0x00 f00', '0x00ﬀ00', '0x-1ff00']) {
      expect(fixedHexToBytes(bad, 3), bad).toBeUndefined();
    }
    expect(fixedHexToBytes(undefined, 3)).toBeUndefined();
    expect(fixedHexToBytes(0x00ffab, 3)).toBeUndefined();
  });
});

describe('writeFixedHex', () => {
  it('writes at the offset and throws naming the field when malformed', () => {
    const out = new Uint8Array(4);
    writeFixedHex(out, 1, '0xa1b2', 2, 'field');
    expect([...out]).toEqual([0, 0xa1, 0xb2, 0]);
    expect(() => writeFixedHex(out, 0, '0xa1b', 2, 'field')).toThrow('field must be 0x + 4 hex digits');
    expect(() => writeFixedHex(out, 0, '0xa1bz', 2, 'field')).toThrow(TypeError);
  });
});

describe('writeUint', () => {
  it('writes a big-endian 32-byte word over whatever was there', () => {
    expect(word(0n)).toBe('00'.repeat(32));
    expect(word(1n)).toBe('00'.repeat(31) + '01');
    expect(word(0xabcn)).toBe('00'.repeat(30) + '0abc');
    expect(word(255, 8)).toBe('00'.repeat(31) + 'ff');
    expect(word(Number.MAX_SAFE_INTEGER)).toBe('00'.repeat(25) + '1fffffffffffff');
    expect(word((1n << 256n) - 1n)).toBe('ff'.repeat(32));
  });

  it('throws for negatives, values past uintN, and numbers that are not safe integers', () => {
    expect(() => word(-1n)).toThrow('v must be an integer from 0 to 2^256 - 1');
    expect(() => word(1n << 256n)).toThrow(RangeError);
    expect(() => word(256, 8)).toThrow('v must be an integer from 0 to 2^8 - 1');
    expect(() => word(1n << 64n, 64)).toThrow(RangeError);
    expect(() => word(0.5)).toThrow(RangeError);
    expect(() => word(2 ** 53)).toThrow(RangeError);
    expect(() => word(Number.NaN)).toThrow(RangeError);
  });
});
