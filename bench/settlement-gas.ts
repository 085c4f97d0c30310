// Gas the settlement contract's fees and cash outs cost on anvil, next to what they add to: an ordinary fill of one
// order, a cash-out fill of one order (the hedge plus the payment: bettor, fee account, affiliate), and claims of a
// win that pays the commission, of a loss (no fee) and of a position cashed out in full. Fees as a deployment sets
// them (2% singles, 3% cash out, a quarter to the affiliate). Each figure twice: fresh wallets (cold slots), so the
// two runs differ only by the contract's own first writes. Usage: npx tsx bench/settlement-gas.ts
import { randomBytes } from 'node:crypto';
import { createPublicClient, createWalletClient, http, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { startAnvil } from '../src/chain/evm/anvil.js';
import { chainFeesOf, deployContracts } from '../src/chain/evm/deploy.js';
import { oddexSettlementAbi, oddexTokenAbi } from '../src/chain/evm/contracts.js';
import { DEV_EXECUTOR_KEY, DEV_OPERATOR_KEY } from '../src/chain/evm/dev-accounts.js';
import { signFill, signOrder } from '../src/protocol/signing.js';

const USDC = 1_000_000n;
const E18 = 10n ** 18n;
const ZERO = `0x${'0'.repeat(64)}` as Hex;
const random32 = () => `0x${randomBytes(32).toString('hex')}` as Hex;

const anvil = await startAnvil();
try {
  const executorAccount = privateKeyToAccount(DEV_EXECUTOR_KEY);
  const domain = { name: 'Oddex', version: '1.0' };
  const d = await deployContracts({
    rpcUrl: anvil.rpcUrl,
    operatorKey: DEV_OPERATOR_KEY,
    executor: executorAccount.address,
    domainName: domain.name,
    domainVersion: domain.version,
    fees: chainFeesOf({ singlesBps: 200, parlaysBps: 500, cashoutBps: 300, affiliateShareBps: 2500, account: privateKeyToAccount(generatePrivateKey()).address, affiliate: privateKeyToAccount(generatePrivateKey()).address }),
  });
  const chain = { id: d.chainId, name: 'anvil', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [anvil.rpcUrl] } } } as const;
  const transport = http(anvil.rpcUrl);
  const pub = createPublicClient({ chain, transport, pollingInterval: 20 });
  const walletOf = (account: PrivateKeyAccount) => createWalletClient({ account, chain, transport });
  const operator = walletOf(privateKeyToAccount(DEV_OPERATOR_KEY));
  const executor = walletOf(executorAccount);
  const mined = async (hash: Hex) => (await pub.waitForTransactionReceipt({ hash })).gasUsed;
  const funded = async () => {
    const key = generatePrivateKey();
    const account = privateKeyToAccount(key);
    await mined(await operator.sendTransaction({ to: account.address, value: E18 }));
    await mined(await operator.writeContract({ address: d.token, abi: oddexTokenAbi, functionName: 'mint', args: [account.address, 500n * USDC] }));
    await mined(await walletOf(account).writeContract({ address: d.token, abi: oddexTokenAbi, functionName: 'approve', args: [d.proxy, 500n * USDC] }));
    return { account, key };
  };
  const now = (await pub.getBlock()).timestamp;
  const order = (maker: { account: PrivateKeyAccount; key: Hex }, marketHash: Hex, isMakerBettingOutcomeOne: boolean, percent: bigint) => {
    const fields = { marketHash, baseToken: d.token, totalBetSize: 100n * USDC, percentageOdds: percent * E18, expiry: now + 3600n, salt: BigInt(random32()), maker: maker.account.address, executor: d.executor, isMakerBettingOutcomeOne };
    return { fields, makerSig: signOrder(fields, maker.key) as Hex };
  };
  const fill = async (taker: { account: PrivateKeyAccount; key: Hex }, o: ReturnType<typeof order>, stakeWei: bigint, cashOutTarget = ZERO) => {
    const signed = { market: o.fields.marketHash, baseToken: d.token as string, stakeWei, desiredOdds: 100n * E18 - o.fields.percentageOdds, oddsSlippage: 0, isTakerBettingOutcomeOne: !o.fields.isMakerBettingOutcomeOne, fillSalt: BigInt(random32()) };
    const takerSig = signFill({ ...domain, chainId: d.chainId, verifyingContract: d.settlement }, { ...signed, cashOutTarget }, taker.key) as Hex;
    const args = { ...signed, oddsSlippage: 0n, taker: taker.account.address, cashOutTarget, takerSig, legs: [ZERO, ZERO] as const, matches: [{ order: o.fields, makerSig: o.makerSig, takerStake: stakeWei }] };
    return mined(await executor.writeContract({ address: d.settlement, abi: oddexSettlementAbi, functionName: 'settleFill', args: [args] }));
  };
  const asOperator = async (functionName: 'reportOutcome' | 'claim', args: readonly [Hex, number] | readonly [Hex, Hex]) =>
    mined(await operator.writeContract({ address: d.settlement, abi: oddexSettlementAbi, functionName, args } as Parameters<typeof operator.writeContract>[0]));

  for (let run = 1; run <= 2; run++) {
    const [maker, taker, hedger] = [await funded(), await funded(), await funded()];
    const cashedOut = random32();
    const settled = random32();
    // The taker backs outcome two with 30 against 20, then hedges it in full with 25 on outcome one at 50%.
    const ordinaryFill = await fill(taker, order(maker, cashedOut, true, 40n), 30n * USDC);
    const cashOutFill = await fill(taker, order(hedger, cashedOut, false, 50n), 25n * USDC, cashedOut);
    await fill(taker, order(maker, settled, true, 40n), 30n * USDC);
    await asOperator('reportOutcome', [cashedOut, 2]);
    await asOperator('reportOutcome', [settled, 2]);
    const claimWinWithCommission = await asOperator('claim', [settled, taker.account.address]);
    const claimLoss = await asOperator('claim', [settled, maker.account.address]);
    const claimAfterFullCashOut = await asOperator('claim', [cashedOut, taker.account.address]);
    console.log(JSON.stringify({ run, ordinaryFill, cashOutFill, claimWinWithCommission, claimLoss, claimAfterFullCashOut }, (_, v: unknown) => (typeof v === 'bigint' ? Number(v) : v)));
  }
} finally {
  await anvil.stop();
}
