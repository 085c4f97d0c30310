// Fees and cash outs with ODDEX_CHAIN=evm on anvil, end to end: the contracts deployed with fees (2% of net winnings
// on singles, 3% of a cash out's value, a quarter of each fee to the affiliate), the real server following the
// chain. A client reads every address from /metadata and signs with viem; every figure is checked on chain against
// what the exchange's ledger reports (/balances, trades), to the wei: the commission at settlement, a cash out of a
// winning position, a partial cash out of a losing one with no refund after it, a cash out refused after a refund,
// and a parlay at the parlays' rate.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEventLogs, type Address, type PrivateKeyAccount, type PublicClient } from 'viem';
import { defaultConfig } from '../src/config.js';
import { oddexSettlementAbi, oddexTokenAbi } from '../src/chain/evm/contracts.js';
import { checkFunds } from '../src/chain/evm/funds.js';
import type { Deployment } from '../src/chain/evm/deploy.js';
import { affiliatePart, cashOutFee, commission } from '../src/engine/fees.js';
import { startTestExchange, type TestExchange } from './helpers/server.js';
import { waitFor as waitWithin } from './helpers/bets.js';
import { clientViewOf, startExchangeNode, type ClientView, type Node } from './helpers/evm.js';
import { E18, USDC, newWallet, signedFill, signedOrder } from './helpers/wallets.js';
import { parlaySigning, signedParlayRequest } from './helpers/parlays.js';

const waitFor = <T>(probe: () => Promise<T>, done: (v: T) => boolean) => waitWithin(probe, done, 15_000);

const FEE_ACCOUNT = newWallet().address;
const AFFILIATE = newWallet().address;
const FEES = { singlesBps: 200, parlaysBps: 500, cashoutBps: 300, affiliateShareBps: 2500, account: FEE_ACCOUNT, affiliate: AFFILIATE };
const affiliateFee = (fee: bigint) => affiliatePart(fee, AFFILIATE, FEES.affiliateShareBps);
/** What each position below stakes in all: the taker 30.000006, the maker 20.000004. */
const POT = 50n * USDC + 10n;

describe('fees and cash outs with ODDEX_CHAIN=evm on anvil', () => {
  let node: Node;
  let ex: TestExchange;
  let view: ClientView;
  let markets: string[];
  let deploymentFile: string;
  let overrides: Parameters<typeof startTestExchange>[0];

  beforeAll(async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'oddex-evm-fees-'));
    deploymentFile = join(dataDir, 'evm-deployment.json');
    node = await startExchangeNode(deploymentFile, FEES);
    overrides = {
      demo: true,
      chain: 'evm',
      evm: { ...defaultConfig().evm, deploymentFile, batchWaitMs: 200, pollMs: 50 },
      bettingDelay: { preGameMs: 0, inPlayMs: 0, inPlayBySportMs: {}, inPlayByLeagueMs: {} },
      rateLimits: { ...defaultConfig().rateLimits, enabled: false },
      parlays: { ...defaultConfig().parlays, quoteWindowMs: 300 },
    };
    ex = await startTestExchange(overrides, { dataDir });
    view = clientViewOf((await ex.get('/metadata')).body.data);
    const active = (await ex.get('/markets/active?pageSize=100&type=52')).body.data.markets;
    markets = active.filter((m: { liveEnabled: boolean }) => !m.liveEnabled).map((m: { marketHash: string }) => m.marketHash);
  }, 60_000);
  afterAll(async () => {
    await ex?.destroy();
    await node?.stop();
  });

  const balance = async (address: Address) => (await ex.get(`/balances/${address}`)).body.data as Record<string, string>;
  const onChain = (address: Address) => node.pub.readContract({ address: view.token, abi: oddexTokenAbi, functionName: 'balanceOf', args: [address] });
  const held = (market: string) => node.pub.readContract({ address: view.settlement, abi: oddexSettlementAbi, functionName: 'held', args: [market as `0x${string}`] });
  async function wallet(amount: bigint) {
    const w = newWallet();
    await node.testClient.setBalance({ address: w.address, value: 10n ** 20n });
    const approve = await node.walletOf(w).writeContract({ chain: node.chain, account: w, address: view.token, abi: oddexTokenAbi, functionName: 'approve', args: [view.proxy, amount] });
    await node.pub.waitForTransactionReceipt({ hash: approve });
    expect((await ex.admin('POST', '/admin/faucet', { address: w.address, amount: amount.toString() })).status).toBe(200);
    await waitFor(() => balance(w.address), (b) => b.balance === amount.toString());
    return w;
  }
  const trades = async (orderHash: string) => (await ex.get(`/trades/orders?orderHashes=${orderHash}`)).body.data.trades as Record<string, unknown>[];
  const confirmed = (orderHash: string, count: number) => waitFor(() => trades(orderHash), (t) => t.length === count && t.every((x) => x.tradeStatus === 'SUCCESS'));
  const paid = (orderHash: string, count: number) => waitFor(() => trades(orderHash), (t) => t.length === count && t.every((x) => x.settled === true && typeof x.settleTxHash === 'string'));
  /** Once the exchange shows `expected` for an address (it follows the chain), the chain holds exactly that too. */
  async function sameOnChain(address: Address, expected: bigint) {
    expect((await waitFor(() => balance(address), (b) => b.balance === expected.toString())).balance).toBe(expected.toString());
    expect(await onChain(address)).toBe(expected);
  }
  /** `maker` backs outcome one with 20.000004 against `taker`'s 30.000006 on outcome two (maker odds 40%): all its order. */
  async function position(market: string, maker: PrivateKeyAccount, taker: PrivateKeyAccount) {
    const order = await signedOrder(maker, view.signing, { marketHash: market, totalBetSize: 20n * USDC + 4n, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: true });
    expect((await ex.post('/orders/new', { orders: [order.body] })).body.data.statuses).toEqual({ [order.hash]: 'OK' });
    const fill = await signedFill(taker, view.signing, { market, isTakerBettingOutcomeOne: false, stakeWei: 30n * USDC + 6n, desiredOdds: 60n * E18 });
    expect((await ex.post('/orders/fill/v2', fill)).status).toBe(200);
    await confirmed(order.hash, 2);
    return order.hash;
  }

  it('deploys the contract with the configured fees, and the server charges the same', async () => {
    const meta = (await ex.get('/metadata')).body.data;
    expect(meta.feeAccount).toBe(FEE_ACCOUNT);
    expect(meta.exchangeAffiliate.address).toBe(AFFILIATE);
    expect(await node.pub.readContract({ address: view.settlement, abi: oddexSettlementAbi, functionName: 'fees' })).toEqual([200, 500, 300, 2500, FEE_ACCOUNT, AFFILIATE]);
  });

  it('refuses to start when a configured fee contradicts the deployment\'s', async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'oddex-evm-fees-'));
    try {
      await expect(startTestExchange({ ...overrides, fees: { ...defaultConfig().fees, singlesBps: 100 } }, { dataDir: elsewhere })).rejects.toThrow(
        `ODDEX_FEE_SINGLES_BPS is 100 but the deployment in ${deploymentFile} has 200`,
      );
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('refuses a deployment file without fees: its contract is from before fees and cash outs', async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'oddex-evm-fees-'));
    try {
      const old = join(elsewhere, 'evm-deployment.json');
      const { fees: _fees, ...withoutFees } = JSON.parse(readFileSync(deploymentFile, 'utf8')) as Deployment;
      writeFileSync(old, JSON.stringify(withoutFees));
      await expect(startTestExchange({ ...overrides, evm: { ...overrides!.evm!, deploymentFile: old } }, { dataDir: elsewhere })).rejects.toThrow(
        `${old}: fees are missing (a settlement contract from before fees and cash outs); deploy again with \`npm run chain\``,
      );
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('takes the commission on the winner\'s net winnings at settlement: the fee account is paid on chain what the ledger charges', async () => {
    const maker = await wallet(100n * USDC);
    const taker = await wallet(100n * USDC);
    const market = markets[0]!;
    const orderHash = await position(market, maker, taker);
    const [feeBefore, affBefore] = [await onChain(FEE_ACCOUNT), await onChain(AFFILIATE)];
    expect((await ex.admin('POST', `/admin/markets/${market}/report`, { outcome: 2 })).status).toBe(200);
    const settled = await paid(orderHash, 2);
    // The pot is 50.00001; the taker's profit 20.000004 pays 2%, rounded down (400 000.08); the maker's loss none.
    const fee = commission(POT, 30n * USDC + 6n, FEES.singlesBps);
    expect(fee).toBe(400_000n);
    expect(settled.map((t) => [t.bettor, t.fee])).toEqual(
      expect.arrayContaining([
        [maker.address, '0'],
        [taker.address, fee.toString()],
      ]),
    );
    const claims = await node.pub.getTransactionReceipt({ hash: settled[0]!.settleTxHash as `0x${string}` });
    const charged = parseEventLogs({ abi: oddexSettlementAbi, logs: claims.logs, eventName: 'FeeCharged' });
    expect(charged.map((l) => [l.args.bettor, l.args.fee, l.args.affiliateFee])).toEqual([[taker.address, fee, affiliateFee(fee)]]);
    await sameOnChain(taker.address, 70n * USDC - 6n + POT - fee);
    await sameOnChain(maker.address, 80n * USDC - 4n);
    await sameOnChain(FEE_ACCOUNT, feeBefore + fee - affiliateFee(fee));
    await sameOnChain(AFFILIATE, affBefore + affiliateFee(fee));
    expect(await held(market)).toBe(0n);
  });

  it('cashes out a winning position on chain: pays the bettor at once what the quote said, the fee account its fee, the rest at settlement', async () => {
    const maker = await wallet(100n * USDC);
    const taker = await wallet(100n * USDC);
    const hedger = await wallet(100n * USDC);
    const market = markets[1]!;
    const orderHash = await position(market, maker, taker);
    // Outcome two (the taker's) is now the favourite: a maker backs it at 80%, so outcome one is cheap to back.
    const hedgeOrder = await signedOrder(hedger, view.signing, { marketHash: market, totalBetSize: 80n * USDC, percentageOdds: 80n * E18, isMakerBettingOutcomeOne: false });
    expect((await ex.post('/orders/new', { orders: [hedgeOrder.body] })).body.data.statuses).toEqual({ [hedgeOrder.hash]: 'OK' });
    const quote = (await ex.get(`/cashout/quote?bettor=${taker.address}&marketHash=${market}`)).body.data;
    // The position pays 50.00001 on outcome two: 10.000002 on outcome one at 20% returns it.
    const hedgeStake = 10n * USDC + 2n;
    const returned = hedgeStake + (hedgeStake * 80n) / 20n;
    expect(returned).toBe(POT);
    // Then every result owes it 40.000008 at least (the stakes, on a void), 50.00001 on a win; its value is 50.00001
    // less the hedge stake, and the fee 3% of it (1 200 000.24, rounded down).
    const amount = 30n * USDC + 6n + hedgeStake;
    const value = returned - hedgeStake;
    const fee = cashOutFee(value, amount, FEES.cashoutBps);
    expect(fee).toBe(1_200_000n);
    expect(quote).toMatchObject({ isTakerBettingOutcomeOne: true, stakeWei: hedgeStake.toString(), desiredOdds: (20n * E18).toString(), fee: fee.toString(), amount: (value - fee).toString(), paidNow: (amount - fee).toString() });

    const [takerBefore, feeBefore, affBefore] = [await onChain(taker.address), await onChain(FEE_ACCOUNT), await onChain(AFFILIATE)];
    const fill = await signedFill(taker, view.signing, { market, isTakerBettingOutcomeOne: true, stakeWei: BigInt(quote.stakeWei), desiredOdds: BigInt(quote.desiredOdds), cashOutTarget: market });
    const filled = await ex.post('/orders/fill/v2', fill);
    expect(filled.status).toBe(200);
    const [hedgeTrade] = await confirmed(hedgeOrder.hash, 2).then((t) => t.filter((x) => x.bettor === taker.address));
    expect(hedgeTrade).toMatchObject({ cashOutAmount: amount.toString(), cashOutFee: fee.toString() });
    const receipt = await node.pub.getTransactionReceipt({ hash: hedgeTrade!.fillOrderHash as `0x${string}` });
    const cashedOut = parseEventLogs({ abi: oddexSettlementAbi, logs: receipt.logs, eventName: 'CashedOut' });
    expect(cashedOut.map((l) => [l.args.fillHash, l.args.bettor, l.args.amount, l.args.fee])).toEqual([[filled.body.data.fillHash, taker.address, amount, fee]]);
    await sameOnChain(taker.address, takerBefore - hedgeStake + amount - fee);
    await sameOnChain(FEE_ACCOUNT, feeBefore + fee - affiliateFee(fee));
    await sameOnChain(AFFILIATE, affBefore + affiliateFee(fee));
    // No capital-efficiency refund after it, and none owed: the escrow holds what the results still owe.
    expect(await node.pub.readContract({ address: view.settlement, abi: oddexSettlementAbi, functionName: 'refundable', args: [market as `0x${string}`, taker.address] })).toBe(0n);

    // Outcome two wins: the position pays 50.00001, of which 40.000008 was paid; its profit over its stakes pays 2%.
    expect((await ex.admin('POST', `/admin/markets/${market}/report`, { outcome: 2 })).status).toBe(200);
    await paid(orderHash, 2);
    await paid(hedgeOrder.hash, 2);
    const takerFee = commission(POT, amount, FEES.singlesBps);
    // The hedger backed outcome two with 40.000008 against 10.000002 and won 50.000010.
    const hedgerFee = commission(returned, returned - hedgeStake, FEES.singlesBps);
    await sameOnChain(taker.address, takerBefore - hedgeStake + amount - fee + (POT - amount) - takerFee);
    await sameOnChain(hedger.address, 100n * USDC + hedgeStake - hedgerFee);
    const commissions = takerFee + hedgerFee;
    await sameOnChain(FEE_ACCOUNT, feeBefore + fee - affiliateFee(fee) + commissions - affiliateFee(takerFee) - affiliateFee(hedgerFee));
    await sameOnChain(AFFILIATE, affBefore + affiliateFee(fee) + affiliateFee(takerFee) + affiliateFee(hedgerFee));
    expect(await held(market)).toBe(0n);
  });

  it('cashes out part of a losing position on chain; no refund follows it, and settlement pays the rest, to the wei', async () => {
    const maker = await wallet(100n * USDC);
    const taker = await wallet(100n * USDC);
    const hedger = await wallet(100n * USDC);
    const market = markets[2]!;
    const orderHash = await position(market, maker, taker);
    // Outcome two (the taker's) is now unlikely: a maker backs it at 30%, so backing outcome one costs 70%.
    const hedgeOrder = await signedOrder(hedger, view.signing, { marketHash: market, totalBetSize: 80n * USDC, percentageOdds: 30n * E18, isMakerBettingOutcomeOne: false });
    expect((await ex.post('/orders/new', { orders: [hedgeOrder.body] })).body.data.statuses).toEqual({ [hedgeOrder.hash]: 'OK' });
    const [takerBefore, feeBefore, affBefore] = [await onChain(taker.address), await onChain(FEE_ACCOUNT), await onChain(AFFILIATE)];
    // 14 at 70% returns 20: owed 20 on one, 50.00001 on two, 44.000006 on a void: 20 at once, worth 20 - 14, 3% of it the fee.
    const fill = await signedFill(taker, view.signing, { market, isTakerBettingOutcomeOne: true, stakeWei: 14n * USDC, desiredOdds: 70n * E18, cashOutTarget: market });
    expect((await ex.post('/orders/fill/v2', fill)).status).toBe(200);
    const fee = cashOutFee(6n * USDC, 20n * USDC, FEES.cashoutBps);
    expect(fee).toBe(180_000n);
    await confirmed(hedgeOrder.hash, 2);
    await sameOnChain(taker.address, takerBefore - 14n * USDC + 20n * USDC - fee);
    // An ordinary hedge of 7 more (returning 10) after it: the position needs less escrow, but no refund is generated.
    const ordinary = await signedFill(taker, view.signing, { market, isTakerBettingOutcomeOne: true, stakeWei: 7n * USDC, desiredOdds: 70n * E18 });
    expect((await ex.post('/orders/fill/v2', ordinary)).status).toBe(200);
    await confirmed(hedgeOrder.hash, 4);
    expect((await ex.get(`/trades/portfolio/refunds?bettor=${taker.address}&sortAsc=true&page=0&perPage=10`)).body.data.results).toEqual([]);
    await sameOnChain(taker.address, takerBefore - 21n * USDC + 20n * USDC - fee);
    expect(await node.pub.readContract({ address: view.settlement, abi: oddexSettlementAbi, functionName: 'refundable', args: [market as `0x${string}`, taker.address] })).toBe(0n);

    // Outcome one wins: the taker's hedge pays 30, 20 of it paid already; no profit on 51.000006 staked. The maker
    // wins the pot of 50.00001 on 20.000004 (2% of 30.000006); the hedger loses its 9.
    expect((await ex.admin('POST', `/admin/markets/${market}/report`, { outcome: 1 })).status).toBe(200);
    await paid(orderHash, 2);
    await paid(hedgeOrder.hash, 4);
    const makerFee = commission(POT, 20n * USDC + 4n, FEES.singlesBps);
    await sameOnChain(taker.address, takerBefore - 21n * USDC + 20n * USDC - fee + 10n * USDC);
    await sameOnChain(maker.address, 100n * USDC - (20n * USDC + 4n) + POT - makerFee);
    await sameOnChain(hedger.address, 100n * USDC - 9n * USDC);
    await sameOnChain(FEE_ACCOUNT, feeBefore + fee - affiliateFee(fee) + makerFee - affiliateFee(makerFee));
    await sameOnChain(AFFILIATE, affBefore + affiliateFee(fee) + affiliateFee(makerFee));
    expect(await held(market)).toBe(0n);
  });

  it('refuses a cash out once a capital-efficiency refund was paid on chain (409 CASHOUT_AFTER_REFUND)', async () => {
    const maker = await wallet(100n * USDC);
    const taker = await wallet(100n * USDC);
    const hedger = await wallet(100n * USDC);
    const market = markets[3]!;
    await position(market, maker, taker);
    const hedgeOrder = await signedOrder(hedger, view.signing, { marketHash: market, totalBetSize: 80n * USDC, percentageOdds: 30n * E18, isMakerBettingOutcomeOne: false });
    await ex.post('/orders/new', { orders: [hedgeOrder.body] });
    // An ordinary hedge of 14 (returning 20): the escrow no result needs (20) is refunded on chain.
    const ordinary = await signedFill(taker, view.signing, { market, isTakerBettingOutcomeOne: true, stakeWei: 14n * USDC, desiredOdds: 70n * E18 });
    expect((await ex.post('/orders/fill/v2', ordinary)).status).toBe(200);
    await sameOnChain(taker.address, 100n * USDC - (30n * USDC + 6n) - 14n * USDC + 20n * USDC);
    const quote = await ex.get(`/cashout/quote?bettor=${taker.address}&marketHash=${market}`);
    expect([quote.status, quote.body.errorCode]).toEqual([409, 'CASHOUT_AFTER_REFUND']);
    const cashOut = await signedFill(taker, view.signing, { market, isTakerBettingOutcomeOne: true, stakeWei: 7n * USDC, desiredOdds: 70n * E18, cashOutTarget: market });
    const refused = await ex.post('/orders/fill/v2', cashOut);
    expect([refused.status, refused.body.errorCode]).toEqual([409, 'CASHOUT_AFTER_REFUND']);
  });

  it('charges a parlay the parlays\' rate on chain: 5% of the bettor\'s winnings when every leg wins as picked', async () => {
    // Leg one a moneyline, leg two the main total of another fixture.
    const one = markets[4]!;
    const otherEvent = (await ex.get(`/markets/find?marketHashes=${markets[5]!}`)).body.data[0].exchangeEventId as string;
    const two = ((await ex.get(`/markets/active?eventId=${otherEvent}&type=2&onlyMainLine=true`)).body.data.markets as { marketHash: string }[])[0]!.marketHash;
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
    const fill = await signedFill(bettor, view.signing, { market: parlay, isTakerBettingOutcomeOne: true, stakeWei: 20n * USDC + 3n, desiredOdds: 20n * E18 });
    expect((await ex.post('/orders/fill/v2', fill)).status).toBe(200);
    await confirmed(order.hash, 2);
    const [feeBefore, affBefore] = [await onChain(FEE_ACCOUNT), await onChain(AFFILIATE)];
    expect((await ex.admin('POST', `/admin/markets/${one}/report`, { outcome: 1 })).status).toBe(200);
    expect((await ex.admin('POST', `/admin/markets/${two}/report`, { outcome: 2 })).status).toBe(200);
    const settled = await paid(order.hash, 2);
    // 20.000003 at 20% against the maker's 80.000012: the pot 100.000015, the profit 80.000012 pays 5% (4 000 000.6).
    const fee = commission(100n * USDC + 15n, 20n * USDC + 3n, FEES.parlaysBps);
    expect(fee).toBe(4_000_000n);
    expect(settled.find((t) => t.bettor === bettor.address)?.fee).toBe(fee.toString());
    await sameOnChain(bettor.address, 100n * USDC - (20n * USDC + 3n) + 100n * USDC + 15n - fee);
    await sameOnChain(maker.address, 100n * USDC - (80n * USDC + 12n));
    await sameOnChain(FEE_ACCOUNT, feeBefore + fee - affiliateFee(fee));
    await sameOnChain(AFFILIATE, affBefore + affiliateFee(fee));
    expect(await held(parlay)).toBe(0n);
  });

  it('accounts for every minted wei in wallets (the fee account and the affiliate among them) and escrow', async () => {
    const report = await checkFunds(node.pub as PublicClient, JSON.parse(readFileSync(deploymentFile, 'utf8')) as Deployment);
    expect(report.agrees).toBe(true);
    expect(await onChain(FEE_ACCOUNT)).toBeGreaterThan(0n);
    expect(await onChain(AFFILIATE)).toBeGreaterThan(0n);
  });
});
