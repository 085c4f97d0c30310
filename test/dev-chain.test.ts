// `npm run chain` (src/chain/evm/dev-chain.ts) run again on the same data dir restores the chain it ran before (its
// blocks, hashes and contracts, which the data dir's journal followed) instead of deploying on a fresh chain the
// exchange would refuse as diverged; a data dir whose journal followed a chain whose state was not kept is refused.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPublicClient, http, type Address } from 'viem';
import { afterAll, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'oddex-dev-chain-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const freePort = () =>
  new Promise<number>((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });

interface Run {
  child: ChildProcess;
  out: string;
  err: string;
  exited: Promise<number | null>;
}

function chainProcess(port: number): Run {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/chain/evm/dev-chain.ts'], {
    cwd: ROOT,
    env: { ...process.env, ODDEX_DATA_DIR: dataDir, ODDEX_ANVIL_PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const run: Run = { child, out: '', err: '', exited: new Promise((r) => child.once('exit', (code) => r(code))) };
  child.stdout!.on('data', (d) => (run.out += String(d)));
  child.stderr!.on('data', (d) => (run.err += String(d)));
  return run;
}

async function untilPrinted(run: Run, text: string): Promise<void> {
  for (let i = 0; i < 600 && !run.out.includes(text); i++) {
    if (run.child.exitCode !== null) throw new Error(`npm run chain exited: ${run.out}${run.err}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  if (!run.out.includes(text)) throw new Error(`npm run chain never printed "${text}": ${run.out}${run.err}`);
}

async function stop(run: Run): Promise<void> {
  run.child.kill('SIGTERM');
  expect(await run.exited).toBe(0);
}

it('run again on its data dir, restores the chain it ran: the same blocks, hashes and contracts', async () => {
  const port = await freePort();
  const first = chainProcess(port);
  await untilPrinted(first, 'now run: ODDEX_CHAIN=evm npm start');
  const deployment = JSON.parse(readFileSync(join(dataDir, 'evm-deployment.json'), 'utf8')) as { token: Address; settlement: Address };
  const pub = createPublicClient({ transport: http(`http://127.0.0.1:${port}`) });
  const head = await pub.getBlock();
  await stop(first);

  const again = chainProcess(port);
  try {
    await untilPrinted(again, 'restored from');
    expect(JSON.parse(readFileSync(join(dataDir, 'evm-deployment.json'), 'utf8'))).toMatchObject(deployment);
    expect((await pub.getBlock({ blockNumber: head.number })).hash).toBe(head.hash);
    expect(await pub.getCode({ address: deployment.settlement })).toMatch(/^0x[0-9a-f]{100,}$/);
  } finally {
    await stop(again);
  }
}, 120_000);

it('refuses a data dir whose journal followed a chain whose state was not kept, rather than deploy on a fresh one', async () => {
  rmSync(join(dataDir, 'anvil-state.json'));
  writeFileSync(join(dataDir, 'oddex.sqlite'), '');
  const run = chainProcess(await freePort());
  expect(await run.exited).toBe(1);
  expect(run.err).toContain('a fresh chain is not that one, and the exchange would refuse it (CHAIN_DIVERGED)');
}, 60_000);
