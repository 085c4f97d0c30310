import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { MAX_RETRY_MS, waitForAdvisoryLock } from './advisory-lock.js';

/** A loopback port nothing listens on: every connection attempt is refused at once. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('waitForAdvisoryLock while the database is away', () => {
  it('waits longer after each failed attempt, up to its bound, and stops when told', async () => {
    const port = await closedPort();
    const attempts: number[] = [];
    const controller = new AbortController();
    const started = Date.now();
    const waiting = waitForAdvisoryLock({ host: '127.0.0.1', port, user: 'nobody', database: 'none' }, 1, 'test lock', {
      signal: controller.signal,
      retryMs: 50,
      onRetry: () => attempts.push(Date.now() - started),
    }, () => Promise.resolve('locked'));
    await new Promise((resolve) => setTimeout(resolve, 1700));
    controller.abort();
    const stoppedAt = Date.now();
    await expect(waiting).rejects.toThrow('stopped waiting for the test lock');
    // A stop ends a pause at once, not when it would have ended.
    expect(Date.now() - stoppedAt).toBeLessThan(200);
    // Pauses of 50, 100, 200, 400 and 800 ms: at most six attempts in 1.7 s, where a fixed pause made about 30.
    expect(attempts.length).toBeGreaterThanOrEqual(4);
    expect(attempts.length).toBeLessThanOrEqual(6);
    expect(attempts.at(-1)! - attempts.at(-2)!).toBeGreaterThanOrEqual(350);
    expect(MAX_RETRY_MS).toBeGreaterThan(1000);
  });
});
