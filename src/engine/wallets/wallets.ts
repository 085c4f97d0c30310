// The engine's view of wallets and escrow. The engine itself tracks only its commitments (open-order exposure,
// pending taker stakes, positions); what wallets hold, what they allow the transfer proxy to take and whether a
// fill executed belong to the settlement chain, behind this interface. Two implementations: the in-process ledger
// (local-ledger.ts, ODDEX_CHAIN=local), which is the chain and moves funds itself, and the mirror of an
// EVM chain (chain-wallets.ts), which only follows what the chain reports in journaled commands.
import type { ChainExecution } from '../types.js';

export interface WalletsState {
  balances: [string, bigint][];
  escrow: [string, [string, bigint][]][];
  allowances?: [string, bigint][];
  minted: bigint;
}

export interface Wallets {
  /** True when wallets live on a chain: no faucet or transfer commands, payouts reach wallets by chain events. */
  readonly onChain: boolean;
  balanceOf(address: string): bigint;
  escrowOf(address: string): bigint;
  escrowIn(address: string, marketHash: string): bigint;
  /** What orders and fills may commit: the balance, capped by the allowance where one applies. */
  spendable(address: string): bigint;
  /** Everything minted: balances plus escrow add up to it. */
  readonly minted: bigint;
  total(): bigint;
  /** Every address with a balance or escrow entry. */
  holders(): Iterable<string>;

  /** The in-process ledger's faucet and transfers (the caller checks the balance of a transfer). */
  mint(address: string, amount: bigint): void;
  transfer(from: string, to: string, amount: bigint): void;

  /**
   * Whether a fill owing these stakes executes: the in-process ledger decides by its balances; a chain reports it
   * (`reported`), having moved the stakes out of the wallets itself.
   */
  executes(owed: ReadonlyMap<string, bigint>, reported: ChainExecution | undefined): boolean;
  /** A confirmed trade's stake is held in escrow for its market (taken from the wallet where the ledger moves funds). */
  hold(bettor: string, marketHash: string, stake: bigint): void;
  /** `fromEscrow` leaves escrow and `toWallet` is paid (credited at once where the ledger moves funds). */
  payOut(bettor: string, marketHash: string, fromEscrow: bigint, toWallet: bigint): void;
  /** A fee taken from a payout is paid to `address` (credited at once where the ledger moves funds). */
  credit(address: string, amount: bigint): void;

  /** A wallet's balance moved on chain by `delta`; `allowanceSpent` of it was taken by the transfer proxy. */
  walletMoved(address: string, delta: bigint, allowanceSpent: bigint): void;
  /** A wallet set its allowance for the transfer proxy. */
  approved(owner: string, amount: bigint): void;

  exportState(): WalletsState;
}
