// Deploys the token, the transfer proxy and the settlement contract, and authorises settlement on the proxy.
import { createPublicClient, createWalletClient, getAddress, http, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { bytecodeOf, oddexSettlementAbi, oddexTokenAbi, tokenTransferProxyAbi } from './contracts.js';

/** What the exchange needs to find the contracts: written by `npm run chain`, read with ODDEX_CHAIN=evm. */
export interface Deployment {
  chainId: number;
  rpcUrl: string;
  token: Address;
  proxy: Address;
  settlement: Address;
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
  const tokenReceipt = await deployed(
    await wallet.deployContract({ abi: oddexTokenAbi, bytecode: bytecodeOf('OddexToken'), args: [o.tokenName ?? 'Oddex USD', o.tokenSymbol ?? 'USDC', account.address] }),
  );
  const token = tokenReceipt.contractAddress!;
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
    proxy: getAddress(proxy),
    settlement: getAddress(settlement),
    operator: account.address,
    executor: getAddress(o.executor),
    deployBlock: tokenReceipt.blockNumber.toString(),
  };
}
