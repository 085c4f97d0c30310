// ODDEX_CHAIN=evm end to end: anvil from the npm package, the contracts deployed, the real server following the
// chain. The tests trade as a client does: every address and signing value comes from /metadata over HTTP; wallets
// get tokens from the operator's faucet and approve, with viem, the spender /metadata names. Fills go PENDING, then
// SUCCESS with a real transaction, or FAILED with the revert reason; a restart with a fill in flight settles it
// once. Every balance is read on chain.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEventLogs, type Address, type PrivateKeyAccount, type PublicClient } from 'viem';
import { spawnSync } from 'node:child_process';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { defaultConfig } from '../src/config.js';
import { checkFunds } from '../src/chain/evm/funds.js';
import { oddexSettlementAbi, oddexTokenAbi, tokenTransferProxyAbi } from '../src/chain/evm/contracts.js';
import type { Metadata } from '@oddex/sdk';
import { startTestExchange, type TestExchange } from './helpers/server.js';
import { waitFor as waitWithin } from './helpers/bets.js';
import { clientViewOf, startExchangeNode, type ClientView, type Node } from './helpers/evm.js';
import { E18, USDC, newWallet, signedFill, signedOrder } from './helpers/wallets.js';
import { parlaySigning, signedParlayRequest } from './helpers/parlays.js';

/** Chain round trips get more time than the helper's default on a loaded machine. */
const waitFor = <T>(probe: () => Promise<T>, done: (v: T) => boolean) => waitWithin(probe, done, 15_000);

describe('trading with ODDEX_CHAIN=evm on anvil', () => {
  let node: Node;
  let ex: TestExchange;
  let dataDir: string;
  let markets: string[];
  let overrides: Parameters<typeof startTestExchange>[0];
  /** What a client read in /metadata. */
  let meta: Metadata;
  let view: ClientView;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'oddex-evm-'));
    const deploymentFile = join(dataDir, 'evm-deployment.json');
    node = await startExchangeNode(deploymentFile);
    overrides = {
      demo: true,
      chain: 'evm',
      evm: { ...defaultConfig().evm, deploymentFile, batchWaitMs: 400, pollMs: 50 },
      bettingDelay: { preGameMs: 0, inPlayMs: 0, inPlayBySportMs: {}, inPlayByLeagueMs: {} },
      rateLimits: { ...defaultConfig().rateLimits, enabled: false },
      parlays: { ...defaultConfig().parlays, quoteWindowMs: 300 },
    };
    ex = await startTestExchange(overrides, { dataDir });
    meta = (await ex.get('/metadata')).body.data;
    view = clientViewOf(meta);
    const active = (await ex.get('/markets/active?pageSize=100&type=52')).body.data.markets;
    markets = active.filter((m: { liveEnabled: boolean }) => !m.liveEnabled).map((m: { marketHash: string }) => m.marketHash);
  }, 60_000);
  afterAll(async () => {
    await ex?.destroy();
    await node?.stop();
  });

  const balance = async (w: PrivateKeyAccount) => (await ex.get(`/balances/${w.address}`)).body.data;
  const balanceOf = (address: Address) => node.pub.readContract({ address: view.token, abi: oddexTokenAbi, functionName: 'balanceOf', args: [address] });
  const held = (market: string) => node.pub.readContract({ address: view.settlement, abi: oddexSettlementAbi, functionName: 'held', args: [market as `0x${string}`] });
  /** The wallet lets the spender /metadata names take `amount`. */
  async function approve(w: PrivateKeyAccount, amount: bigint, fees: { maxPriorityFeePerGas?: bigint; maxFeePerGas?: bigint } = {}) {
    return node.walletOf(w).writeContract({ chain: node.chain, account: w, address: view.token, abi: oddexTokenAbi, functionName: 'approve', args: [view.proxy, amount], ...fees });
  }
  /** A new wallet as a bot sets one up: gas, the approval, then `amount` from the operator's faucet; once the exchange has seen it. */
  async function wallet(amount: bigint) {
    const w = newWallet();
    await node.testClient.setBalance({ address: w.address, value: 10n ** 20n });
    // Approved first: /balances shows the wallet's balance, not the allowance, and the faucet answers once the
    // exchange has followed the chain to the mint, so past the approval too.
    await node.pub.waitForTransactionReceipt({ hash: await approve(w, amount) });
    if (amount > 0n) expect((await ex.admin('POST', '/admin/faucet', { address: w.address, amount: amount.toString() })).status).toBe(200);
    await waitFor(() => balance(w), (b) => b.balance === amount.toString());
    return w;
  }
  const trades = async (orderHash: string) => (await ex.get(`/trades/orders?orderHashes=${orderHash}`)).body.data.trades as Record<string, unknown>[];
  const settledTrades = (orderHash: string) => waitFor(() => trades(orderHash), (t) => t.length > 0 && t.every((x) => x.tradeStatus !== 'PENDING'));
  /** Once the escrow paid them on chain: every trade of the order settled, with its settle transaction. */
  const paidTrades = (orderHash: string, count: number) =>
    waitFor(() => trades(orderHash), (t) => t.length === count && t.every((x) => x.settled === true && typeof x.settleTxHash === 'string'));
  /** Each trade's settle transaction is a mined receipt whose logs pay that bettor's position in that market. */
  async function expectPaidOnChain(settled: Record<string, unknown>[]) {
    for (const t of settled) {
      const receipt = await node.pub.getTransactionReceipt({ hash: t.settleTxHash as `0x${string}` });
      expect([receipt.status, receipt.to?.toLowerCase()]).toEqual(['success', view.settlement.toLowerCase()]);
      const claims = parseEventLogs({ abi: oddexSettlementAbi, logs: receipt.logs, eventName: 'Claimed' });
      expect(claims.map((l) => [l.args.marketHash, l.args.bettor.toLowerCase()])).toContainEqual([t.marketHash, (t.bettor as string).toLowerCase()]);
    }
  }

  it('names in /metadata the contracts deployed on the chain: token, transfer proxy, settlement, executor, chain id and fill domain', async () => {
    expect(view.chainId).toBe(await node.pub.getChainId());
    for (const address of [view.token, view.proxy, view.settlement]) expect(await node.pub.getCode({ address }), address).toMatch(/^0x[0-9a-f]+$/);
    const settlement = { address: view.settlement, abi: oddexSettlementAbi } as const;
    // The proxy wallets approve is the one settlement pulls stakes through, and it lets settlement do so.
    expect(await node.pub.readContract({ ...settlement, functionName: 'proxy' })).toBe(view.proxy);
    expect(await node.pub.readContract({ address: view.proxy, abi: tokenTransferProxyAbi, functionName: 'authorised', args: [view.settlement] })).toBe(true);
    expect(await node.pub.readContract({ ...settlement, functionName: 'token' })).toBe(view.token);
    expect(await node.pub.readContract({ ...settlement, functionName: 'executor' })).toBe(view.executor);
    expect(await node.pub.readContract({ address: view.token, abi: oddexTokenAbi, functionName: 'symbol' })).toBe(view.tokenSymbol);
    // The fill domain a taker signs with /metadata's values is the one the contract verifies (EIP-5267).
    const [, name, version, chainId, verifyingContract] = await node.pub.readContract({ ...settlement, functionName: 'eip712Domain' });
    expect({ name, version, chainId, verifyingContract }).toEqual({ name: meta.domainNames.fill, version: meta.domainVersion, chainId: BigInt(meta.chainId), verifyingContract: view.settlement });
  });

  it('refuses to start when a configured address contradicts the deployment', async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'oddex-evm-'));
    try {
      const token = `0x${'11'.repeat(20)}`;
      await expect(startTestExchange({ ...overrides, baseTokenAddress: token }, { dataDir: elsewhere })).rejects.toThrow(
        `ODDEX_BASE_TOKEN_ADDRESS is ${token} but the deployment in ${join(dataDir, 'evm-deployment.json')} has ${view.token.toLowerCase()}`,
      );
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('refuses to start with an operator key that is not the deployment\'s operator, which alone mints and reports', async () => {
    // Started anyway, such a server took reports it could never put on chain (OwnableUnauthorizedAccount, retried
    // for ever, nobody paid) and answered every faucet call 500.
    const elsewhere = mkdtempSync(join(tmpdir(), 'oddex-evm-'));
    try {
      const key = generatePrivateKey();
      const operator = await node.pub.readContract({ address: view.token, abi: oddexTokenAbi, functionName: 'owner' });
      const evm = { ...defaultConfig().evm, ...overrides?.evm, operatorKey: key };
      const started = startTestExchange({ ...overrides, evm }, { dataDir: elsewhere }).then(async (other) => {
        await other.destroy();
        return 'started';
      });
      await expect(started).rejects.toThrow(
        `ODDEX_OPERATOR_KEY is the key of ${privateKeyToAccount(key).address} but the deployment in ${join(dataDir, 'evm-deployment.json')} has the operator ${operator}`,
      );
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('refuses to start with an executor key that is not the deployment\'s executor, naming the setting, without a stack trace', async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'oddex-evm-'));
    try {
      const key = generatePrivateKey();
      const started = startTestExchange({ ...overrides, evm: { ...defaultConfig().evm, ...overrides?.evm, executorKey: key } }, { dataDir: elsewhere }).then(async (other) => {
        await other.destroy();
        return 'started';
      });
      // A SetupError is printed as its message alone (src/main.ts).
      await expect(started).rejects.toMatchObject({
        name: 'SetupError',
        message: `ODDEX_EXECUTOR_KEY is the key of ${privateKeyToAccount(key).address} but the deployment in ${join(dataDir, 'evm-deployment.json')} has the executor ${view.executor}: give the key of the executor the settlement contract was deployed with`,
      });
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('trades as a bot: approves what /metadata names, fills PENDING then SUCCESS in a mined transaction, is paid at settlement, to the wei', async () => {
    const maker = await wallet(100n * USDC);
    const taker = await wallet(100n * USDC);
    const market = markets[0]!;
    const order = await signedOrder(maker, view.signing, { marketHash: market, totalBetSize: 50n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: true });
    expect((await ex.post('/orders/new', { orders: [order.body] })).body.data.statuses).toEqual({ [order.hash]: 'OK' });
    const fill = await signedFill(taker, view.signing, { market, isTakerBettingOutcomeOne: false, stakeWei: 30n * USDC, desiredOdds: 60n * E18 });
    const filled = await ex.post('/orders/fill/v2', fill);
    expect(filled.status).toBe(200);
    expect((await trades(order.hash)).map((t) => t.tradeStatus)).toEqual(['PENDING', 'PENDING']);

    const done = await settledTrades(order.hash);
    expect(done.map((t) => t.tradeStatus)).toEqual(['SUCCESS', 'SUCCESS']);
    const txHash = done[0]!.fillOrderHash as `0x${string}`;
    expect(done[0]).toMatchObject({ fillHash: filled.body.data.fillHash, fillOrderHashAttempts: [txHash] });
    // A mined transaction to the settlement contract that settled this very fill (the contract checked both signatures).
    const receipt = await node.pub.getTransactionReceipt({ hash: txHash });
    expect([receipt.status, receipt.to?.toLowerCase()]).toEqual(['success', view.settlement.toLowerCase()]);
    const settledFills = parseEventLogs({ abi: oddexSettlementAbi, logs: receipt.logs, eventName: 'FillSettled' });
    expect(settledFills.map((l) => [l.args.fillHash, l.args.takerStake, l.args.makerStake])).toEqual([[filled.body.data.fillHash, 30n * USDC, 20n * USDC]]);

    // Taker 30 at maker odds 40%: maker 20. On chain and in the exchange's view.
    expect(await balanceOf(maker.address)).toBe(80n * USDC);
    expect(await balanceOf(taker.address)).toBe(70n * USDC);
    expect(await balanceOf(view.settlement)).toBe(50n * USDC);
    expect(await balance(maker)).toMatchObject({ balance: '80000000', escrowed: '20000000', openExposure: '30000000' });
    expect(await balance(taker)).toMatchObject({ balance: '70000000', escrowed: '30000000', pendingTakerStake: '0' });

    // The operator reports outcome two, the taker's: the escrow pays the taker the pot of 50.
    expect((await ex.admin('POST', `/admin/markets/${market}/report`, { outcome: 2 })).status).toBe(200);
    await expectPaidOnChain(await paidTrades(order.hash, 2));
    expect([await balanceOf(maker.address), await balanceOf(taker.address), await held(market)]).toEqual([80n * USDC, 120n * USDC, 0n]);
    expect(await waitFor(() => balance(taker), (b) => b.balance === '120000000')).toMatchObject({ balance: '120000000', escrowed: '0' });
    expect(await balance(maker)).toMatchObject({ balance: '80000000', escrowed: '0', openExposure: '0' });
  });

  it('settles on chain a fill whose slippage holds on average though one of its orders is worse than the bound', async () => {
    const maker = await wallet(40n * USDC);
    const taker = await wallet(50n * USDC);
    const market = markets[8]!;
    const better = await signedOrder(maker, view.signing, { marketHash: market, totalBetSize: 12n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: true });
    const worse = await signedOrder(maker, view.signing, { marketHash: market, totalBetSize: 20n * USDC, percentageOdds: 45n * E18, isMakerBettingOutcomeOne: true });
    expect((await ex.post('/orders/new', { orders: [better.body, worse.body] })).body.data.inserted).toBe(2);
    // Bound 58.2%: 18 USDC at taker odds 60%, then 10.125 USDC at 55% (average 58.2% exactly).
    const filled = await ex.post('/orders/fill/v2', await signedFill(taker, view.signing, { market, isTakerBettingOutcomeOne: false, stakeWei: 50n * USDC, desiredOdds: 60n * E18, oddsSlippage: 3 }));
    expect(filled.body.data).toMatchObject({ totalFilled: '28125000', averageOdds: '58200000000000000000' });
    const done = await settledTrades(worse.hash);
    expect(done.map((t) => t.tradeStatus)).toEqual(['SUCCESS', 'SUCCESS']);
    const receipt = await node.pub.getTransactionReceipt({ hash: done[0]!.fillOrderHash as `0x${string}` });
    const settledFills = parseEventLogs({ abi: oddexSettlementAbi, logs: receipt.logs, eventName: 'FillSettled' });
    expect(settledFills.map((l) => [l.args.fillHash, l.args.takerStake, l.args.makerStake])).toEqual([[filled.body.data.fillHash, 28_125_000n, 20_284_090n]]);
  });

  it('refuses a cash out whose cashOutTarget is neither zero nor the fill\'s market, as the local ledger does', async () => {
    const taker = await wallet(10n * USDC);
    const market = markets[0]!;
    const other = await signedFill(taker, view.signing, { market, isTakerBettingOutcomeOne: false, stakeWei: 5n * USDC, desiredOdds: 60n * E18, cashOutTarget: '0x' + '12'.repeat(32) });
    const bad = await ex.post('/orders/fill/v2', other);
    expect([bad.status, bad.body.errorCode]).toEqual([400, 'INVALID_CASHOUT_TARGET']);
  });

  it('fails a fill whose maker moved the funds on chain after acceptance, with the revert reason, and changes nothing else', async () => {
    const maker = await wallet(20n * USDC);
    const taker = await wallet(50n * USDC);
    const sink = await wallet(0n);
    const order = await signedOrder(maker, view.signing, { marketHash: markets[1]!, totalBetSize: 20n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: true });
    await ex.post('/orders/new', { orders: [order.body] });
    const fill = await signedFill(taker, view.signing, { market: markets[1]!, isTakerBettingOutcomeOne: false, stakeWei: 15n * USDC, desiredOdds: 60n * E18 });
    expect((await ex.post('/orders/fill/v2', fill)).status).toBe(200);
    // Before the batch goes out (it waits 400 ms), the maker empties the wallet.
    const moved = await node.walletOf(maker).writeContract({ chain: node.chain, account: maker, address: view.token, abi: oddexTokenAbi, functionName: 'transfer', args: [sink.address, 19n * USDC] });
    await node.pub.waitForTransactionReceipt({ hash: moved });

    const done = await settledTrades(order.hash);
    expect(done.map((t) => t.tradeStatus)).toEqual(['FAILED', 'FAILED']);
    expect(done[0]!.failureReason).toBe(`ERC20InsufficientBalance(${maker.address}, 1000000, 10000000)`);
    const receipt = await node.pub.getTransactionReceipt({ hash: done[0]!.fillOrderHash as `0x${string}` });
    expect(receipt.status).toBe('success');
    expect([await balanceOf(maker.address), await balanceOf(taker.address), await balanceOf(sink.address)]).toEqual([1n * USDC, 50n * USDC, 19n * USDC]);
    expect(await balance(taker)).toMatchObject({ balance: '50000000', escrowed: '0', pendingTakerStake: '0' });
    expect(await balance(maker)).toMatchObject({ balance: '1000000', escrowed: '0', openExposure: '0' });
    expect((await ex.get(`/orders?orderHashes=${order.hash}`)).body.data[0]).toMatchObject({ orderStatus: 'CANCELLED', fillAmount: '0', pendingFillAmount: '0' });
  });

  it('settles a fill that was in flight across a restart exactly once', async () => {
    const maker = await wallet(100n * USDC);
    const taker = await wallet(100n * USDC);
    const order = await signedOrder(maker, view.signing, { marketHash: markets[2]!, totalBetSize: 50n * USDC, percentageOdds: 50n * E18, isMakerBettingOutcomeOne: true });
    await ex.post('/orders/new', { orders: [order.body] });
    const fill = await signedFill(taker, view.signing, { market: markets[2]!, isTakerBettingOutcomeOne: false, stakeWei: 10n * USDC, desiredOdds: 50n * E18 });
    expect((await ex.post('/orders/fill/v2', fill)).status).toBe(200);
    ex = await ex.restart();
    const done = await settledTrades(order.hash);
    expect(done.map((t) => t.tradeStatus)).toEqual(['SUCCESS', 'SUCCESS']);
    expect(await balanceOf(maker.address)).toBe(90n * USDC);
    expect(await balanceOf(taker.address)).toBe(90n * USDC);
    expect(await balance(maker)).toMatchObject({ balance: '90000000', escrowed: '10000000' });
    expect(await balance(taker)).toMatchObject({ balance: '90000000', escrowed: '10000000' });
  });

  it('pays a capital-efficiency refund from escrow and the winner at settlement, on chain, to the wei', async () => {
    const makerOne = await wallet(100n * USDC);
    const makerTwo = await wallet(100n * USDC);
    const taker = await wallet(100n * USDC);
    const market = markets[4]!;
    const onOne = await signedOrder(makerOne, view.signing, { marketHash: market, totalBetSize: 50n * USDC, percentageOdds: 50n * E18, isMakerBettingOutcomeOne: true });
    const onTwo = await signedOrder(makerTwo, view.signing, { marketHash: market, totalBetSize: 50n * USDC, percentageOdds: 50n * E18, isMakerBettingOutcomeOne: false });
    await ex.post('/orders/new', { orders: [onOne.body, onTwo.body] });
    // The taker backs both outcomes with 10 each at even odds: 20 comes back whatever happens, so it is refunded.
    for (const isTakerBettingOutcomeOne of [false, true]) {
      const res = await ex.post('/orders/fill/v2', await signedFill(taker, view.signing, { market, isTakerBettingOutcomeOne, stakeWei: 10n * USDC, desiredOdds: 50n * E18 }));
      expect(res.status).toBe(200);
      await settledTrades(isTakerBettingOutcomeOne ? onTwo.hash : onOne.hash);
    }
    // The engine refunded 20 from escrow at once; the wallet shows it once the escrow's transfer is on chain.
    expect(await balance(taker)).toMatchObject({ escrowed: '0' });
    expect(await waitFor(() => balanceOf(taker.address), (b) => b === 100n * USDC)).toBe(100n * USDC);
    expect(await waitFor(() => balance(taker), (b) => b.balance === '100000000')).toMatchObject({ balance: '100000000', escrowed: '0' });

    expect((await ex.admin('POST', `/admin/markets/${market}/report`, { outcome: 1 })).status).toBe(200);
    // Outcome one: makerOne takes the pot of 20; makerTwo loses 10; the taker was paid in full by the refund.
    expect(await waitFor(() => balanceOf(makerOne.address), (b) => b === 110n * USDC)).toBe(110n * USDC);
    expect([await balanceOf(makerTwo.address), await balanceOf(taker.address)]).toEqual([90n * USDC, 100n * USDC]);
    expect(await held(market)).toBe(0n);
    await waitFor(() => balance(makerOne), (b) => b.balance === '110000000');
    expect(await balance(makerOne)).toMatchObject({ balance: '110000000', escrowed: '0' });
    expect(await balance(makerTwo)).toMatchObject({ balance: '90000000', escrowed: '0' });
    expect(await balance(taker)).toMatchObject({ balance: '100000000', escrowed: '0' });
    const settled = [...(await paidTrades(onOne.hash, 2)), ...(await paidTrades(onTwo.hash, 2))];
    await expectPaidOnChain(settled);
    // Nothing is left for start-up to hand to the chain again: the refunds and payouts were seen paid.
    const readModels = ex.ctx.trading.readModels;
    await waitFor(async () => (await readModels.refunds.refundsUnpaidOnChain()).length, (n) => n === 0);
    expect(await readModels.positionsUnpaidOnChain()).toEqual([]);
  });

  it('accounts for every minted wei in wallets and escrow (the operator funds check)', async () => {
    // Minted in this file: 100 + 100 + 40 + 50 + 10 + 20 + 50 + 0 + 100 + 100 + 3 x 100 = 870 to 13 wallets; escrow
    // (the 14th account): the 20 of the market left open across the restart and the 48.40909 of the averaged-slippage
    // fill (the others were settled or failed).
    const report = await checkFunds(node.pub as PublicClient, { token: view.token, settlement: view.settlement, deployBlock: '0' });
    const escrow = 20n * USDC + 48_409_090n;
    expect(report).toEqual({ token: view.token, accounts: 14, wallets: 870n * USDC - escrow, escrowBalance: escrow, escrowHeld: escrow, minted: 870n * USDC, totalSupply: 870n * USDC, agrees: true });
    const cli = spawnSync(process.execPath, ['--import', 'tsx', 'src/chain/evm/funds-check.ts'], { env: { ...process.env, ODDEX_DATA_DIR: dataDir }, encoding: 'utf8' });
    expect(cli.status).toBe(0);
    expect(JSON.parse(cli.stdout)).toMatchObject({ wallets: '801590910', escrowBalance: '68409090', minted: '870000000', agrees: true });
  });

  /** A maker (50 on outcome one at `odds` %) and a taker, 100 each on chain; the taker's fill of `takerStake` executed. */
  async function matchedBet(market: string, odds: bigint, takerStake: bigint) {
    const maker = await wallet(100n * USDC);
    const taker = await wallet(100n * USDC);
    const order = await signedOrder(maker, view.signing, { marketHash: market, totalBetSize: 50n * USDC, percentageOdds: odds * E18, isMakerBettingOutcomeOne: true });
    expect((await ex.post('/orders/new', { orders: [order.body] })).body.data.statuses).toEqual({ [order.hash]: 'OK' });
    const fill = await signedFill(taker, view.signing, { market, isTakerBettingOutcomeOne: false, stakeWei: takerStake, desiredOdds: (100n - odds) * E18 });
    expect((await ex.post('/orders/fill/v2', fill)).status).toBe(200);
    const executed = await settledTrades(order.hash);
    expect(executed.every((t) => t.tradeStatus === 'SUCCESS')).toBe(true);
    return { maker, taker, order };
  }

  it('settles on chain an order and a fill whose signatures carry v as 0/1, which the API accepts as it does 27/28', async () => {
    const maker = await wallet(20n * USDC);
    const taker = await wallet(20n * USDC);
    const market = markets[9]!;
    // Some signers (hardware wallets, raw secp256k1 libraries) write the recovery id as 0/1 instead of 27/28.
    const lowV = (sig: string) => sig.slice(0, -2) + (parseInt(sig.slice(-2), 16) - 27).toString(16).padStart(2, '0');
    const order = await signedOrder(maker, view.signing, { marketHash: market, totalBetSize: 10n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: true });
    const posted = await ex.post('/orders/new', { orders: [{ ...order.body, signature: lowV(order.body.signature) }] });
    expect(posted.body.data.statuses).toEqual({ [order.hash]: 'OK' });
    // The book shows the signature the contract verifies: the same (r, s) with v as 27/28.
    expect((await ex.get(`/orders?orderHashes=${order.hash}`)).body.data[0].signature).toBe(order.body.signature.toLowerCase());
    const fill = await signedFill(taker, view.signing, { market, isTakerBettingOutcomeOne: false, stakeWei: 3n * USDC, desiredOdds: 60n * E18 });
    expect((await ex.post('/orders/fill/v2', { ...fill, takerSig: lowV(fill.takerSig) })).status).toBe(200);
    const done = await settledTrades(order.hash);
    expect(done.map((t) => [t.tradeStatus, t.failureReason])).toEqual([['SUCCESS', undefined], ['SUCCESS', undefined]]);
  });

  it('reports a market void: each side gets its stake back on chain, and the trades name the paying transaction', async () => {
    const market = markets[5]!;
    const { maker, taker, order } = await matchedBet(market, 40n, 30n * USDC);
    expect([await balanceOf(maker.address), await balanceOf(taker.address)]).toEqual([80n * USDC, 70n * USDC]);

    expect((await ex.admin('POST', `/admin/markets/${market}/report`, { outcome: 0 })).status).toBe(200);
    // Settled in the exchange at once, but no settle transaction until the escrow has paid on chain.
    const reported = await trades(order.hash);
    expect(reported.every((t) => t.settled === true && t.outcome === 0)).toBe(true);
    const settled = await paidTrades(order.hash, 2);
    expect([await balanceOf(maker.address), await balanceOf(taker.address)]).toEqual([100n * USDC, 100n * USDC]);
    expect(await held(market)).toBe(0n);
    expect(await balance(maker)).toMatchObject({ balance: '100000000', escrowed: '0', openExposure: '0' });
    expect(await balance(taker)).toMatchObject({ balance: '100000000', escrowed: '0' });
    await expectPaidOnChain(settled);
    // Void: the settle values are the stakes.
    expect(settled.map((t) => [t.maker, t.settleValue])).toEqual([[true, 20], [false, 30]]);
  });

  it('settles a quarter line half won, half pushed, on chain to the wei', async () => {
    const parent = await quarterLineMarket();
    const [lowLeg, highLeg] = ex.ctx.catalogue.getMarket(parent)!.legMarketHashes!;
    // An odd stake: the lower line's leg takes the odd wei (taker 10,000,001 + 10,000,000; the maker the same at 50%).
    const { maker, taker, order } = await matchedBet(parent, 50n, 20_000_001n);
    expect(await trades(order.hash)).toHaveLength(4);
    expect([await balanceOf(maker.address), await balanceOf(taker.address)]).toEqual([100n * USDC - 20_000_001n, 100n * USDC - 20_000_001n]);

    // The lower line pushes (void), the higher line goes to outcome one (the maker's side).
    expect((await ex.admin('POST', `/admin/markets/${lowLeg}/report`, { outcome: 0 })).status).toBe(200);
    expect((await ex.admin('POST', `/admin/markets/${highLeg}/report`, { outcome: 1 })).status).toBe(200);
    const settled = await paidTrades(order.hash, 4);
    // Maker: 10,000,001 back from the push, 20,000,000 from the won half. Taker: 10,000,001 back, the other half lost.
    expect(await balanceOf(maker.address)).toBe(100n * USDC - 20_000_001n + 10_000_001n + 20_000_000n);
    expect(await balanceOf(taker.address)).toBe(100n * USDC - 20_000_001n + 10_000_001n);
    for (const leg of [lowLeg, highLeg]) {
      expect(await held(leg)).toBe(0n);
    }
    expect(await balance(maker)).toMatchObject({ balance: String(110n * USDC), escrowed: '0' });
    expect(await balance(taker)).toMatchObject({ balance: String(90n * USDC), escrowed: '0' });
    await expectPaidOnChain(settled);
    const byLeg = (leg: string, isMaker: boolean) => settled.find((t) => t.marketHash === leg && t.maker === isMaker)!;
    expect([byLeg(lowLeg, true).outcome, byLeg(lowLeg, true).stake, byLeg(highLeg, false).outcome, byLeg(highLeg, false).stake]).toEqual([0, '10000001', 1, '10000000']);
  });

  // A parlay of two moneylines: the bettor backs [leg one wins, leg two loses] with 20, a maker the other side at
  // 80% (stake 80). The escrow holds the parlay market's pot and pays it by the outcome its legs give it.
  const parlayCases = [
    { name: 'every leg wins as picked', legOutcomes: [1, 2], outcome: 1, bettor: 180n * USDC, maker: 20n * USDC },
    { name: 'one leg loses', legOutcomes: [1, 1], outcome: 2, bettor: 80n * USDC, maker: 120n * USDC },
    { name: 'a void leg voids it', legOutcomes: [0, 2], outcome: 0, bettor: 100n * USDC, maker: 100n * USDC },
  ];
  parlayCases.forEach((c, i) => {
    it(`settles a parlay from its legs on chain to the wei: ${c.name}`, async () => {
      // Leg one a moneyline no other test uses, leg two the main total of another fixture (its moneyline may be another test's).
      const one = markets[8 + i]!;
      const otherEvent = (await ex.get(`/markets/find?marketHashes=${markets[[11, 12, 0][i]!]!}`)).body.data[0].exchangeEventId as string;
      const totals = (await ex.get(`/markets/active?eventId=${otherEvent}&type=2&onlyMainLine=true`)).body.data.markets as { marketHash: string }[];
      const two = totals[0]!.marketHash;
      const bettor = await wallet(100n * USDC);
      const maker = await wallet(100n * USDC);
      const legs = [
        { marketHash: one, bettingOutcomeOne: true },
        { marketHash: two, bettingOutcomeOne: false },
      ];
      const requested = await ex.post('/parlays/request', await signedParlayRequest(bettor, await parlaySigning(ex), { legs, requestSize: 20n * USDC }));
      expect(requested.status).toBe(200);
      const parlay = requested.body.data.marketHash as string;
      const order = await signedOrder(maker, view.signing, { marketHash: parlay, totalBetSize: 100n * USDC, percentageOdds: 80n * E18, isMakerBettingOutcomeOne: false });
      expect((await ex.post('/orders/new', { orders: [order.body] })).body.data.statuses).toEqual({ [order.hash]: 'OK' });
      await new Promise((r) => setTimeout(r, Math.max(0, requested.body.data.parlay.quoteWindowEndsAt - Date.now() + 20)));
      const fill = await signedFill(bettor, view.signing, { market: parlay, isTakerBettingOutcomeOne: true, stakeWei: 20n * USDC, desiredOdds: 20n * E18 });
      expect((await ex.post('/orders/fill/v2', fill)).status).toBe(200);
      expect((await settledTrades(order.hash)).map((t) => t.tradeStatus)).toEqual(['SUCCESS', 'SUCCESS']);
      expect([await balanceOf(bettor.address), await balanceOf(maker.address), await held(parlay)]).toEqual([80n * USDC, 20n * USDC, 100n * USDC]);

      expect((await ex.admin('POST', `/admin/markets/${one}/report`, { outcome: c.legOutcomes[0] })).status).toBe(200);
      const reported = await ex.admin('POST', `/admin/markets/${two}/report`, { outcome: c.legOutcomes[1] });
      expect((reported.body.data as { marketHash: string; outcome: number }[]).map((m) => [m.marketHash, m.outcome])).toEqual([
        [two, c.legOutcomes[1]],
        [parlay, c.outcome],
      ]);
      const settled = await paidTrades(order.hash, 2);
      expect(settled.every((t) => t.outcome === c.outcome)).toBe(true);
      await expectPaidOnChain(settled);
      expect([await balanceOf(bettor.address), await balanceOf(maker.address), await held(parlay)]).toEqual([c.bettor, c.maker, 0n]);
      expect(await balance(bettor)).toMatchObject({ balance: c.bettor.toString(), escrowed: '0' });
      expect(await balance(maker)).toMatchObject({ balance: c.maker.toString(), escrowed: '0' });
    });
  });

  it('applies an approval and a fill mined in one block in log order: the fill spends the new allowance', async () => {
    const maker = await wallet(100n * USDC);
    const taker = await wallet(100n * USDC);
    const market = markets[6]!;
    const order = await signedOrder(maker, view.signing, { marketHash: market, totalBetSize: 50n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: true });
    await ex.post('/orders/new', { orders: [order.body] });
    await node.testClient.setAutomine(false);
    try {
      expect((await ex.post('/orders/fill/v2', await signedFill(taker, view.signing, { market, isTakerBettingOutcomeOne: false, stakeWei: 30n * USDC, desiredOdds: 60n * E18 }))).status).toBe(200);
      // The maker lowers the approval to 60 in the same block, ahead of the settlement (a higher tip orders it first).
      const lowered = await approve(maker, 60n * USDC, { maxPriorityFeePerGas: 100n * 10n ** 9n, maxFeePerGas: 200n * 10n ** 9n });
      // Sent: its attempts name a transaction rather than the fill hash.
      await waitFor(() => trades(order.hash), (t) => t.length > 0 && (t[0]!.fillOrderHashAttempts as string[])[0] !== t[0]!.fillHash);
      await node.testClient.mine({ blocks: 1 });
      const done = await settledTrades(order.hash);
      expect(done.map((t) => t.tradeStatus)).toEqual(['SUCCESS', 'SUCCESS']);
      const [approval, settlement] = await Promise.all([lowered, done[0]!.fillOrderHash as `0x${string}`].map((hash) => node.pub.getTransactionReceipt({ hash })));
      expect(approval!.blockNumber).toBe(settlement!.blockNumber);
      expect(approval!.transactionIndex).toBeLessThan(settlement!.transactionIndex);
    } finally {
      await node.testClient.setAutomine(true);
    }
    // On chain: 60 approved, then 20 spent by the fill. The open rest of the order (30) leaves exactly 10 to commit;
    // applying the approval after the fill would have counted 60 and let another 20 in.
    expect(await node.pub.readContract({ address: view.token, abi: oddexTokenAbi, functionName: 'allowance', args: [maker.address, view.proxy] })).toBe(40n * USDC);
    const more = await signedOrder(maker, view.signing, { marketHash: market, totalBetSize: 10n * USDC + 1n, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: true });
    expect((await ex.post('/orders/new', { orders: [more.body] })).body.data.statuses).toEqual({ [more.hash]: 'INSUFFICIENT_BALANCE' });
    const exact = await signedOrder(maker, view.signing, { marketHash: market, totalBetSize: 10n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: true });
    expect((await ex.post('/orders/new', { orders: [exact.body] })).body.data.statuses).toEqual({ [exact.hash]: 'OK' });
  });

  it('pays on restart a reported market whose payout never reached the chain', async () => {
    const market = markets[7]!;
    const { maker, taker, order } = await matchedBet(market, 50n, 10n * USDC);

    // The report is journaled, but its transaction is lost (dropped from the node's pool) before the process stops.
    await node.testClient.setAutomine(false);
    try {
      expect((await ex.admin('POST', `/admin/markets/${market}/report`, { outcome: 1 })).status).toBe(200);
      const pool = await waitFor(() => node.testClient.getTxpoolContent(), (p) => Object.keys(p.pending).length > 0);
      for (const byNonce of Object.values(pool.pending)) for (const tx of Object.values(byNonce)) await node.testClient.dropTransaction({ hash: tx.hash });
      expect(await ex.ctx.trading.readModels.positionsUnpaidOnChain()).toEqual([{ marketHash: market, outcome: 1, bettors: expect.arrayContaining([maker.address, taker.address]) }]);
    } finally {
      await node.testClient.setAutomine(true);
    }
    expect(await balanceOf(maker.address)).toBe(90n * USDC);

    ex = await ex.restart();
    const settled = await paidTrades(order.hash, 2);
    await expectPaidOnChain(settled);
    expect([await balanceOf(maker.address), await balanceOf(taker.address)]).toEqual([110n * USDC, 90n * USDC]);
    expect(await ex.ctx.trading.readModels.positionsUnpaidOnChain()).toEqual([]);
  });

  /** A pre-game quarter-line market of the demo catalogue. */
  async function quarterLineMarket(): Promise<string> {
    for (let key = ''; ; ) {
      const page = (await ex.get(`/markets/active?pageSize=100${key ? `&paginationKey=${key}` : ''}`)).body.data;
      const found = page.markets.find((m: { isQuarterLineMarket: boolean; liveEnabled: boolean }) => m.isQuarterLineMarket && !m.liveEnabled);
      if (found) return found.marketHash as string;
      if (!page.nextKey) throw new Error('no pre-game quarter-line market in the demo catalogue');
      key = page.nextKey;
    }
  }

  it('sends again, after ODDEX_EVM_RECEIPT_TIMEOUT_MS, a settlement transaction the node lost from its pool, and settles its fill once', async () => {
    const maker = await wallet(100n * USDC);
    const taker = await wallet(100n * USDC);
    await ex.close();
    ex = await startTestExchange({ ...overrides, evm: { ...overrides!.evm!, receiptTimeoutMs: 1500 } }, { dataDir });
    const order = await signedOrder(maker, view.signing, { marketHash: markets[11]!, totalBetSize: 50n * USDC, percentageOdds: 50n * E18, isMakerBettingOutcomeOne: true });
    expect((await ex.post('/orders/new', { orders: [order.body] })).status).toBe(200);
    // The fill's transaction is sent, then lost (a node restarted without its pool), before any block is mined.
    await node.testClient.setAutomine(false);
    try {
      const fill = await signedFill(taker, view.signing, { market: markets[11]!, isTakerBettingOutcomeOne: false, stakeWei: 10n * USDC, desiredOdds: 50n * E18 });
      expect((await ex.post('/orders/fill/v2', fill)).body.status).toBe('success');
      const pool = await waitFor(() => node.testClient.getTxpoolContent(), (p) => Object.keys(p.pending).length > 0);
      for (const byNonce of Object.values(pool.pending)) for (const tx of Object.values(byNonce)) await node.testClient.dropTransaction({ hash: tx.hash });
    } finally {
      await node.testClient.setAutomine(true);
    }
    // Within the 15 s wait, not the 120 s default: the transaction is sent again once its receipt is overdue.
    const done = await settledTrades(order.hash);
    expect(done.map((t) => t.tradeStatus)).toEqual(['SUCCESS', 'SUCCESS']);
    expect([await balanceOf(maker.address), await balanceOf(taker.address)]).toEqual([90n * USDC, 90n * USDC]);
  });

  // Last: it stops the node.
  it('keeps a fill PENDING while the node is down, keeps answering, and refuses fills past the configured backlog', async () => {
    const maker = await wallet(100n * USDC);
    const taker = await wallet(100n * USDC);
    await ex.close();
    ex = await startTestExchange({ ...overrides, chainSubmit: { timeoutMs: 300, minBackoffMs: 50, maxBackoffMs: 200, maxBacklog: 1 } }, { dataDir });
    const order = await signedOrder(maker, view.signing, { marketHash: markets[3]!, totalBetSize: 50n * USDC, percentageOdds: 50n * E18, isMakerBettingOutcomeOne: true });
    expect((await ex.post('/orders/new', { orders: [order.body] })).status).toBe(200);
    await node.stop();
    const first = await ex.post('/orders/fill/v2', await signedFill(taker, view.signing, { market: markets[3]!, isTakerBettingOutcomeOne: false, stakeWei: 10n * USDC, desiredOdds: 50n * E18 }));
    expect(first.status).toBe(200);
    const metrics = await waitFor(async () => (await ex.get('/metrics')).body as string, (m) => /^oddex_chain_submit_failures_total [1-9]/m.test(m));
    expect(metrics).toMatch(/^oddex_chain_submit_backlog 1$/m);
    expect((await trades(order.hash)).map((t) => t.tradeStatus)).toEqual(['PENDING', 'PENDING']);
    expect((await ex.get('/health/ready')).status).toBe(200);
    expect(await balance(taker)).toMatchObject({ balance: '100000000', pendingTakerStake: '10000000' });
    const second = await ex.post('/orders/fill/v2', await signedFill(taker, view.signing, { market: markets[3]!, isTakerBettingOutcomeOne: false, stakeWei: 10n * USDC, desiredOdds: 50n * E18 }));
    expect([second.status, second.body.errorCode]).toEqual([503, 'CHAIN_BACKLOG']);
  });

  it('answers the faucet 503 CHAIN_UNAVAILABLE, naming why, while the node is down (it answered 500 INTERNAL_ERROR)', async () => {
    await node.stop();
    const res = await ex.admin('POST', '/admin/faucet', { address: newWallet().address, amount: USDC.toString() });
    expect([res.status, res.body.errorCode]).toEqual([503, 'CHAIN_UNAVAILABLE']);
    expect(res.body.message).toMatch(/^the settlement chain did not confirm the mint: HTTP request failed/);
  });
});
