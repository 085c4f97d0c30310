import { encodePacked, keccak256, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterEach, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VerifyPool, type PoolLog } from './pool.js';
import type { VerifyJob } from './jobs.js';

const account = privateKeyToAccount(generatePrivateKey());
const MARKET = ('0x' + '42'.repeat(32)) as Hex;
const TOKEN = '0x6629Ce1Cf35Cc1329ebB4F63202F3f197b3F050B' as Hex;
const EXECUTOR = '0x52adf738AAD93c31f798a30b2C74D658e1E9a562' as Hex;

/** An order job signed by viem, with the hash viem computes for it. */
async function orderJob(salt: bigint): Promise<{ job: VerifyJob; hash: Hex }> {
  const order = {
    marketHash: MARKET,
    baseToken: TOKEN,
    totalBetSize: 10_000_000n,
    percentageOdds: 50n * 10n ** 18n,
    expiry: 2_000_000_000n,
    salt,
    maker: account.address,
    executor: EXECUTOR,
    isMakerBettingOutcomeOne: true,
  };
  const hash = keccak256(
    encodePacked(
      ['bytes32', 'address', 'uint256', 'uint256', 'uint256', 'uint256', 'address', 'address', 'bool'],
      [order.marketHash, order.baseToken, order.totalBetSize, order.percentageOdds, order.expiry, salt, order.maker, order.executor, true],
    ),
  );
  const signature = await account.signMessage({ message: { raw: hash } });
  return { job: { kind: 'order', order, signature }, hash };
}

async function cancelAllJob(timestamp: bigint): Promise<{ job: VerifyJob; signer: string }> {
  const domain = { name: 'CancelAllOrdersOddex', version: '1.0', chainId: 5, salt: ('0x' + '07'.repeat(32)) as Hex };
  const signature = await account.signTypedData({
    domain,
    types: { Details: [{ name: 'timestamp', type: 'uint256' }] },
    primaryType: 'Details',
    message: { timestamp },
  });
  return { job: { kind: 'cancelAll', domain, message: { timestamp }, signature }, signer: account.address };
}

const warnings: string[] = [];
const log: PoolLog = { warn: (_o, msg) => warnings.push(msg), error: (_o, msg) => warnings.push(msg) };
const pools: VerifyPool[] = [];
const newPool = (opts: Partial<ConstructorParameters<typeof VerifyPool>[0]> = {}) => {
  const pool = new VerifyPool({ threads: 2, log, ...opts });
  pools.push(pool);
  return pool;
};
const stuckWorker = new URL('../../test/helpers/verify-workers/stuck.ts', import.meta.url).href;
const crashingWorker = new URL('../../test/helpers/verify-workers/crashing.ts', import.meta.url).href;
const crashOnceWorker = new URL('../../test/helpers/verify-workers/crash-once.ts', import.meta.url).href;
const slowStartWorker = new URL('../../test/helpers/verify-workers/slow-start.ts', import.meta.url).href;

async function untilLive(pool: VerifyPool, n: number) {
  const end = Date.now() + 20_000;
  while (pool.liveWorkers < n) {
    if (Date.now() > end) throw new Error(`only ${pool.liveWorkers} workers came up`);
    await sleep(10);
  }
}

afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
  warnings.length = 0;
});

describe('VerifyPool', () => {
  it('hashes and recovers on its worker threads exactly as viem signs, results in job order', async () => {
    const pool = newPool();
    const first = await orderJob(1n);
    // The first job starts the threads and runs inline while they load.
    expect(await pool.verify([first.job])).toEqual([{ hash: first.hash, signer: account.address }]);
    expect(pool.stats).toEqual({ jobsOnWorkers: 0, jobsInline: 1 });
    await untilLive(pool, 2);

    const orders = await Promise.all(Array.from({ length: 40 }, (_, i) => orderJob(BigInt(100 + i))));
    const cancel = await cancelAllJob(1_700_000_000n);
    const [a, b] = await Promise.all([pool.verify(orders.map((o) => o.job)), pool.verify([cancel.job])]);
    expect(a).toEqual(orders.map((o) => ({ hash: o.hash, signer: account.address })));
    expect(b).toHaveLength(1);
    expect(b[0]!.signer).toBe(cancel.signer);
    expect(b[0]!.hash).toMatch(/^0x[0-9a-f]{64}$/);
    // One turn's 41 jobs went out in one message per worker, none inline.
    expect(pool.stats).toEqual({ jobsOnWorkers: 41, jobsInline: 1 });
  });

  it('answers undefined for a signature by someone else and rejects a job the schema should have refused', async () => {
    const pool = newPool({ threads: 0 });
    const { job } = await orderJob(7n);
    const other = await privateKeyToAccount(generatePrivateKey()).signMessage({ message: { raw: ('0x' + '99'.repeat(32)) as Hex } });
    const [verified] = await pool.verify([{ ...job, signature: other } as VerifyJob]);
    expect(verified!.signer).not.toBe(account.address);
    const bad = { ...job, order: { ...(job as { order: object }).order, marketHash: '0x12' } } as VerifyJob;
    await expect(pool.verify([bad])).rejects.toThrow(/verification failed: .*marketHash/);
    expect(pool.stats.jobsInline).toBe(2);
  });

  it('rejects a malformed job from a worker too, without losing the worker', async () => {
    const pool = newPool({ threads: 1 });
    const { job } = await orderJob(8n);
    await pool.verify([job]);
    await untilLive(pool, 1);
    const bad = { ...job, order: { ...(job as { order: object }).order, maker: 'nope' } } as VerifyJob;
    await expect(pool.verify([bad])).rejects.toThrow(/verification failed: .*maker/);
    expect(pool.liveWorkers).toBe(1);
    expect(pool.stats.jobsOnWorkers).toBe(1);
  });

  it('finishes the jobs of a worker that crashes on the main thread and stops using it', async () => {
    const pool = newPool({ threads: 1, workerModule: crashingWorker, respawnMs: 60_000 });
    const jobs = await Promise.all([1n, 2n, 3n].map(orderJob));
    await pool.verify([jobs[0]!.job]);
    await untilLive(pool, 1);
    const results = await pool.verify(jobs.map((j) => j.job));
    expect(results).toEqual(jobs.map((j) => ({ hash: j.hash, signer: account.address })));
    expect(pool.liveWorkers).toBe(0);
    expect(warnings).toContain('verification worker failed; its jobs run on the main thread until it is replaced');
    expect(await pool.verify([jobs[1]!.job])).toEqual([{ hash: jobs[1]!.hash, signer: account.address }]);
    expect(pool.stats).toEqual({ jobsOnWorkers: 0, jobsInline: 5 });
  });

  it('replaces a crashed worker after the respawn delay, and the replacement takes the next batches', async () => {
    process.env.ODDEX_TEST_CRASH_ONCE_MARKER = join(mkdtempSync(join(tmpdir(), 'oddex-crash-once-')), 'crashed');
    const pool = newPool({ threads: 1, workerModule: crashOnceWorker, respawnMs: 50 });
    const jobs = await Promise.all([4n, 5n].map(orderJob));
    await pool.verify([jobs[0]!.job]);
    await untilLive(pool, 1);
    // The first thread dies with this batch: it is verified here.
    expect(await pool.verify(jobs.map((j) => j.job))).toEqual(jobs.map((j) => ({ hash: j.hash, signer: account.address })));
    expect(pool.stats).toEqual({ jobsOnWorkers: 0, jobsInline: 3 });
    await untilLive(pool, 1);
    expect(await pool.verify(jobs.map((j) => j.job))).toEqual(jobs.map((j) => ({ hash: j.hash, signer: account.address })));
    expect(pool.stats).toEqual({ jobsOnWorkers: 2, jobsInline: 3 });
  });

  it('terminates a worker that stops answering and verifies its batch itself', async () => {
    const pool = newPool({ threads: 1, workerModule: stuckWorker, stallMs: 200 });
    const { job, hash } = await orderJob(9n);
    await pool.verify([job]);
    await untilLive(pool, 1);
    const started = Date.now();
    expect(await pool.verify([job])).toEqual([{ hash, signer: account.address }]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
    expect(pool.liveWorkers).toBe(0);
    expect(warnings).toContain('verification worker failed; its jobs run on the main thread until it is replaced');
  });

  it('close ends the threads; later jobs run inline', async () => {
    const pool = newPool();
    const { job, hash } = await orderJob(10n);
    await pool.verify([job]);
    await untilLive(pool, 2);
    await pool.close();
    expect(pool.liveWorkers).toBe(0);
    expect(await pool.verify([job])).toEqual([{ hash, signer: account.address }]);
    expect(pool.stats.jobsInline).toBe(2);
    expect(warnings).toEqual([]);
  });

  it('close lets a worker still loading its modules finish loading and end on its own, instead of terminating it', async () => {
    const pool = newPool({ threads: 1, workerModule: slowStartWorker });
    const { job, hash } = await orderJob(12n);
    const verified = pool.verify([job]);
    for (let i = 0; i < 2000 && pool.threadCount === 0; i++) await sleep(1);
    expect([pool.threadCount, pool.liveWorkers]).toEqual([1, 0]);
    const started = performance.now();
    await pool.close();
    // Terminating would have ended the thread at once; it ended only once loaded (300 ms after it started).
    expect(performance.now() - started).toBeGreaterThanOrEqual(150);
    expect(await verified).toEqual([{ hash, signer: account.address }]);
    expect(warnings).toEqual([]);
  });

  it('never starts threads when sized 0', async () => {
    const pool = newPool({ threads: 0 });
    const { job } = await orderJob(11n);
    await pool.verify([job]);
    await sleep(50);
    expect(pool.liveWorkers).toBe(0);
  });
});
