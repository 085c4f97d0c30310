// Throughput of the per-request protocol work: order hashing, EIP-712 digests and signer recovery
// (native libsecp256k1 and the pure-JS noble fallback). Run: npx tsx bench/signatures.ts
import { performance } from 'node:perf_hooks';
import { fillDigest, recoverTypedDataSigner, type FillRequest } from '../src/protocol/eip712.js';
import { orderHash, recoverOrderSigner, type OrderHashFields } from '../src/protocol/hashing.js';
import { forceNobleFallback, recoveryBackend } from '../src/protocol/signatures.js';
import { keccakBackend } from '../src/protocol/keccak.js';
import { keccakWasmReady } from '../src/protocol/keccak-wasm.js';
import { addressOf, signFill, signOrder } from '../src/protocol/signing.js';

const COUNT = 20_000;
/** The pure-JS fallback is ~10x slower; fewer runs keep the bench short on a shared machine. */
const FALLBACK_COUNT = 2_000;
/** Distinct signed payloads, cycled through; signing all COUNT up front would dominate the run. */
const POOL = 500;

const key = '0x' + '4c'.repeat(32);
const maker = addressOf(key);
const salt = (i: number) => (BigInt(i) * 0x9e3779b97f4a7c15n) ** 3n % (1n << 256n);

const orders: OrderHashFields[] = Array.from({ length: POOL }, (_, i) => ({
  marketHash: '0x' + (i + 1).toString(16).padStart(64, '0'),
  baseToken: '0x5555555555555555555555555555555555555555',
  totalBetSize: 1_000_000_000n + BigInt(i),
  percentageOdds: 50_125_000_000_000_000_000n,
  expiry: 2_000_000_000n,
  salt: salt(i),
  maker,
  executor: '0x3333333333333333333333333333333333333333',
  isMakerBettingOutcomeOne: i % 2 === 0,
}));
const hashes = orders.map(orderHash);
const orderSigs = orders.map((o) => signOrder(o, key));

const domain = { name: 'Oddex', version: '1.0', chainId: 4162, verifyingContract: '0x' + '12'.repeat(20) };
const fills: FillRequest[] = orders.map((o, i) => ({
  market: o.marketHash,
  baseToken: o.baseToken,
  stakeWei: 1_000_000n + BigInt(i),
  desiredOdds: 49_875_000_000_000_000_000n,
  oddsSlippage: 2,
  isTakerBettingOutcomeOne: i % 2 === 1,
  fillSalt: salt(i + POOL),
}));
const fillDigests = fills.map((f) => fillDigest(domain, f));
/** COUNT fills that share no market, token or amount string: nothing is memoised. */
const distinctFills: FillRequest[] = Array.from({ length: COUNT }, (_, i) => ({
  ...fills[i % POOL]!,
  market: '0x' + (i + 1_000_000).toString(16).padStart(64, '0'),
  baseToken: '0x' + (i + 1_000_000).toString(16).padStart(40, '0'),
  stakeWei: 1_000_000n + BigInt(i),
  desiredOdds: 49_875_000_000_000_000_000n + BigInt(i),
}));
const fillSigs = fills.map((f) => signFill(domain, f, key));

/** Runs `op` `count` times (after a short warm-up) and prints operations per second. */
function measure(label: string, count: number, op: (i: number) => unknown): void {
  for (let i = 0; i < Math.min(500, count); i++) op(i % POOL);
  const start = performance.now();
  for (let i = 0; i < count; i++) op(i);
  const ms = performance.now() - start;
  const perSecond = Math.round((count / ms) * 1000).toLocaleString('en-US');
  console.log(`${label.padEnd(46)} ${count.toLocaleString('en-US').padStart(7)} ops  ${ms.toFixed(0).padStart(6)} ms  ${perSecond.padStart(10)} /s  ${((ms * 1000) / count).toFixed(1).padStart(7)} µs/op`);
}

function mustRecover(signer: string | undefined): void {
  if (signer !== maker) throw new Error(`recovered ${signer}, expected ${maker}`);
}

// The WebAssembly keccak is instantiated asynchronously: without this wait every figure below hashes with the pure-JS
// fallback, which the server's verification workers never do (they announce readiness only after the same wait).
await keccakWasmReady;
console.log(`node ${process.version}, recovery backend by default: ${recoveryBackend()}, keccak: ${keccakBackend()}`);
measure('orderHash', COUNT, (i) => orderHash(orders[i % POOL]!));
measure('fillDigest, 500 markets (memo warm)', COUNT, (i) => fillDigest(domain, fills[i % POOL]!));
measure('fillDigest, all strings distinct', COUNT, (i) => fillDigest(domain, distinctFills[i]!));
for (const backend of ['native', 'noble'] as const) {
  forceNobleFallback(backend === 'noble');
  if (recoveryBackend() !== backend) throw new Error(`${backend} backend unavailable`);
  const count = backend === 'native' ? COUNT : FALLBACK_COUNT;
  measure(`recoverOrderSigner (${backend})`, count, (i) => mustRecover(recoverOrderSigner(hashes[i % POOL]!, orderSigs[i % POOL]!)));
  measure(`recoverTypedDataSigner (${backend})`, count, (i) =>
    mustRecover(recoverTypedDataSigner(fillDigests[i % POOL]!, fillSigs[i % POOL]!)),
  );
  measure(`orderHash + recoverOrderSigner (${backend})`, count, (i) =>
    mustRecover(recoverOrderSigner(orderHash(orders[i % POOL]!), orderSigs[i % POOL]!)),
  );
}
forceNobleFallback(false);
