// The settlement contract called directly on anvil: a good fill moves both stakes into escrow to the wei;
// forged, replayed, over-size, expired and cancelled inputs revert with their reason; outcomes, claims and
// refunds never pay out more than a market holds. With fees set, claims take the commission on net winnings and
// cash-out fills pay the hedged position at once less the cash-out fee, both as the ledger computes them
// (src/engine/fees.ts); forged, replayed, over-size, mistargeted and post-refund cash outs revert.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BaseError, ContractFunctionRevertedError, decodeErrorResult, parseEventLogs, type Address, type Hex, type PrivateKeyAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { randomBytes } from 'node:crypto';
import { fillDigest } from '../../src/protocol/eip712.js';
import { affiliatePart, cashOutFee, commission } from '../../src/engine/fees.js';
import { oddexTokenAbi, settlementCallAbi } from '../../src/chain/evm/contracts.js';
import { FILL_DOMAIN, oddexSettlementAbi, signFill, signOrder, startTestChain, type TestChain } from '../helpers/evm.js';

const USDC = 1_000_000n;
const E18 = 10n ** 18n;
const randomBytes32 = () => ('0x' + randomBytes(32).toString('hex')) as Hex;
const randomSalt = () => BigInt(randomBytes32());

/** The custom error a call reverted with, by name and arguments. */
async function revertOf(call: Promise<unknown>): Promise<{ errorName: string; args: readonly unknown[] }> {
  try {
    await call;
  } catch (err) {
    const reverted = err instanceof BaseError ? err.walk((e) => e instanceof ContractFunctionRevertedError) : undefined;
    if (reverted instanceof ContractFunctionRevertedError && reverted.data) {
      return { errorName: reverted.data.errorName, args: reverted.data.args ?? [] };
    }
    throw err;
  }
  throw new Error('the call did not revert');
}

describe('settlement contract on anvil', () => {
  let c: TestChain;
  let maker: PrivateKeyAccount;
  let taker: PrivateKeyAccount;
  let now: bigint;

  beforeAll(async () => {
    c = await startTestChain();
    maker = await c.fundedWallet(1000n * USDC);
    taker = await c.fundedWallet(1000n * USDC);
    now = (await c.pub.getBlock()).timestamp;
  }, 60_000);
  afterAll(async () => c?.stop());

  async function order(over: Partial<{ totalBetSize: bigint; percentageOdds: bigint; expiry: bigint; isMakerBettingOutcomeOne: boolean; marketHash: Hex; signer: PrivateKeyAccount; who: PrivateKeyAccount }> = {}) {
    const who = over.who ?? maker;
    const fields = {
      marketHash: over.marketHash ?? randomBytes32(),
      baseToken: c.deployment.token,
      totalBetSize: over.totalBetSize ?? 100n * USDC,
      percentageOdds: over.percentageOdds ?? 40n * E18,
      expiry: over.expiry ?? now + 3600n,
      salt: randomSalt(),
      maker: who.address,
      executor: c.deployment.executor,
      isMakerBettingOutcomeOne: over.isMakerBettingOutcomeOne ?? true,
    };
    const signed = await signOrder(over.signer ?? who, fields);
    return { fields, ...signed };
  }
  type SignedOrder = Awaited<ReturnType<typeof order>>;
  async function fill(
    orders: { o: SignedOrder; takerStake: bigint }[],
    over: Partial<{ stakeWei: bigint; fillSalt: bigint; signer: PrivateKeyAccount; who: PrivateKeyAccount; market: string; legs: readonly [Hex, Hex]; cashOutTarget: Hex; signedTarget: Hex; desiredOdds: bigint; oddsSlippage: bigint }> = {},
  ) {
    const who = over.who ?? taker;
    const zero = ('0x' + '0'.repeat(64)) as Hex;
    const signed = {
      market: over.market ?? orders[0]!.o.fields.marketHash,
      baseToken: c.deployment.token as string,
      stakeWei: over.stakeWei ?? orders.reduce((s, x) => s + x.takerStake, 0n),
      // The taker odds of the first order, the worst it takes.
      desiredOdds: over.desiredOdds ?? 100n * E18 - orders[0]!.o.fields.percentageOdds,
      oddsSlippage: over.oddsSlippage ?? 0n,
      isTakerBettingOutcomeOne: !orders[0]!.o.fields.isMakerBettingOutcomeOne,
      fillSalt: over.fillSalt ?? randomSalt(),
    };
    const cashOutTarget = over.cashOutTarget ?? zero;
    // `signedTarget` forges: the taker signed another target than the one presented.
    const takerSig = await signFill(over.signer ?? who, c.deployment, { ...signed, cashOutTarget: over.signedTarget ?? cashOutTarget });
    return {
      taker: who.address,
      ...signed,
      cashOutTarget,
      takerSig,
      legs: over.legs ?? ([zero, zero] as const),
      matches: orders.map(({ o, takerStake }) => ({ order: o.fields, makerSig: o.signature, takerStake })),
    };
  }
  type FillArg = Awaited<ReturnType<typeof fill>>;
  const settle = async (f: FillArg) => {
    const hash = await c.executor.writeContract({ chain: c.executor.chain, account: c.executor.account!, address: c.deployment.settlement, abi: oddexSettlementAbi, functionName: 'settleFill', args: [f] });
    return c.pub.waitForTransactionReceipt({ hash });
  };
  const simulate = (f: FillArg, account = c.executor.account!) =>
    c.pub.simulateContract({ account, address: c.deployment.settlement, abi: settlementCallAbi, functionName: 'settleFill', args: [f] });
  const held = (market: Hex) => c.pub.readContract({ address: c.deployment.settlement, abi: oddexSettlementAbi, functionName: 'held', args: [market] });
  const report = async (market: Hex, outcome: number) => {
    const hash = await c.operator.writeContract({ chain: c.operator.chain, account: c.operator.account!, address: c.deployment.settlement, abi: oddexSettlementAbi, functionName: 'reportOutcome', args: [market, outcome] });
    return c.pub.waitForTransactionReceipt({ hash });
  };
  const refund = async (market: Hex, bettor: Address, amount: bigint, key = randomBytes32()) => {
    const hash = await c.executor.writeContract({ chain: c.executor.chain, account: c.executor.account!, address: c.deployment.settlement, abi: oddexSettlementAbi, functionName: 'refund', args: [market, bettor, amount, key] });
    return c.pub.waitForTransactionReceipt({ hash });
  };
  const claim = async (market: Hex, bettor: Address) => {
    const hash = await c.operator.writeContract({ chain: c.operator.chain, account: c.operator.account!, address: c.deployment.settlement, abi: oddexSettlementAbi, functionName: 'claim', args: [market, bettor] });
    return c.pub.waitForTransactionReceipt({ hash });
  };

  it('computes the order hash and the fill hash exactly as viem and the API do', async () => {
    const o = await order();
    const f = await fill([{ o, takerStake: 30n * USDC }]);
    const domain = { ...FILL_DOMAIN, chainId: c.deployment.chainId, verifyingContract: c.deployment.settlement };
    const onChain = await c.pub.readContract({ address: c.deployment.settlement, abi: oddexSettlementAbi, functionName: 'fillHash', args: [f] });
    const byApi = fillDigest(domain, { market: f.market, baseToken: f.baseToken, stakeWei: f.stakeWei, desiredOdds: f.desiredOdds, oddsSlippage: Number(f.oddsSlippage), isTakerBettingOutcomeOne: f.isTakerBettingOutcomeOne, fillSalt: f.fillSalt });
    expect(onChain).toBe(byApi);
    expect(await c.pub.readContract({ address: c.deployment.settlement, abi: oddexSettlementAbi, functionName: 'orderHash', args: [o.fields] })).toBe(o.hash);
  });

  it('moves both stakes from the wallets into escrow in one transaction, to the wei', async () => {
    const o = await order();
    const f = await fill([{ o, takerStake: 30n * USDC }]);
    const [makerBefore, takerBefore, escrowBefore] = await Promise.all([c.balanceOf(maker.address), c.balanceOf(taker.address), c.balanceOf(c.deployment.settlement)]);
    const receipt = await settle(f);
    expect(receipt.status).toBe('success');
    // Taker stake 30 at maker odds 40%: maker stake 30 * 40 / 60 = 20.
    expect(await c.balanceOf(maker.address)).toBe(makerBefore - 20n * USDC);
    expect(await c.balanceOf(taker.address)).toBe(takerBefore - 30n * USDC);
    expect(await c.balanceOf(c.deployment.settlement)).toBe(escrowBefore + 50n * USDC);
    expect(await held(o.fields.marketHash)).toBe(50n * USDC);
    expect(await c.pub.readContract({ address: c.deployment.settlement, abi: oddexSettlementAbi, functionName: 'filled', args: [o.hash] })).toBe(20n * USDC);
    const [settled] = parseEventLogs({ abi: oddexSettlementAbi, logs: receipt.logs, eventName: 'FillSettled' });
    expect(settled!.args).toEqual({ fillHash: expect.any(String), taker: taker.address, marketHash: o.fields.marketHash, takerStake: 30n * USDC, makerStake: 20n * USDC });
  });

  it('accepts the market string in any hex case, as the API does', async () => {
    const o = await order();
    const f = await fill([{ o, takerStake: 3n * USDC }], { market: '0x' + o.fields.marketHash.slice(2).toUpperCase() });
    expect((await settle(f)).status).toBe('success');
    const other = await fill([{ o, takerStake: 3n * USDC }], { market: randomBytes32() });
    expect((await revertOf(simulate(other))).errorName).toBe('MarketMismatch');
  });

  it('refuses a forged taker or maker signature, a replayed fill and a reused salt', async () => {
    const o = await order();
    const stranger = privateKeyToAccount(generatePrivateKey());
    const forgedTaker = await fill([{ o, takerStake: 3n * USDC }], { signer: stranger });
    expect((await revertOf(simulate(forgedTaker))).errorName).toBe('BadTakerSignature');
    const forgedMaker = await order({ signer: stranger });
    expect(await revertOf(simulate(await fill([{ o: forgedMaker, takerStake: 3n * USDC }])))).toEqual({ errorName: 'BadMakerSignature', args: [forgedMaker.hash] });

    const good = await fill([{ o, takerStake: 3n * USDC }]);
    await settle(good);
    expect((await revertOf(simulate(good))).errorName).toBe('FillAlreadySettled');
    const sameSalt = await fill([{ o, takerStake: 4n * USDC }], { fillSalt: good.fillSalt });
    expect(await revertOf(simulate(sameSalt))).toEqual({ errorName: 'FillSaltUsed', args: [good.fillSalt] });
  });

  it('refuses more than the order has left, more than the taker signed, and a caller that is not the executor', async () => {
    const o = await order({ totalBetSize: 20n * USDC });
    // 31 taker at 40% needs 20.666666 maker: over the 20 the order holds.
    expect(await revertOf(simulate(await fill([{ o, takerStake: 31n * USDC }])))).toEqual({ errorName: 'OrderOverfilled', args: [o.hash, 20_666_666n, 20n * USDC] });
    await settle(await fill([{ o, takerStake: 15n * USDC }]));
    expect((await revertOf(simulate(await fill([{ o, takerStake: 16n * USDC }])))).errorName).toBe('OrderOverfilled');
    expect(await revertOf(simulate(await fill([{ o, takerStake: 5n * USDC }], { stakeWei: 4n * USDC })))).toEqual({ errorName: 'StakeAboveSigned', args: [5n * USDC, 4n * USDC] });
    expect((await revertOf(simulate(await fill([{ o, takerStake: 1n * USDC }]), taker))).errorName).toBe('NotExecutor');
  });

  it('bounds the stake-weighted average taker odds by the slippage, not each match', async () => {
    const marketHash = randomBytes32();
    const better = await order({ marketHash, percentageOdds: 40n * E18, totalBetSize: 12n * USDC });
    const worse = await order({ marketHash, percentageOdds: 45n * E18, totalBetSize: 20n * USDC });
    // Bound 60% less 3% = 58.2%: 18 USDC at taker odds 60% carry 10.125 USDC at 55% (average 58.2% exactly), not a wei more.
    const bound = { desiredOdds: 60n * E18, oddsSlippage: 3n };
    const exact = await fill([{ o: better, takerStake: 18n * USDC }, { o: worse, takerStake: 10_125_000n }], bound);
    await simulate(exact);
    const over = await fill([{ o: better, takerStake: 18n * USDC }, { o: worse, takerStake: 10_125_001n }], bound);
    const average = (18n * USDC * 60n * E18 + 10_125_001n * 55n * E18) / (28_125_001n);
    expect(await revertOf(simulate(over))).toEqual({ errorName: 'AverageOddsBelowSlippage', args: [average, 582n * 10n ** 17n] });
    expect((await settle(exact)).status).toBe('success');
  });

  it('refuses an expired order and an order its maker cancelled on chain', async () => {
    const expired = await order({ expiry: now - 1n });
    expect(await revertOf(simulate(await fill([{ o: expired, takerStake: 3n * USDC }])))).toEqual({ errorName: 'OrderExpired', args: [expired.hash] });

    const o = await order();
    expect((await revertOf(c.pub.simulateContract({ account: taker, address: c.deployment.settlement, abi: oddexSettlementAbi, functionName: 'cancelOrder', args: [o.fields] }))).errorName).toBe('NotMaker');
    const cancel = await c.walletOf(maker).writeContract({ chain: c.executor.chain, account: maker, address: c.deployment.settlement, abi: oddexSettlementAbi, functionName: 'cancelOrder', args: [o.fields] });
    await c.pub.waitForTransactionReceipt({ hash: cancel });
    expect(await revertOf(simulate(await fill([{ o, takerStake: 3n * USDC }])))).toEqual({ errorName: 'OrderIsCancelled', args: [o.hash] });
  });

  it('reverts with the token error when a maker moved their funds away', async () => {
    const poor = await c.fundedWallet(10n * USDC);
    const o = await order({ who: poor, totalBetSize: 10n * USDC });
    const moved = await c.walletOf(poor).writeContract({ chain: c.executor.chain, account: poor, address: c.deployment.token, abi: oddexTokenAbi, functionName: 'transfer', args: [taker.address, 9n * USDC] });
    await c.pub.waitForTransactionReceipt({ hash: moved });
    expect(await revertOf(simulate(await fill([{ o, takerStake: 6n * USDC }])))).toEqual({ errorName: 'ERC20InsufficientBalance', args: [poor.address, 1n * USDC, 4n * USDC] });
  });

  it('settles a batch fill by fill: a failing fill is reported with its revert data and the rest settle', async () => {
    const o = await order();
    const good = await fill([{ o, takerStake: 6n * USDC }]);
    const bad = await fill([{ o, takerStake: 3n * USDC }], { signer: privateKeyToAccount(generatePrivateKey()) });
    const hash = await c.executor.writeContract({ chain: c.executor.chain, account: c.executor.account!, address: c.deployment.settlement, abi: oddexSettlementAbi, functionName: 'settleFills', args: [[bad, good]] });
    const receipt = await c.pub.waitForTransactionReceipt({ hash });
    const failed = parseEventLogs({ abi: oddexSettlementAbi, logs: receipt.logs, eventName: 'FillFailed' });
    const settled = parseEventLogs({ abi: oddexSettlementAbi, logs: receipt.logs, eventName: 'FillSettled' });
    expect(failed.map((l) => decodeErrorResult({ abi: oddexSettlementAbi, data: l.args.reason }).errorName)).toEqual(['BadTakerSignature']);
    expect(settled.map((l) => l.args.takerStake)).toEqual([6n * USDC]);
    expect(await held(o.fields.marketHash)).toBe(10n * USDC);
  });

  it('pays the winner the pot, returns stakes on void, and splits a quarter line across its legs', async () => {
    const winMarket = randomBytes32();
    const voidMarket = randomBytes32();
    const w1 = await c.fundedWallet(100n * USDC);
    const w2 = await c.fundedWallet(100n * USDC);
    await settle(await fill([{ o: await order({ marketHash: winMarket, who: w1 }), takerStake: 30n * USDC }], { who: w2 }));
    await settle(await fill([{ o: await order({ marketHash: voidMarket, who: w1 }), takerStake: 15n * USDC }], { who: w2 }));
    // w1 (maker, outcome one) staked 20 + 10, w2 (taker, outcome two) 30 + 15.
    expect([await c.balanceOf(w1.address), await c.balanceOf(w2.address)]).toEqual([70n * USDC, 55n * USDC]);
    await report(winMarket, 2);
    await report(voidMarket, 0);
    for (const m of [winMarket, voidMarket]) for (const w of [w1, w2]) await claim(m, w.address);
    // Outcome two wins the pot of 50 for w2; void returns 10 to w1 and 15 to w2.
    expect([await c.balanceOf(w1.address), await c.balanceOf(w2.address)]).toEqual([80n * USDC, 120n * USDC]);
    expect([await held(winMarket), await held(voidMarket)]).toEqual([0n, 0n]);
    expect((await revertOf(c.pub.simulateContract({ account: c.operator.account!, address: c.deployment.settlement, abi: oddexSettlementAbi, functionName: 'claim', args: [winMarket, w1.address] }))).errorName).toBe('AlreadyClaimed');
    expect((await revertOf(simulate(await fill([{ o: await order({ marketHash: winMarket }), takerStake: 3n * USDC }])))).errorName).toBe('MarketReported');

    const legs = [randomBytes32(), randomBytes32()] as const;
    await settle(await fill([{ o: await order({ who: w1 }), takerStake: 15n * USDC + 1n }], { who: w2, legs }));
    // Maker stake 15 000 001 * 40 / 60 = 10 000 000; the lower leg takes the taker's odd wei.
    expect([await held(legs[0]), await held(legs[1])]).toEqual([12_500_001n, 12_500_000n]);
  });

  it('pays capital-efficiency refunds only up to what no outcome can need, and never more than the market holds', async () => {
    const market = randomBytes32();
    const w = await c.fundedWallet(200n * USDC);
    const other = await c.fundedWallet(200n * USDC);
    // w makes outcome one (20 against 30) and takes outcome two (30 against 20): it gets 50 back whatever happens.
    await settle(await fill([{ o: await order({ marketHash: market, who: w }), takerStake: 30n * USDC }], { who: other }));
    await settle(await fill([{ o: await order({ marketHash: market, who: other }), takerStake: 30n * USDC }], { who: w }));
    const allowed = await c.pub.readContract({ address: c.deployment.settlement, abi: oddexSettlementAbi, functionName: 'refundable', args: [market, w.address] });
    expect(allowed).toBe(50n * USDC);
    expect(await revertOf(refund(market, w.address, allowed + 1n))).toEqual({ errorName: 'RefundTooLarge', args: [market, w.address, allowed + 1n, allowed] });
    const key = randomBytes32();
    await refund(market, w.address, 30n * USDC, key);
    expect(await revertOf(refund(market, w.address, 30n * USDC, key))).toEqual({ errorName: 'RefundAlreadyPaid', args: [key] });
    await refund(market, w.address, 10n * USDC);
    expect(await c.balanceOf(w.address)).toBe(190n * USDC);
    expect((await revertOf(refund(market, w.address, 10n * USDC + 1n))).errorName).toBe('RefundTooLarge');
    await report(market, 1);
    expect((await revertOf(refund(market, w.address, 1n))).errorName).toBe('MarketReported');
    await claim(market, w.address);
    await claim(market, other.address);
    expect([await c.balanceOf(w.address), await c.balanceOf(other.address), await held(market)]).toEqual([200n * USDC, 200n * USDC, 0n]);
  });

  describe('fees and cash outs', () => {
    // 2% of net winnings on singles, 5% on parlays, 3% of a cash out's value, a quarter of each fee to the affiliate.
    const FEES = { singlesBps: 200, parlaysBps: 500, cashOutBps: 300, affiliateShareBps: 2500 };
    const feeAccount = privateKeyToAccount(generatePrivateKey()).address;
    const affiliate = privateKeyToAccount(generatePrivateKey()).address;
    const zero = ('0x' + '0'.repeat(64)) as Hex;
    /** What the exchange's ledger charges (src/engine/fees.ts): the fee in all and the affiliate's part of it. */
    const split = (fee: bigint) => ({ fee, affiliateFee: affiliatePart(fee, affiliate, FEES.affiliateShareBps) });
    const setFees = (account: PrivateKeyAccount | typeof c.operator.account, f: typeof FEES & { account: Address; affiliate: Address }) =>
      c.pub.simulateContract({ account: account!, address: c.deployment.settlement, abi: oddexSettlementAbi, functionName: 'setFees', args: [f] });
    const position = (market: Hex, bettor: Address) => c.pub.readContract({ address: c.deployment.settlement, abi: oddexSettlementAbi, functionName: 'positions', args: [market, bettor] });
    const reportParlay = async (market: Hex, outcome: number) => {
      const hash = await c.operator.writeContract({ chain: c.operator.chain, account: c.operator.account!, address: c.deployment.settlement, abi: oddexSettlementAbi, functionName: 'reportParlayOutcome', args: [market, outcome] });
      return c.pub.waitForTransactionReceipt({ hash });
    };
    const balances = () => Promise.all([c.balanceOf(feeAccount), c.balanceOf(affiliate)]);

    beforeAll(async () => {
      const { request } = await setFees(c.operator.account, { ...FEES, account: feeAccount, affiliate });
      await c.pub.waitForTransactionReceipt({ hash: await c.operator.writeContract(request) });
    });

    it('only the owner sets the fees, never above 100% nor without a fee account', async () => {
      expect((await revertOf(setFees(taker, { ...FEES, account: feeAccount, affiliate }))).errorName).toBe('OwnableUnauthorizedAccount');
      expect((await revertOf(setFees(c.operator.account, { ...FEES, singlesBps: 10_001, account: feeAccount, affiliate }))).errorName).toBe('BadFees');
      expect((await revertOf(setFees(c.operator.account, { ...FEES, account: '0x0000000000000000000000000000000000000000', affiliate }))).errorName).toBe('BadFees');
      expect(await c.pub.readContract({ address: c.deployment.settlement, abi: oddexSettlementAbi, functionName: 'fees' })).toEqual([200, 500, 300, 2500, feeAccount, affiliate]);
    });

    it('takes the commission on net winnings at the claim, to the wei as the ledger does: a win, a loss, a void, a parlay', async () => {
      const [win, lose, voided, parlay] = [randomBytes32(), randomBytes32(), randomBytes32(), randomBytes32()];
      const w1 = await c.fundedWallet(400n * USDC);
      const w2 = await c.fundedWallet(400n * USDC);
      // Odd wei, so that the rounding shows: taker stake 30.000007 at 40% gives the maker 20.000004.
      for (const m of [win, lose, voided, parlay]) await settle(await fill([{ o: await order({ marketHash: m, who: w1 }), takerStake: 30n * USDC + 7n }], { who: w2 }));
      const [w1Before, w2Before] = [await c.balanceOf(w1.address), await c.balanceOf(w2.address)];
      const [feeBefore, affBefore] = await balances();
      await report(win, 2);
      await report(lose, 1);
      await report(voided, 0);
      await reportParlay(parlay, 1);
      for (const m of [win, lose, voided, parlay]) for (const w of [w1, w2]) await claim(m, w.address);
      const pot = 50n * USDC + 11n;
      // w2 wins `win` (profit 20.000004 at 2%), w1 wins `lose` and the parlay (profit 30.000007 at 2% and at 5%); void: no fee.
      const fees = [commission(pot, 30n * USDC + 7n, 200), commission(pot, 20n * USDC + 4n, 200), commission(pot, 20n * USDC + 4n, 500)];
      expect(fees).toEqual([400_000n, 600_000n, 1_500_000n]);
      expect(await c.balanceOf(w2.address)).toBe(w2Before + pot - fees[0]! + 30n * USDC + 7n);
      expect(await c.balanceOf(w1.address)).toBe(w1Before + pot - fees[1]! + 20n * USDC + 4n + pot - fees[2]!);
      const total = fees.reduce((a, b) => a + b, 0n);
      const toAffiliate = fees.reduce((a, f) => a + split(f).affiliateFee, 0n);
      expect(toAffiliate).toBe(625_000n);
      expect(await balances()).toEqual([feeBefore + total - toAffiliate, affBefore + toAffiliate]);
      for (const m of [win, lose, voided, parlay]) expect(await held(m)).toBe(0n);
    });

    /** w staked 30 on outcome two against a maker's 20 at 40%: pays 50 on outcome two, 0 on outcome one. */
    async function openPosition() {
      const market = randomBytes32();
      const w = await c.fundedWallet(200n * USDC);
      const maker1 = await c.fundedWallet(200n * USDC);
      await settle(await fill([{ o: await order({ marketHash: market, who: maker1 }), takerStake: 30n * USDC }], { who: w }));
      // The hedge's makers back outcome two at 50%: each wei the bettor stakes on outcome one returns two.
      const hedgeOrder = await order({ marketHash: market, who: maker1, isMakerBettingOutcomeOne: false, percentageOdds: 50n * E18 });
      return { market, w, hedgeOrder };
    }

    it('cashes a position out in full: pays at once what every result owes it less the cash-out fee, and nothing more at the claim', async () => {
      const { market, w, hedgeOrder } = await openPosition();
      const before = await c.balanceOf(w.address);
      const [feeBefore, affBefore] = await balances();
      const f = await fill([{ o: hedgeOrder, takerStake: 25n * USDC }], { who: w, cashOutTarget: market });
      const domain = { ...FILL_DOMAIN, chainId: c.deployment.chainId, verifyingContract: c.deployment.settlement };
      expect(await c.pub.readContract({ address: c.deployment.settlement, abi: oddexSettlementAbi, functionName: 'fillHash', args: [f] })).toBe(
        fillDigest(domain, { market: f.market, baseToken: f.baseToken, stakeWei: f.stakeWei, desiredOdds: f.desiredOdds, oddsSlippage: 0, isTakerBettingOutcomeOne: true, fillSalt: f.fillSalt, cashOutTarget: market }),
      );
      const receipt = await settle(f);
      // Hedged: 25 on outcome one returns 50, so every result owes 50 (a void 55); the value is 50 less the hedge stake.
      const fee = cashOutFee(50n * USDC - 25n * USDC, 50n * USDC, FEES.cashOutBps);
      expect(fee).toBe(750_000n);
      const [cashedOut] = parseEventLogs({ abi: oddexSettlementAbi, logs: receipt.logs, eventName: 'CashedOut' });
      expect([cashedOut!.args.amount, cashedOut!.args.fee]).toEqual([50n * USDC, fee]);
      expect(await c.balanceOf(w.address)).toBe(before - 25n * USDC + 50n * USDC - fee);
      expect(await balances()).toEqual([feeBefore + fee - split(fee).affiliateFee, affBefore + split(fee).affiliateFee]);
      expect((await position(market, w.address)).slice(4)).toEqual([0n, false, 50n * USDC, true]);
      // No refund after a cash out; the hedge is flat now, and a replay of the fill is refused.
      expect(await c.pub.readContract({ address: c.deployment.settlement, abi: oddexSettlementAbi, functionName: 'refundable', args: [market, w.address] })).toBe(0n);
      expect(await revertOf(refund(market, w.address, 1n))).toEqual({ errorName: 'RefundAfterCashOut', args: [market, w.address] });
      expect((await revertOf(simulate(f))).errorName).toBe('FillAlreadySettled');
      const again = await order({ marketHash: market, isMakerBettingOutcomeOne: false, percentageOdds: 50n * E18 });
      expect((await revertOf(simulate(await fill([{ o: again, takerStake: 1n * USDC }], { who: w, cashOutTarget: market })))).errorName).toBe('NothingToCashOut');
      // A void returns the stakes (55) less the 50 paid: 5 at the claim; no commission without a profit.
      await report(market, 0);
      const beforeClaim = await c.balanceOf(w.address);
      await claim(market, w.address);
      expect(await c.balanceOf(w.address)).toBe(beforeClaim + 5n * USDC);
    });

    it('cashes out part of a position, then the rest: the two pay what one full cash out does', async () => {
      const { market, w, hedgeOrder } = await openPosition();
      const before = await c.balanceOf(w.address);
      await settle(await fill([{ o: hedgeOrder, takerStake: 12n * USDC + 500_000n }], { who: w, cashOutTarget: market }));
      // Outcome one now pays 25, outcome two 50: 25 at once, value 25 - 12.5.
      const first = cashOutFee(12n * USDC + 500_000n, 25n * USDC, FEES.cashOutBps);
      expect(await c.balanceOf(w.address)).toBe(before - 12n * USDC - 500_000n + 25n * USDC - first);
      await settle(await fill([{ o: hedgeOrder, takerStake: 12n * USDC + 500_000n }], { who: w, cashOutTarget: market }));
      // Both pay 50 now; 25 was paid: 25 more, value 50 - 25 - 12.5.
      const second = cashOutFee(12n * USDC + 500_000n, 25n * USDC, FEES.cashOutBps);
      expect(first + second).toBe(750_000n);
      expect(await c.balanceOf(w.address)).toBe(before - 25n * USDC + 50n * USDC - first - second);
      await report(market, 1);
      const beforeClaim = await c.balanceOf(w.address);
      await claim(market, w.address);
      // Outcome one pays 50, all paid early; its 25 staked on one against 30 on two is no profit.
      expect(await c.balanceOf(w.address)).toBe(beforeClaim);
    });

    it('refuses a forged, replayed, over-size, mistargeted, wrong-side or positionless cash out, and one after a refund', async () => {
      const { market, w, hedgeOrder } = await openPosition();
      // Signed as an ordinary fill, presented as a cash out (and the reverse): the taker's signature does not hold.
      expect((await revertOf(simulate(await fill([{ o: hedgeOrder, takerStake: 5n * USDC }], { who: w, cashOutTarget: market, signedTarget: zero })))).errorName).toBe('BadTakerSignature');
      expect((await revertOf(simulate(await fill([{ o: hedgeOrder, takerStake: 5n * USDC }], { who: w, signedTarget: market })))).errorName).toBe('BadTakerSignature');
      const other = randomBytes32();
      expect(await revertOf(simulate(await fill([{ o: hedgeOrder, takerStake: 5n * USDC }], { who: w, cashOutTarget: other })))).toEqual({ errorName: 'BadCashOutTarget', args: [other] });
      // 25.000001 on outcome one returns 50.000002, more than the 50 the hedge needs.
      expect(await revertOf(simulate(await fill([{ o: hedgeOrder, takerStake: 25n * USDC + 1n }], { who: w, cashOutTarget: market })))).toEqual({ errorName: 'CashOutTooLarge', args: [50n * USDC + 2n, 50n * USDC] });
      const sameSide = await order({ marketHash: market, isMakerBettingOutcomeOne: true });
      expect((await revertOf(simulate(await fill([{ o: sameSide, takerStake: 5n * USDC }], { who: w, cashOutTarget: market })))).errorName).toBe('CashOutWrongSide');
      const stranger = await c.fundedWallet(10n * USDC);
      expect(await revertOf(simulate(await fill([{ o: hedgeOrder, takerStake: 5n * USDC }], { who: stranger, cashOutTarget: market })))).toEqual({ errorName: 'NoPosition', args: [market, stranger.address] });
      const ok = await fill([{ o: hedgeOrder, takerStake: 5n * USDC }], { who: w, cashOutTarget: market });
      await settle(ok);
      expect((await revertOf(simulate(ok))).errorName).toBe('FillAlreadySettled');
      // After a refund: a bettor on both sides is refunded what no outcome needs, and may not cash out then.
      const both = await c.fundedWallet(200n * USDC);
      const m2 = randomBytes32();
      await settle(await fill([{ o: await order({ marketHash: m2, who: both }), takerStake: 30n * USDC }]));
      await settle(await fill([{ o: await order({ marketHash: m2, isMakerBettingOutcomeOne: true, percentageOdds: 50n * E18 }), takerStake: 10n * USDC }], { who: both }));
      await refund(m2, both.address, 1n);
      const hedge2 = await order({ marketHash: m2, isMakerBettingOutcomeOne: false, percentageOdds: 50n * E18 });
      expect(await revertOf(simulate(await fill([{ o: hedge2, takerStake: 1n * USDC }], { who: both, cashOutTarget: m2 })))).toEqual({ errorName: 'CashOutAfterRefund', args: [m2, both.address] });
    });
  });

  it('has a 6-decimal token with EIP-2612 permit that only the operator can mint', async () => {
    expect(await c.pub.readContract({ address: c.deployment.token, abi: oddexTokenAbi, functionName: 'decimals' })).toBe(6);
    expect((await revertOf(c.pub.simulateContract({ account: taker, address: c.deployment.token, abi: oddexTokenAbi, functionName: 'mint', args: [taker.address, 1n] }))).errorName).toBe('OwnableUnauthorizedAccount');
    const owner = privateKeyToAccount(generatePrivateKey());
    const deadline = now + 3600n;
    const signature = await owner.signTypedData({
      domain: { name: 'Oddex USD', version: '1', chainId: c.deployment.chainId, verifyingContract: c.deployment.token },
      types: { Permit: [{ name: 'owner', type: 'address' }, { name: 'spender', type: 'address' }, { name: 'value', type: 'uint256' }, { name: 'nonce', type: 'uint256' }, { name: 'deadline', type: 'uint256' }] },
      primaryType: 'Permit',
      message: { owner: owner.address, spender: c.deployment.proxy, value: 7n * USDC, nonce: 0n, deadline },
    });
    const r = signature.slice(0, 66) as Hex;
    const s = ('0x' + signature.slice(66, 130)) as Hex;
    const v = Number('0x' + signature.slice(130, 132));
    const tx = await c.operator.writeContract({ chain: c.operator.chain, account: c.operator.account!, address: c.deployment.token, abi: oddexTokenAbi, functionName: 'permit', args: [owner.address, c.deployment.proxy, 7n * USDC, deadline, v, r, s] });
    await c.pub.waitForTransactionReceipt({ hash: tx });
    expect(await c.pub.readContract({ address: c.deployment.token, abi: oddexTokenAbi, functionName: 'allowance', args: [owner.address, c.deployment.proxy] })).toBe(7n * USDC);
  });
});
