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
  };
}
