// Shared benchmark helpers: percentiles and an open-loop driver that sends at a fixed rate whatever the latency.
import { setTimeout as sleep } from 'node:timers/promises';

export function percentiles(samplesMs: number[]): { p50: number; p95: number; p99: number; max: number } {
  const s = [...samplesMs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99), max: s[s.length - 1] ?? NaN };
}

export const fmt = (ms: number) => ms.toFixed(2) + ' ms';

/**
 * Sends `count` requests at `ratePerSecond`, each timed from its scheduled start (so a slow server cannot hide
 * its queueing delay by slowing the sender). Returns latencies in ms and how many failed.
 */
export async function openLoop(
  count: number,
  ratePerSecond: number,
  send: (i: number) => Promise<boolean>,
): Promise<{ latencies: number[]; failures: number; seconds: number }> {
  const latencies: number[] = [];
  let failures = 0;
  const start = performance.now();
  const interval = 1000 / ratePerSecond;
  const inflight: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const scheduled = start + i * interval;
    const wait = scheduled - performance.now();
    if (wait > 1) await sleep(wait);
    inflight.push(
      send(i).then(
        (ok) => {
          if (!ok) failures++;
          latencies.push(performance.now() - scheduled);
        },
        () => {
          failures++;
        },
      ),
    );
  }
  await Promise.all(inflight);
  return { latencies, failures, seconds: (performance.now() - start) / 1000 };
}
