// Demo liquidity started before the exchange answers account reads (in a cluster, the projector may come up after
// the sequencer's process): it waits for them, asking nothing else, rather than failing its start for good.
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
