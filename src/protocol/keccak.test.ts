import fc from 'fast-check';
import { keccak256 as viemKeccak256, stringToBytes, toHex } from 'viem';
import { beforeAll, describe, expect, it } from 'vitest';
import { keccak256, keccak256Noble, keccakBackend, keccakText } from './keccak.js';
import { keccakWasmReady } from './keccak-wasm.js';

const hex = (bytes: Uint8Array) => toHex(bytes);

describe('keccak256', () => {
  beforeAll(async () => {
    expect(await keccakWasmReady).toBe(true);
  });

  it('uses the WebAssembly hasher once it is ready', () => {
    expect(keccakBackend()).toBe('wasm');
  });

  it('hashes the empty input and "abc" to the published Keccak-256 values', () => {
    expect(hex(keccak256(new Uint8Array()))).toBe('0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
    expect(hex(keccak256(new TextEncoder().encode('abc')))).toBe(
      '0x4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45',
    );
  });

  it('equals viem on random inputs of every length around the 136-byte rate', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 600 }), (data) => {
        const expected = viemKeccak256(data);
        expect(hex(keccak256(data))).toBe(expected);
        expect(hex(keccak256Noble(data))).toBe(expected);
      }),
      { numRuns: 500 },
    );
    for (const length of [135, 136, 137, 271, 272, 273]) {
      const data = Uint8Array.from({ length }, (_, i) => (i * 31 + length) & 0xff);
      expect(hex(keccak256(data))).toBe(viemKeccak256(data));
    }
  });

  it('returns a fresh array each call, so a kept digest is not overwritten by the next hash', () => {
    const first = keccak256(Uint8Array.of(1));
    const copy = Uint8Array.from(first);
    keccak256(Uint8Array.of(2));
    expect(first).toEqual(copy);
  });

  it('hashes text as its UTF-8 bytes, as viem does (settlement hashes, market identities)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), (text) => {
        expect(keccakText(text)).toBe(viemKeccak256(stringToBytes(text)));
      }),
      { numRuns: 300 },
    );
  });
});
