// ODDEX_CHAIN=evm: the node loses the chain the journal followed under a running exchange (anvil restarted on a
// fresh chain with the contracts deployed again at the same addresses, or rolled back past the followed block).
// The exchange must say so, not follow the new chain from the old cursor (whose events it would never read) and not
// send fills to it: /health/ready answers 503 CHAIN_DIVERGED and the executor sends nothing there.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicClient, http, type PrivateKeyAccount } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { defaultConfig } from '../src/config.js';
import { startAnvil, type Anvil } from '../src/chain/evm/anvil.js';
import { deployContracts } from '../src/chain/evm/deploy.js';
import { DEV_EXECUTOR_KEY, DEV_OPERATOR_KEY } from '../src/chain/evm/dev-accounts.js';
import { oddexTokenAbi } from '../src/chain/evm/contracts.js';
import { startTestExchange, type TestExchange } from './helpers/server.js';
import { waitFor } from './helpers/bets.js';
import { FILL_DOMAIN, clientViewOf, startExchangeNode, type ClientView, type Node } from './helpers/evm.js';
import { E18, USDC, newWallet, signedFill, signedOrder } from './helpers/wallets.js';

describe('ODDEX_CHAIN=evm when the node no longer holds the chain followed', () => {
  let node: Node | undefined;
  let fresh: Anvil | undefined;
  let ex: TestExchange | undefined;
  afterEach(async () => {
    await ex?.destroy();
    await node?.stop();
    await fresh?.stop();
    ex = node = fresh = undefined;
  });

  /** An exchange on anvil that has settled one fill, so its journal followed the chain a few blocks. */
  async function tradedExchange() {
    const dataDir = mkdtempSync(join(tmpdir(), 'oddex-evm-reset-'));
    const deploymentFile = join(dataDir, 'evm-deployment.json');
    node = await startExchangeNode(deploymentFile);
    const overrides = {
        demo: true,
        chain: 'evm',
        evm: { ...defaultConfig().evm, deploymentFile, batchWaitMs: 50, pollMs: 50 },
        bettingDelay: { preGameMs: 0, inPlayMs: 0, inPlayBySportMs: {}, inPlayByLeagueMs: {} },
        rateLimits: { ...defaultConfig().rateLimits, enabled: false },
        chainSubmit: { timeoutMs: 2000, minBackoffMs: 50, maxBackoffMs: 200, maxBacklog: 100 },
    } satisfies Parameters<typeof startTestExchange>[0];
    const start = () => startTestExchange(overrides, { dataDir });
    ex = await start();
    const view = clientViewOf((await ex.get('/metadata')).body.data);
    const market = ((await ex.get('/markets/active?pageSize=100&type=52')).body.data.markets as { liveEnabled: boolean; marketHash: string }[]).find((m) => !m.liveEnabled)!.marketHash;
    const wallet = async (amount: bigint) => {
      const w = newWallet();
      await node!.testClient.setBalance({ address: w.address, value: 10n ** 20n });
      const approve = await node!.walletOf(w).writeContract({ chain: node!.chain, account: w, address: view.token, abi: oddexTokenAbi, functionName: 'approve', args: [view.proxy, amount] });
      await node!.pub.waitForTransactionReceipt({ hash: approve });
      expect((await ex!.admin('POST', '/admin/faucet', { address: w.address, amount: amount.toString() })).status).toBe(200);
      return w;
    };
    const maker = await wallet(100n * USDC);
    const taker = await wallet(100n * USDC);
    const order = await signedOrder(maker, view.signing, { marketHash: market, totalBetSize: 50n * USDC, percentageOdds: 50n * E18, isMakerBettingOutcomeOne: true });
    expect((await ex.post('/orders/new', { orders: [order.body] })).status).toBe(200);
    const fill = () => signedFill(taker, view.signing, { market, isTakerBettingOutcomeOne: false, stakeWei: 5n * USDC, desiredOdds: 50n * E18 });
    expect((await ex.post('/orders/fill/v2', await fill())).status).toBe(200);
    await waitFor(async () => (await ex!.get(`/trades/orders?orderHashes=${order.hash}`)).body.data.trades as { tradeStatus: string }[], (t) => t.length === 2 && t.every((x) => x.tradeStatus === 'SUCCESS'), 15_000);
    expect((await ex.get('/health/ready')).status).toBe(200);
    return { view, fill, taker, maker, start };
  }

  async function expectDivergedAndIdle(rpcUrl: string, view: ClientView, fill: () => Promise<unknown>, taker: PrivateKeyAccount) {
    const ready = await waitFor(() => ex!.get('/health/ready'), (r) => r.status !== 200, 10_000);
    expect([ready.status, ready.body.errorCode]).toEqual([503, 'CHAIN_DIVERGED']);
    // A fill taken now is not sent to this chain: the executor's nonce there does not move.
    const pub = createPublicClient({ transport: http(rpcUrl) });
    const executor = privateKeyToAccount(DEV_EXECUTOR_KEY).address;
    const before = await pub.getTransactionCount({ address: executor, blockTag: 'pending' });
    const taken = await ex!.post('/orders/fill/v2', await fill());
    expect(taken.status).toBe(200);
    await new Promise((r) => setTimeout(r, 1500));
    expect(await pub.getTransactionCount({ address: executor, blockTag: 'pending' })).toBe(before);
    // And the exchange does not take the fresh chain's empty wallets for the ones it followed, nor the reverse.
    expect((await ex!.get(`/balances/${taker.address}`)).body.data.balance).toBe('95000000');
    void view;
  }

  /** Stops the node and starts a fresh chain on its port with the contracts deployed again, at the same addresses. */
  async function freshChain(view: ClientView): Promise<string> {
    const rpcUrl = node!.anvil.rpcUrl;
    const port = Number(new URL(rpcUrl).port);
    await node!.stop();
    node = undefined;
    fresh = await startAnvil({ port });
    // The same deployer from nonce 0: the same addresses, on a chain that never saw the trades.
    const redeployed = await deployContracts({
      rpcUrl,
      operatorKey: DEV_OPERATOR_KEY,
      executor: privateKeyToAccount(DEV_EXECUTOR_KEY).address,
      domainName: FILL_DOMAIN.name,
      domainVersion: FILL_DOMAIN.version,
    });
    expect(redeployed.settlement).toBe(view.settlement);
    return rpcUrl;
  }

  it('reports a node restarted on a fresh chain (head below the followed block) and sends it nothing', async () => {
    const { view, fill, taker } = await tradedExchange();
    await expectDivergedAndIdle(await freshChain(view), view, fill, taker);
  }, 90_000);

  it('reports, at start, a fresh chain grown past the block the journal followed while the exchange was down', async () => {
    const { view, fill, taker, start } = await tradedExchange();
    const stopped = ex!;
    ex = undefined;
    await stopped.close();
    const rpcUrl = await freshChain(view);
    await fetch(rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_mine', params: ['0x64'] }) });
    expect(await createPublicClient({ transport: http(rpcUrl) }).getBlockNumber()).toBeGreaterThanOrEqual(100n);
    ex = await start();
    await expectDivergedAndIdle(rpcUrl, view, fill, taker);
  }, 90_000);

  it('reports a chain rolled back past the followed block and grown beyond it again', async () => {
    const { view, fill, taker } = await tradedExchange();
    const rpcUrl = node!.anvil.rpcUrl;
    // Back to the deployment, then many new blocks in one request: a head above the followed block, but other blocks.
    const snapshotless = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'anvil_reset', params: [] },
        { jsonrpc: '2.0', id: 2, method: 'anvil_mine', params: ['0x64'] },
      ]),
    });
    expect(snapshotless.status).toBe(200);
    expect(await createPublicClient({ transport: http(rpcUrl) }).getBlockNumber()).toBeGreaterThanOrEqual(100n);
    await expectDivergedAndIdle(rpcUrl, view, fill, taker);
  }, 90_000);
});
