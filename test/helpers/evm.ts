// A fresh anvil with the contracts deployed, and viem clients for the operator, the executor and test wallets.
// Signatures are made by viem here, never by our own protocol code.
import { createPublicClient, createTestClient, createWalletClient, encodePacked, http, keccak256, type Address, type Hex, type PrivateKeyAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startAnvil, type Anvil } from '../../src/chain/evm/anvil.js';
import { deployContracts, type Deployment } from '../../src/chain/evm/deploy.js';
import { oddexSettlementAbi, oddexTokenAbi } from '../../src/chain/evm/contracts.js';
import { DEV_EXECUTOR_KEY, DEV_OPERATOR_KEY } from '../../src/chain/evm/dev-accounts.js';
import { signFillRequest, type SignedFillFields } from './wallets.js';

export const FILL_DOMAIN = { name: 'Oddex', version: '1.0' };

export interface TestChain {
  anvil: Anvil;
  deployment: Deployment;
  pub: ReturnType<typeof createPublicClient>;
  testClient: ReturnType<typeof createTestClient>;
  operator: ReturnType<typeof createWalletClient>;
  executor: ReturnType<typeof createWalletClient>;
  walletOf(account: PrivateKeyAccount): ReturnType<typeof createWalletClient>;
  /** A new wallet with gas, the proxy approved for `amount`, then `amount` of the token. */
  fundedWallet(amount: bigint): Promise<PrivateKeyAccount>;
  balanceOf(address: Address): Promise<bigint>;
  stop(): Promise<void>;
}

export async function startTestChain(): Promise<TestChain> {
  const anvil = await startAnvil();
  try {
    const executorAccount = privateKeyToAccount(DEV_EXECUTOR_KEY);
    const deployment = await deployContracts({ rpcUrl: anvil.rpcUrl, operatorKey: DEV_OPERATOR_KEY, executor: executorAccount.address, ...{ domainName: FILL_DOMAIN.name, domainVersion: FILL_DOMAIN.version } });
    const chain = { id: anvil.chainId, name: 'anvil', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [anvil.rpcUrl] } } };
    const transport = http(anvil.rpcUrl);
    const pub = createPublicClient({ chain, transport, pollingInterval: 50 });
    const testClient = createTestClient({ chain, transport, mode: 'anvil' });
    const walletOf = (account: PrivateKeyAccount) => createWalletClient({ account, chain, transport, pollingInterval: 50 });
    const operator = walletOf(privateKeyToAccount(DEV_OPERATOR_KEY));
    const executor = walletOf(executorAccount);
    const balanceOf = (address: Address) => pub.readContract({ address: deployment.token, abi: oddexTokenAbi, functionName: 'balanceOf', args: [address] });
    const fundedWallet = async (amount: bigint) => {
      const account = privateKeyToAccount(generatePrivateKey());
      await testClient.setBalance({ address: account.address, value: 10n ** 20n });
      // Approved first: an exchange that has seen the minted balance has seen the approval too.
      const approve = await walletOf(account).writeContract({ chain, account, address: deployment.token, abi: oddexTokenAbi, functionName: 'approve', args: [deployment.proxy, amount] });
      await pub.waitForTransactionReceipt({ hash: approve });
      const mint = await operator.writeContract({ chain, account: operator.account!, address: deployment.token, abi: oddexTokenAbi, functionName: 'mint', args: [account.address, amount] });
      await pub.waitForTransactionReceipt({ hash: mint });
      return account;
    };
    return { anvil, deployment, pub, testClient, operator, executor, walletOf, fundedWallet, balanceOf, stop: () => anvil.stop() };
  } catch (err) {
    await anvil.stop();
    throw err;
  }
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
