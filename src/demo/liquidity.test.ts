// Demo liquidity started before the exchange answers account reads (in a cluster, the projector may come up after
// the sequencer's process): it waits for them, asking nothing else, rather than failing its start for good.
// An exchange that refuses its writes (a full disk answers them 503) is asked again, after growing pauses, until the
// demo is stopped.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { expect, it } from 'vitest';
import { DemoLiquidity } from './liquidity.js';

it('waits while account reads answer 503, asking nothing else, and stops cleanly meanwhile', async () => {
  const asked: string[] = [];
  const server = createServer((req, res) => {
    asked.push(`${req.method} ${req.url}`);
    res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
    res.end(JSON.stringify({ status: 'failure', errorCode: 'READ_MODEL_BEHIND', message: 'behind' }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const dataDir = mkdtempSync(join(tmpdir(), 'oddex-demo-'));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const demo = new DemoLiquidity({ url, adminToken: 'x', dataDir, log: pino({ level: 'silent' }) });
    const started = demo.start();
    await new Promise((r) => setTimeout(r, 1200));
    await demo.stop();
    await expect(started).resolves.toBeUndefined();
    expect(asked.length).toBeGreaterThanOrEqual(2);
    expect(new Set(asked)).toEqual(new Set([`GET /balances/0x${'0'.repeat(40)}`]));
  } finally {
    server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

it('tries its start again while the exchange refuses its writes (a full disk), until stopped', async () => {
  const asked: string[] = [];
  const server = createServer((req, res) => {
    asked.push(`${req.method} ${req.url}`);
    res.setHeader('content-type', 'application/json');
    if (req.method === 'GET') {
      res.end(JSON.stringify({ status: 'success', data: { balance: '0', escrowed: '0' } }));
      return;
    }
    res.writeHead(503);
    res.end(JSON.stringify({ status: 'failure', errorCode: 'STORAGE_FAILED', message: 'the exchange cannot write to its journal' }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const dataDir = mkdtempSync(join(tmpdir(), 'oddex-demo-'));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const demo = new DemoLiquidity({ url, adminToken: 'x', dataDir, log: pino({ level: 'silent' }), makers: 1, retryMs: { first: 50, max: 200 } });
    const started = demo.start();
    await new Promise((r) => setTimeout(r, 1000));
    // One maker's key asked for at each attempt: several attempts, with pauses growing to 200 ms between them.
    const attempts = asked.filter((a) => a === 'POST /admin/api-keys').length;
    expect(attempts).toBeGreaterThanOrEqual(3);
    expect(attempts).toBeLessThanOrEqual(10);
    await demo.stop();
    await expect(started).resolves.toBeUndefined();
    const after = asked.length;
    await new Promise((r) => setTimeout(r, 300));
    expect(asked.length).toBe(after);
  } finally {
    server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
