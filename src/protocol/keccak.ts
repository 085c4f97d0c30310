// keccak256 for the request path. hash-wasm's WebAssembly keccak hashes a 221-byte order in about 1.8 µs where
// pure-JS @noble/hashes takes about 20 µs. Its hasher is created asynchronously, so until it is ready (the first
// milliseconds after import) and if WebAssembly is unavailable, noble answers: both give the same bytes.
import { createKeccak, type IHasher } from 'hash-wasm';
import { keccak_256 as nobleKeccak256 } from '@noble/hashes/sha3.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

let wasmHasher: IHasher | undefined;

/** Resolves once the WebAssembly hasher is in use, or with false when it could not be created (noble stays). */
export const keccakWasmReady: Promise<boolean> = createKeccak(256).then(
  (hasher) => {
    wasmHasher = hasher;
    return true;
  },
  () => false,
);

export type KeccakBackend = 'wasm' | 'noble';

export const keccakBackend = (): KeccakBackend => (wasmHasher ? 'wasm' : 'noble');

/**
 * keccak256 of `data` as a new 32-byte array. The wasm hasher is one shared state machine, but init, update and
 * digest run back to back without yielding, so calls cannot interleave within a thread.
 */
export function keccak256(data: Uint8Array): Uint8Array {
  const hasher = wasmHasher;
  if (!hasher) return nobleKeccak256(data);
  hasher.init();
  hasher.update(data);
  return hasher.digest('binary');
}

/** 0x + lower-hex keccak256 of a text's UTF-8 bytes. */
export const keccakText = (text: string): string => '0x' + bytesToHex(keccak256(utf8ToBytes(text)));

/** The noble implementation, for tests and benches that compare both. */
export const keccak256Noble = (data: Uint8Array): Uint8Array => nobleKeccak256(data);
