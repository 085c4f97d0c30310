// The settlement contract called directly on anvil: a good fill moves both stakes into escrow to the wei;
// forged, replayed, over-size, expired and cancelled inputs revert with their reason; outcomes, claims and
// refunds never pay out more than a market holds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BaseError, ContractFunctionRevertedError, decodeErrorResult, parseEventLogs, type Address, type Hex, type PrivateKeyAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { randomBytes } from 'node:crypto';
import { fillDigest } from '../../src/protocol/eip712.js';
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
    over: Partial<{ stakeWei: bigint; fillSalt: bigint; signer: PrivateKeyAccount; who: PrivateKeyAccount; market: string; legs: readonly [Hex, Hex] }> = {},
  ) {
    const who = over.who ?? taker;
    const signed = {
      market: over.market ?? orders[0]!.o.fields.marketHash,
      baseToken: c.deployment.token as string,
      stakeWei: over.stakeWei ?? orders.reduce((s, x) => s + x.takerStake, 0n),
      desiredOdds: 60n * E18,
      oddsSlippage: 0n,
      isTakerBettingOutcomeOne: !orders[0]!.o.fields.isMakerBettingOutcomeOne,
      fillSalt: over.fillSalt ?? randomSalt(),
    };
    const takerSig = await signFill(over.signer ?? who, c.deployment, signed);
    const zero = ('0x' + '0'.repeat(64)) as Hex;
    return {
      taker: who.address,
      ...signed,
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
