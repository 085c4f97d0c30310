// Demo liquidity with ODDEX_CHAIN=evm: the faucet mints the demo wallets' funds on chain, but a wallet's orders are
// backed only once it has approved the transfer proxy /metadata names, which takes a transaction (and gas) of its
// own. Without it every demo quote was refused INSUFFICIENT_BALANCE and the books stayed empty.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { maxUint256, type Address } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { defaultConfig } from '../src/config.js';
import { oddexTokenAbi } from '../src/chain/evm/contracts.js';
import { startTestExchange, type TestExchange } from './helpers/server.js';
import { waitFor } from './helpers/bets.js';
import { clientViewOf, startExchangeNode, type Node } from './helpers/evm.js';

describe('demo liquidity on an EVM chain', () => {
  let node: Node;
  let ex: TestExchange;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'oddex-evm-demo-'));
    const deploymentFile = join(dataDir, 'evm-deployment.json');
    node = await startExchangeNode(deploymentFile);
    ex = await startTestExchange(
      { demo: true, demoLiquidity: true, chain: 'evm', evm: { ...defaultConfig().evm, deploymentFile, pollMs: 50 }, rateLimits: { ...defaultConfig().rateLimits, enabled: false } },
      { dataDir },
    );
  }, 60_000);
  afterAll(async () => {
    await ex?.destroy();
    await node?.stop();
  });

  it('readies the demo wallets on chain (gas, the proxy approved) so the demo makers quote', async () => {
    const view = clientViewOf((await ex.get('/metadata')).body.data);
    const active = (await ex.get('/markets/active?pageSize=100&type=52')).body.data.markets as { marketHash: string; liveEnabled: boolean }[];
    const hashes = active.filter((m) => !m.liveEnabled).map((m) => m.marketHash);
    const best = await waitFor(
      async () => (await ex.get(`/orders/odds/best?baseToken=${view.token}&marketHashes=${hashes.slice(0, 20).join(',')}`)).body.data.bestOdds as { outcomeOne?: unknown; outcomeTwo?: unknown }[],
      (b) => b.some((x) => x.outcomeOne && x.outcomeTwo),
      30_000,
    );
    expect(best.some((x) => x.outcomeOne && x.outcomeTwo)).toBe(true);
    const wallets = JSON.parse(readFileSync(join(dataDir, 'demo-wallets.json'), 'utf8')) as { makers: { privateKey: `0x${string}` }[] };
    for (const w of wallets.makers) {
      const maker = privateKeyToAccount(w.privateKey).address as Address;
      expect(await node.pub.readContract({ address: view.token, abi: oddexTokenAbi, functionName: 'allowance', args: [maker, view.proxy] })).toBe(maxUint256);
    }
  }, 60_000);
});
