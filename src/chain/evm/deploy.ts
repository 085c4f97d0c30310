// Deploys the token, the transfer proxy and the settlement contract, and authorises settlement on the proxy.
import { createPublicClient, createWalletClient, getAddress, http, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { bytecodeOf, oddexSettlementAbi, oddexTokenAbi, tokenTransferProxyAbi } from './contracts.js';

/**
 * What the exchange needs to find the contracts: written by `npm run chain`, read with ODDEX_CHAIN=evm. It is the
 * one source of every address, id and signing value /metadata gives clients in that mode (setup.ts).
 */
export interface Deployment {
  chainId: number;
  rpcUrl: string;
  token: Address;
  tokenSymbol: string;
  tokenDecimals: number;
  proxy: Address;
  settlement: Address;
  /** The settlement contract's EIP-712 fill domain (fixed at construction): what a taker's signature must name. */
  domainName: string;
  domainVersion: string;
  operator: Address;
  executor: Address;
  /** First block to scan for events. */
  deployBlock: string;
  /**
   * The fee rates and accounts the settlement contract was given (setFees): the server takes them as its own, so
   * the ledger charges what the contract does. Files without them are refused (setup.ts).
   */
  fees: ChainFees;
}

/** What the settlement contract charges (its Fees struct): basis points, the fee account and the affiliate. */
export interface ChainFees {
  singlesBps: number;
  parlaysBps: number;
  cashoutBps: number;
  affiliateShareBps: number;
  account: Address;
  affiliate: Address;
}

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/**
 * The fees a deployment charges for the configured ones. Without a fee account (the zero address, which cannot
 * receive the token) the contract charges none, and the server, pointed at the deployment, none either.
 */
export function chainFeesOf(fees: Omit<ChainFees, 'account' | 'affiliate'> & { account: string; affiliate: string }): ChainFees {
  const account = getAddress(fees.account);
  const affiliate = getAddress(fees.affiliate);
  if (account === ZERO_ADDRESS) return { singlesBps: 0, parlaysBps: 0, cashoutBps: 0, affiliateShareBps: fees.affiliateShareBps, account, affiliate };
  return { singlesBps: fees.singlesBps, parlaysBps: fees.parlaysBps, cashoutBps: fees.cashoutBps, affiliateShareBps: fees.affiliateShareBps, account, affiliate };
}

export interface DeployOptions {
  rpcUrl: string;
  operatorKey: Hex;
  executor: Address;
  /** The fill domain: name and version the taker signs, as in /metadata. */
  domainName: string;
  domainVersion: string;
  tokenName?: string;
  tokenSymbol?: string;
  /** What the settlement contract charges (chainFeesOf); none when absent. */
  fees?: ChainFees;
}

export async function deployContracts(o: DeployOptions): Promise<Deployment> {
  const account = privateKeyToAccount(o.operatorKey);
  const transport = http(o.rpcUrl);
  const pub = createPublicClient({ transport, pollingInterval: 50 });
  const chainId = await pub.getChainId();
  const chain = { id: chainId, name: 'oddex', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [o.rpcUrl] } } };
  const wallet = createWalletClient({ account, chain, transport });
  const deployed = async (hash: Hex) => {
    const receipt = await pub.waitForTransactionReceipt({ hash });
    if (!receipt.contractAddress || receipt.status !== 'success') throw new Error(`deployment ${hash} failed`);
    return receipt;
  };
  const tokenSymbol = o.tokenSymbol ?? 'USDC';
  const tokenReceipt = await deployed(
    await wallet.deployContract({ abi: oddexTokenAbi, bytecode: bytecodeOf('OddexToken'), args: [o.tokenName ?? 'Oddex USD', tokenSymbol, account.address] }),
  );
  const token = tokenReceipt.contractAddress!;
  const tokenDecimals = await pub.readContract({ address: token, abi: oddexTokenAbi, functionName: 'decimals' });
  const proxy = (await deployed(await wallet.deployContract({ abi: tokenTransferProxyAbi, bytecode: bytecodeOf('TokenTransferProxy'), args: [account.address] })))
    .contractAddress!;
  const settlement = (
    await deployed(
      await wallet.deployContract({
        abi: oddexSettlementAbi,
        bytecode: bytecodeOf('OddexSettlement'),
        args: [token, proxy, o.executor, account.address, o.domainName, o.domainVersion],
      }),
    )
  ).contractAddress!;
  const authorised = await wallet.writeContract({ address: proxy, abi: tokenTransferProxyAbi, functionName: 'setAuthorised', args: [settlement, true] });
  await pub.waitForTransactionReceipt({ hash: authorised });
  const fees = o.fees ?? chainFeesOf({ singlesBps: 0, parlaysBps: 0, cashoutBps: 0, affiliateShareBps: 0, account: ZERO_ADDRESS, affiliate: ZERO_ADDRESS });
  const feesSet = await wallet.writeContract({
    address: settlement,
    abi: oddexSettlementAbi,
    functionName: 'setFees',
    args: [{ singlesBps: fees.singlesBps, parlaysBps: fees.parlaysBps, cashOutBps: fees.cashoutBps, affiliateShareBps: fees.affiliateShareBps, account: fees.account, affiliate: fees.affiliate }],
  });
  if ((await pub.waitForTransactionReceipt({ hash: feesSet })).status !== 'success') throw new Error(`setting the fees failed in ${feesSet}`);
  return {
    chainId,
    rpcUrl: o.rpcUrl,
    token: getAddress(token),
    tokenSymbol,
    tokenDecimals,
    proxy: getAddress(proxy),
    settlement: getAddress(settlement),
    domainName: o.domainName,
    domainVersion: o.domainVersion,
    operator: account.address,
    executor: getAddress(o.executor),
    deployBlock: tokenReceipt.blockNumber.toString(),
    fees,
  };
}
