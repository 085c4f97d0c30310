// The funds check: every token the chain ever minted is in a wallet or in escrow, to the wei. Known accounts are
// every address a Transfer event ever touched; the settlement contract's balance is the escrow.
import { parseEventLogs, zeroAddress, type Address, type PublicClient } from 'viem';
import { oddexSettlementAbi, oddexTokenAbi } from './contracts.js';
import type { Deployment } from './deploy.js';

export interface FundsReport {
  token: Address;
  /** Addresses any Transfer touched, the settlement contract included. */
  accounts: number;
  /** Sum of the balances of every known account except the settlement contract. */
  wallets: bigint;
  /** The settlement contract's token balance, and what it records as held for markets. */
  escrowBalance: bigint;
  escrowHeld: bigint;
  /** Minted less burnt, from Transfer events, and the token's totalSupply. */
  minted: bigint;
  totalSupply: bigint;
  agrees: boolean;
}

export async function checkFunds(pub: PublicClient, deployment: Pick<Deployment, 'token' | 'settlement' | 'deployBlock'>): Promise<FundsReport> {
  const logs = await pub.getLogs({ address: deployment.token, fromBlock: BigInt(deployment.deployBlock), toBlock: 'latest' });
  const accounts = new Set<Address>();
  let minted = 0n;
  for (const log of parseEventLogs({ abi: oddexTokenAbi, logs, eventName: 'Transfer' })) {
    const { from, to, value } = log.args;
    if (from === zeroAddress) minted += value;
    else accounts.add(from);
    if (to === zeroAddress) minted -= value;
    else accounts.add(to);
  }
  const settlement = deployment.settlement.toLowerCase();
  const balanceOf = (address: Address) => pub.readContract({ address: deployment.token, abi: oddexTokenAbi, functionName: 'balanceOf', args: [address] });
  let wallets = 0n;
  for (const address of accounts) if (address.toLowerCase() !== settlement) wallets += await balanceOf(address);
  const escrowBalance = await balanceOf(deployment.settlement);
  const escrowHeld = await pub.readContract({ address: deployment.settlement, abi: oddexSettlementAbi, functionName: 'totalHeld' });
  const totalSupply = await pub.readContract({ address: deployment.token, abi: oddexTokenAbi, functionName: 'totalSupply' });
  return {
    token: deployment.token,
    accounts: accounts.size,
    wallets,
    escrowBalance,
    escrowHeld,
    minted,
    totalSupply,
    agrees: wallets + escrowBalance === minted && minted === totalSupply && escrowHeld === escrowBalance,
  };
}
