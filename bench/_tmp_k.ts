import { keccakWasmReady, keccakBackend, keccak256 } from '../src/protocol/keccak.js';
console.log('before', keccakBackend());
console.log('ready', await keccakWasmReady, keccakBackend());
const d = new Uint8Array(221);
let t = performance.now();
for (let i = 0; i < 100000; i++) keccak256(d);
console.log('keccak 221B', ((performance.now() - t) * 10).toFixed(2), 'us');
