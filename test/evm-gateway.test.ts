// A gateway process beside a sequencer process settling on an EVM chain (anvil, the contracts deployed), one
// PostgreSQL database, commands over NATS. The gateway is given the sequencer's deployment file and nothing else of
// the chain (no RPC client, no keys): its /metadata is byte for byte the sequencer's, and a maker's order and a
// taker's fill, signed with viem against what the gateway's /metadata names, execute on chain through it; tokens
// move by the exact amounts and the gateway's reads answer as the sequencer's do. A gateway without the file does
// not start, and says which setting names it.
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEventLogs, type Address, type PrivateKeyAccount } from 'viem';
import type { Metadata } from '@oddex/sdk';
import { oddexSettlementAbi, oddexTokenAbi } from '../src/chain/evm/contracts.js';
import { spawnExchange, suiteChildren } from './helpers/process.js';
import { noPostgres, postgresForSuite, postgresSuite } from './helpers/postgres.js';
import { natsForSuite } from './helpers/nats.js';
import { call } from './helpers/positioned-call.js';
import { waitFor } from './helpers/bets.js';
import { clientViewOf, startTestChain, type ClientView, type TestChain } from './helpers/evm.js';
import { E18, USDC, signedCancel, signedFill, signedOrder } from './helpers/wallets.js';

const ADMIN = 'evm-gateway-test-admin';

describe.skipIf(noPostgres)(postgresSuite('a gateway process beside a sequencer process settling on an EVM chain'), () => {
  const postgres = postgresForSuite();
  const nats = natsForSuite();
  const { tempDir, spawn } = suiteChildren('evm-gateway');
  let chain: TestChain;
  let sequencer = '';
  let gateway = '';
  let gatewayEnv: Record<string, string> = {};
  let markets: string[] = [];
  /** What a client reads in the gateway's /metadata. */
  let view: ClientView;

  const text = async (base: string, path: string) => {
    const res = await fetch(base + path);
    return [res.status, await res.text()] as const;
  };
  const onChain = (address: Address) => chain.pub.readContract({ address: view.token, abi: oddexTokenAbi, functionName: 'balanceOf', args: [address] });
  const balanceOn = async (base: string, w: PrivateKeyAccount) => (await call(base, 'GET', `/balances/${w.address}`)).body.data;

  beforeAll(async () => {
    chain = await startTestChain();
    // The sequencer's deployment file, named by ODDEX_EVM_DEPLOYMENT; the gateway gets a copy in its data dir, where
    // it looks by default.
    const sequencerDir = tempDir();
    const deploymentFile = join(sequencerDir, 'deployment.json');
    writeFileSync(deploymentFile, JSON.stringify(chain.deployment));
    const gatewayDir = tempDir();
    copyFileSync(deploymentFile, join(gatewayDir, 'evm-deployment.json'));
    const common = {
      ODDEX_DATABASE_URL: await postgres().createDatabase(),
      ODDEX_NATS_URL: nats().url,
      ODDEX_ADMIN_TOKEN: ADMIN,
      ODDEX_DEMO: 'true',
      ODDEX_DELAY_PREGAME_MS: '0',
      ODDEX_RATE_LIMITS: 'false',
      ODDEX_CHAIN: 'evm',
    };
    sequencer = await spawn({
      ...common,
      ODDEX_DATA_DIR: sequencerDir,
      ODDEX_EVM_DEPLOYMENT: deploymentFile,
      ODDEX_ROLES: 'sequencer,projector,settlement',
      ODDEX_EVM_BATCH_WAIT_MS: '20',
      ODDEX_EVM_POLL_MS: '50',
    });
    // Started after the sequencer seeded the demo catalogue: a gateway reads the catalogue at start.
    gatewayEnv = { ...common, ODDEX_ROLES: 'gateway' };
    gateway = await spawn({ ...gatewayEnv, ODDEX_DATA_DIR: gatewayDir });
    view = clientViewOf((await call(gateway, 'GET', '/metadata')).body.data as Metadata);
    markets = (await call(gateway, 'GET', '/markets/active?type=52&pageSize=100')).body.data.markets
      .filter((m: { liveEnabled: boolean }) => !m.liveEnabled)
      .map((m: { marketHash: string }) => m.marketHash);
  }, 60_000);

  afterAll(async () => {
    await chain?.stop();
  });

  it('answers /metadata byte for byte as the sequencer does, naming the deployed contracts', async () => {
    const [here, there] = [await text(gateway, '/metadata'), await text(sequencer, '/metadata')];
    expect(here[0]).toBe(200);
    expect(here).toEqual(there);
    const d = chain.deployment;
    expect([view.chainId, view.token, view.proxy, view.settlement, view.executor]).toEqual([d.chainId, d.token, d.proxy, d.settlement, d.executor]);
    expect([view.signing.domainNames.fill, view.signing.domainVersion]).toEqual([d.domainName, d.domainVersion]);
  });

  it('takes an order and a fill signed against its /metadata; the fill executes on chain and reads agree with the sequencer', async () => {
    const [maker, taker] = [await chain.fundedWallet(100n * USDC), await chain.fundedWallet(100n * USDC)];
    // The sequencer follows the mints on chain; the gateway reads them on the read side.
    for (const w of [maker, taker]) expect((await waitFor(() => balanceOn(gateway, w), (b) => b.balance === String(100n * USDC), 15_000)).balance).toBe(String(100n * USDC));
    const market = markets[0]!;
    const order = await signedOrder(maker, view.signing, { marketHash: market, totalBetSize: 50n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: true });
    const posted = await call(gateway, 'POST', '/orders/new', { orders: [order.body] });
    expect([posted.status, posted.body]).toEqual([200, { status: 'success', data: { orders: [order.hash], statuses: { [order.hash]: 'OK' }, inserted: 1 } }]);
    const fill = await signedFill(taker, view.signing, { market, isTakerBettingOutcomeOne: false, stakeWei: 30n * USDC, desiredOdds: 60n * E18 });
    const filled = await call(gateway, 'POST', '/orders/fill/v2', fill);
    expect([filled.status, filled.body.data]).toMatchObject([200, { isPartialFill: false, totalFilled: String(30n * USDC) }]);

    // Executed on chain: SUCCESS with the settling transaction, a mined call to the settlement contract that
    // settled this very fill (the contract checked both signatures the gateway passed on).
    const trades = async () => (await call(gateway, 'GET', `/trades/orders?orderHashes=${order.hash}`)).body.data.trades as Record<string, unknown>[];
    const done = await waitFor(trades, (t) => t.length === 2 && t.every((x) => x.tradeStatus !== 'PENDING'), 20_000);
    expect(done.map((t) => t.tradeStatus)).toEqual(['SUCCESS', 'SUCCESS']);
    const txHash = done[0]!.fillOrderHash as `0x${string}`;
    expect(txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(done[0]).toMatchObject({ fillHash: filled.body.data.fillHash, fillOrderHashAttempts: [txHash] });
    const receipt = await chain.pub.getTransactionReceipt({ hash: txHash });
    expect([receipt.status, receipt.to?.toLowerCase()]).toEqual(['success', view.settlement.toLowerCase()]);
    const settled = parseEventLogs({ abi: oddexSettlementAbi, logs: receipt.logs, eventName: 'FillSettled' });
    expect(settled.map((l) => [l.args.fillHash, l.args.takerStake, l.args.makerStake])).toEqual([[filled.body.data.fillHash, 30n * USDC, 20n * USDC]]);
    // Taker 30 at the maker's 40%: the maker 20, both into escrow.
    expect([await onChain(maker.address), await onChain(taker.address), await onChain(view.settlement)]).toEqual([80n * USDC, 70n * USDC, 50n * USDC]);

    // The rest of the order cancelled through the gateway.
    const cancelled = await call(gateway, 'POST', '/orders/cancel/v2', await signedCancel(maker, view.signing, 'v2', { orderHashes: [order.hash] }));
    expect(cancelled.body).toEqual({ status: 'success', data: { cancelledCount: 1, orders: [{ orderHash: order.hash, pendingFills: [] }], notCancelled: [] } });

    // Every read answers on the gateway as on the sequencer, at the sequencer's position.
    const reads = [
      `/balances/${maker.address}`,
      `/balances/${taker.address}`,
      `/orders?orderHashes=${order.hash}`,
      `/trades/orders?orderHashes=${order.hash}`,
      `/positions?bettor=${taker.address}`,
    ];
    for (const path of reads) {
      const there = await call(sequencer, 'GET', path);
      const here = await call(gateway, 'GET', path, undefined, { 'oddex-min-position': String(there.position) });
      expect([path, here.status, here.body]).toEqual([path, 200, there.body]);
    }
    expect(await balanceOn(gateway, maker)).toMatchObject({ balance: String(80n * USDC), escrowed: String(20n * USDC) });
    expect(await balanceOn(gateway, taker)).toMatchObject({ balance: String(70n * USDC), escrowed: String(30n * USDC) });
  }, 40_000);

  it('forwards the operator routes to the sequencer, which holds the chain client, and refuses demo funds as the sequencer on a chain does', async () => {
    const address = chain.deployment.operator;
    // The operator routes are forwarded to the sequencer's process, which holds the chain client: its answer.
    const faucet = await call(gateway, 'POST', '/admin/faucet', { address, amount: '1' }, { authorization: `Bearer ${ADMIN}` });
    const faucetThere = await call(sequencer, 'POST', '/admin/faucet', { address, amount: '1' }, { authorization: `Bearer ${ADMIN}` });
    expect(faucet.body.errorCode).not.toBe('NOT_ON_GATEWAY');
    expect([faucet.status, Object.keys(faucet.body)]).toEqual([faucetThere.status, Object.keys(faucetThere.body)]);
    const demo = await call(gateway, 'POST', '/user/demo-funds', { address });
    expect(demo.body.errorCode).toBe('NOT_ON_LOCAL_LEDGER');
    const demoThere = await call(sequencer, 'POST', '/user/demo-funds', { address });
    expect([demo.status, demo.body]).toEqual([demoThere.status, demoThere.body]);
  });

  it('does not start a gateway without the deployment file, and names the setting', async () => {
    const empty = tempDir();
    await expect(spawnExchange({ ...gatewayEnv, ODDEX_DATA_DIR: empty })).rejects.toThrow(
      `ODDEX_CHAIN=evm needs the deployment file ${join(empty, 'evm-deployment.json')}: a gateway reads the deployment file its sequencer reads: copy it here or set ODDEX_EVM_DEPLOYMENT`,
    );
  });
});
