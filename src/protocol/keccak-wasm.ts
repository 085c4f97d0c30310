// The server's keccak256: hash-wasm's WebAssembly keccak hashes a 221-byte order in about 1.8 µs where pure-JS
// @noble/hashes takes about 20 µs. Importing this module installs it into keccak.ts once it is created
// (asynchronously: until then, the first milliseconds after import, and if WebAssembly is unavailable, noble answers).
import { createKeccak } from 'hash-wasm';
import { installWasmKeccak } from './keccak.js';

/** Resolves once the WebAssembly hasher is in use, or with false when it could not be created (noble stays). */
export const keccakWasmReady: Promise<boolean> = createKeccak(256).then(
  (hasher) => {
    // One shared state machine, but init, update and digest run back to back without yielding, so calls cannot
    // interleave within a thread.
    installWasmKeccak((data) => {
      hasher.init();
      hasher.update(data);
      return hasher.digest('binary');
    });
    return true;
  },
  () => false,
);
