// keccak256 for all the hashing in this folder. Pure-JS @noble/hashes answers unless a faster implementation is
// installed: the server installs hash-wasm's WebAssembly keccak (keccak-wasm.ts), which the client package
// (packages/sdk, built from this folder) thus neither bundles nor depends on. Both give the same bytes.
import { keccak_256 as nobleKeccak256 } from '@noble/hashes/sha3.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

/** keccak256 of `data` as a new 32-byte array. */
export type Keccak256 = (data: Uint8Array) => Uint8Array;

let wasmKeccak: Keccak256 | undefined;

/** Makes keccak256 use the WebAssembly hasher from now on (keccak-wasm.ts calls this once it is created). */
export function installWasmKeccak(hash: Keccak256): void {
  wasmKeccak = hash;
}

export type KeccakBackend = 'wasm' | 'noble';

export const keccakBackend = (): KeccakBackend => (wasmKeccak ? 'wasm' : 'noble');

export function keccak256(data: Uint8Array): Uint8Array {
  return wasmKeccak ? wasmKeccak(data) : nobleKeccak256(data);
}

/** 0x + lower-hex keccak256 of a text's UTF-8 bytes. */
export const keccakText = (text: string): string => '0x' + bytesToHex(keccak256(utf8ToBytes(text)));

/** The noble implementation, for tests and benches that compare both. */
export const keccak256Noble = (data: Uint8Array): Uint8Array => nobleKeccak256(data);
