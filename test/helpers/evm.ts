// Anvil from the npm package with the contracts deployed, and viem clients. Contract tests get the addresses they
// deployed; exchange tests get only a node and the deployment file the exchange reads, and learn every address
// from /metadata as a client does. Signatures are made by viem here, never by our own protocol code.
import { createPublicClient, createTestClient, createWalletClient, encodePacked, http, keccak256, type Address, type Hex, type PrivateKeyAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { writeFileSync } from 'node:fs';
import { startAnvil, type Anvil } from '../../src/chain/evm/anvil.js';
import { deployContracts, type ChainFees, type Deployment } from '../../src/chain/evm/deploy.js';
import { oddexSettlementAbi, oddexTokenAbi } from '../../src/chain/evm/contracts.js';
import { DEV_EXECUTOR_KEY, DEV_OPERATOR_KEY } from '../../src/chain/evm/dev-accounts.js';
import type { Metadata } from '@oddex/sdk';
import { signFillRequest, type SignedFillFields, type SigningParams } from './wallets.js';

export const FILL_DOMAIN = { name: 'Oddex', version: '1.0' };

/** A node and viem clients on it. */
export interface Node {
  anvil: Anvil;
  chain: { id: number; name: string; nativeCurrency: { name: string; symbol: string; decimals: number }; rpcUrls: { default: { http: string[] } } };
  pub: ReturnType<typeof createPublicClient>;
  testClient: ReturnType<typeof createTestClient>;
  walletOf(account: PrivateKeyAccount): ReturnType<typeof createWalletClient>;
  stop(): Promise<void>;
}

/**
 * A node with the contracts deployed as `npm run chain` does (the anvil operator deploys; its executor settles),
 * charging `fees` (none when absent).
 */
async function deployedNode(fees?: ChainFees): Promise<{ node: Node; deployment: Deployment }> {
  const anvil = await startAnvil();
  try {
    const deployment = await deployContracts({
      rpcUrl: anvil.rpcUrl,
      operatorKey: DEV_OPERATOR_KEY,
      executor: privateKeyToAccount(DEV_EXECUTOR_KEY).address,
      domainName: FILL_DOMAIN.name,
      domainVersion: FILL_DOMAIN.version,
      ...(fees ? { fees } : {}),
    });
    const chain = { id: anvil.chainId, name: 'anvil', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [anvil.rpcUrl] } } };
    const transport = http(anvil.rpcUrl);
    const node: Node = {
      anvil,
      chain,
      pub: createPublicClient({ chain, transport, pollingInterval: 50 }),
      testClient: createTestClient({ chain, transport, mode: 'anvil' }),
      walletOf: (account) => createWalletClient({ account, chain, transport, pollingInterval: 50 }),
      stop: () => anvil.stop(),
    };
    return { node, deployment };
  } catch (err) {
    await anvil.stop();
    throw err;
  }
}

/** For exchange tests: the deployment is written to `deploymentFile` for the exchange (ODDEX_EVM_DEPLOYMENT) and not returned. */
export async function startExchangeNode(deploymentFile: string, fees?: ChainFees): Promise<Node> {
  const { node, deployment } = await deployedNode(fees);
  writeFileSync(deploymentFile, JSON.stringify(deployment));
  return node;
}

/** What a client takes from /metadata: the values it signs with and the contracts it talks to. */
export interface ClientView {
  signing: SigningParams;
  chainId: number;
  token: Address;
  tokenSymbol: string;
  /** The spender wallets approve. */
  proxy: Address;
  /** The settlement contract: the fill domain's verifying contract. */
  settlement: Address;
  executor: Address;
}

export function clientViewOf(meta: Metadata): ClientView {
  const [tokenSymbol, token] = Object.entries(meta.addresses[String(meta.chainId)] ?? {})[0] ?? [];
  if (!tokenSymbol || !token) throw new Error(`/metadata lists no token for chain ${meta.chainId}`);
  return {
    signing: {
      chainId: meta.chainId,
      baseTokenAddress: token,
      executorAddress: meta.executorAddress,
      eip712FillHasher: meta.EIP712FillHasher,
      domainNames: meta.domainNames,
      domainVersion: meta.domainVersion,
    },
    chainId: meta.chainId,
    token: token as Address,
    tokenSymbol,
    proxy: meta.TokenTransferProxy as Address,
    settlement: meta.EIP712FillHasher as Address,
    executor: meta.executorAddress as Address,
  };
}

/** For contract tests, which call the contracts they deployed. */
export interface TestChain extends Node {
  deployment: Deployment;
  operator: ReturnType<typeof createWalletClient>;
  executor: ReturnType<typeof createWalletClient>;
  /** A new wallet with gas, the proxy approved for `amount`, then `amount` of the token. */
  fundedWallet(amount: bigint): Promise<PrivateKeyAccount>;
  balanceOf(address: Address): Promise<bigint>;
}

export async function startTestChain(): Promise<TestChain> {
  const { node, deployment } = await deployedNode();
  const { chain, pub, testClient, walletOf } = node;
  const operator = walletOf(privateKeyToAccount(DEV_OPERATOR_KEY));
  const executor = walletOf(privateKeyToAccount(DEV_EXECUTOR_KEY));
  const balanceOf = (address: Address) => pub.readContract({ address: deployment.token, abi: oddexTokenAbi, functionName: 'balanceOf', args: [address] });
  const fundedWallet = async (amount: bigint) => {
    const account = privateKeyToAccount(generatePrivateKey());
    await testClient.setBalance({ address: account.address, value: 10n ** 20n });
    const approve = await walletOf(account).writeContract({ chain, account, address: deployment.token, abi: oddexTokenAbi, functionName: 'approve', args: [deployment.proxy, amount] });
    await pub.waitForTransactionReceipt({ hash: approve });
    const mint = await operator.writeContract({ chain, account: operator.account!, address: deployment.token, abi: oddexTokenAbi, functionName: 'mint', args: [account.address, amount] });
    await pub.waitForTransactionReceipt({ hash: mint });
    return account;
  };
  return { ...node, deployment, operator, executor, fundedWallet, balanceOf };
}

export interface OrderFields {
  marketHash: Hex;
  baseToken: Address;
  totalBetSize: bigint;
  percentageOdds: bigint;
  expiry: bigint;
  salt: bigint;
  maker: Address;
  executor: Address;
  isMakerBettingOutcomeOne: boolean;
}

/** The spec's order hash and the maker's EIP-191 signature over its 32 bytes, both by viem. */
export async function signOrder(maker: PrivateKeyAccount, o: OrderFields) {
  const hash = keccak256(
    encodePacked(
      ['bytes32', 'address', 'uint256', 'uint256', 'uint256', 'uint256', 'address', 'address', 'bool'],
      [o.marketHash, o.baseToken, o.totalBetSize, o.percentageOdds, o.expiry, o.salt, o.maker, o.executor, o.isMakerBettingOutcomeOne],
    ),
  );
  return { hash, signature: await maker.signMessage({ message: { raw: hash } }) };
}

/** The taker's EIP-712 fill signature by viem, over the fill domain of this deployment. */
export function signFill(taker: PrivateKeyAccount, deployment: Deployment, f: SignedFillFields): Promise<Hex> {
  return signFillRequest(taker, { ...FILL_DOMAIN, chainId: deployment.chainId, verifyingContract: deployment.settlement }, f);
}

export { oddexSettlementAbi };
