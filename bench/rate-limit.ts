// Cost of the rate limiter per request: `consume` alone, and the hook's whole path (classify + client key + consume).
// Run: npx tsx bench/rate-limit.ts
import { defaultConfig } from '../src/config.js';
import { classifyRoute, EXEMPT, RATE_BUCKETS } from '../src/api/rate-limit/buckets.js';
import { clientKeyOf } from '../src/api/rate-limit/client-key.js';
import { InProcessRateLimiter, rateLimitsFromConfig, type ClientKey } from '../src/api/rate-limit/limiter.js';

const CALLS = 1_000_000;
const KEYS = 10_000;
const BATCH = 1000;
const SAMPLE_EVERY = 10; // per-call timing on every 10th call
// Simulated time: the million calls span 10 minutes, so every window rolls and the sweep runs.
const MS_PER_CALL = 600_000 / CALLS;

// Half the clients are addresses, half send an API key (32 characters, like the keys the server issues).
const ips = Array.from({ length: KEYS / 2 }, (_, i) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
const apiKeys = Array.from({ length: KEYS / 2 }, (_, i) => `k${String(i).padStart(8, '0')}-abcdefghijklmnopqrstuv`);
const headerOf = (i: number) => (i % 2 === 0 ? undefined : apiKeys[(i >> 1) % apiKeys.length]);
const ipOf = (i: number) => ips[(i >> 1) % ips.length]!;
const routes = [
  ['POST', '/orders/new'],
  ['GET', '/orders'],
  ['GET', '/trades'],
  ['GET', '/markets/active'],
  ['GET', undefined],
] as const;

// Visit keys in a scrambled but fixed order so Map access is not sequential.
const order = Array.from({ length: CALLS }, (_, i) => (i * 7919) % KEYS);

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function timerOverheadNs(): number {
  const samples = new Float64Array(100_000);
  for (let i = 0; i < samples.length; i++) {
    const t0 = process.hrtime.bigint();
    samples[i] = Number(process.hrtime.bigint() - t0);
  }
  return percentile(samples.sort(), 50);
}

function run(label: string, call: (i: number, now: number) => unknown): void {
  for (let i = 0; i < 200_000; i++) call(order[i % CALLS]!, i * MS_PER_CALL); // JIT warm-up
  const perBatch = new Float64Array(CALLS / BATCH);
  const perCall = new Float64Array(CALLS / SAMPLE_EVERY);
  let sampled = 0;
  let maxNs = 0;
  const started = process.hrtime.bigint();
  for (let b = 0; b < CALLS / BATCH; b++) {
    const t0 = process.hrtime.bigint();
    for (let j = 0; j < BATCH; j++) {
      const i = b * BATCH + j;
      const now = 1e12 + i * MS_PER_CALL;
      if (i % SAMPLE_EVERY === 0) {
        const c0 = process.hrtime.bigint();
        call(order[i]!, now);
        const ns = Number(process.hrtime.bigint() - c0);
        perCall[sampled++] = ns;
        if (ns > maxNs) maxNs = ns;
      } else {
        call(order[i]!, now);
      }
    }
    perBatch[b] = Number(process.hrtime.bigint() - t0) / BATCH;
  }
  const totalNs = Number(process.hrtime.bigint() - started);
  perBatch.sort();
  perCall.sort();
  const us = (ns: number) => (ns / 1000).toFixed(3).padStart(7);
  console.log(
    `${label.padEnd(36)} mean ${us(totalNs / CALLS)} µs | batch-of-${BATCH} p50 ${us(percentile(perBatch, 50))} p99 ${us(percentile(perBatch, 99))} µs` +
      ` | per-call p50 ${us(percentile(perCall, 50))} p99 ${us(percentile(perCall, 99))} p99.9 ${us(percentile(perCall, 99.9))} max ${us(maxNs)} µs`,
  );
}

const limits = rateLimitsFromConfig(defaultConfig().rateLimits);
const clientKeys: ClientKey[] = Array.from({ length: KEYS }, (_, i) => clientKeyOf(headerOf(i), ipOf(i)));

console.log(`node ${process.version}; ${CALLS.toLocaleString()} calls over ${KEYS.toLocaleString()} clients, default limits`);
console.log(`hrtime.bigint() pair overhead (p50): ${(timerOverheadNs() / 1000).toFixed(3)} µs, included in per-call figures`);

const limiter = new InProcessRateLimiter(limits);
run('consume', (i, now) => limiter.consume(clientKeys[i]!, RATE_BUCKETS[i % RATE_BUCKETS.length]!, now));

const hookLimiter = new InProcessRateLimiter(limits);
run('classify + client key + consume', (i, now) => {
  const [method, url] = routes[i % routes.length]!;
  const bucket = classifyRoute(method, url);
  if (bucket === EXEMPT) return undefined;
  return hookLimiter.consume(clientKeyOf(headerOf(i), ipOf(i)), bucket, now);
});
console.log(`clients tracked at the end: ${limiter.size.toLocaleString()} (bounded by the sweep)`);
