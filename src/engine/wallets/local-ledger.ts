// The default chain: an in-process ERC-20-like ledger of the base token (ODDEX_CHAIN=local). Deterministic, driven
// by engine commands: it is the chain, so it decides whether a fill executes and moves the funds itself.
// Free balances per address, plus escrow per (address, market) for bets waiting on their market's outcome.
import type { Wallets, WalletsState } from './wallets.js';
import { WalletBook } from './wallet-book.js';

export class LocalLedger extends WalletBook implements Wallets {
  readonly onChain = false;

  /** What fills may take from a wallet: its balance, capped by its allowance where one is tracked (absent: none). */
  spendable(address: string): bigint {
    const balance = this.balanceOf(address);
    const allowance = this.allowances.get(address);
    return allowance !== undefined && allowance < balance ? allowance : balance;
  }

  /** A fill executes when every party still holds what it owes. */
  executes(owed: ReadonlyMap<string, bigint>): boolean {
    // Keys, not entries: an entry is a fresh [key, value] array per party.
    for (const address of owed.keys()) if (this.balanceOf(address) < owed.get(address)!) return false;
    return true;
  }

  approved(address: string, amount: bigint): void {
    this.allowances.set(address, amount);
  }

  /** A balance moved outside our settlement: credits count as minted, debits as burnt. */
  walletMoved(address: string, delta: bigint): void {
    this.moveBalance(address, delta);
  }

  mint(address: string, amount: bigint): void {
    this.balances.set(address, this.balanceOf(address) + amount);
    this.minted += amount;
  }

  /** Caller checks the balance first; the ledger never goes negative. */
  transfer(from: string, to: string, amount: bigint): void {
    this.debit(from, amount);
    this.balances.set(to, this.balanceOf(to) + amount);
  }

  /** Moves free balance into escrow for a market. */
  hold(address: string, marketHash: string, amount: bigint): void {
    this.debit(address, amount);
    this.adjustEscrow(address, marketHash, amount);
  }

  /** Takes `fromEscrow` out of the address's escrow in the market and credits `toWallet` (settlement, refunds). */
  payOut(address: string, marketHash: string, fromEscrow: bigint, toWallet: bigint): void {
    this.adjustEscrow(address, marketHash, -fromEscrow);
    this.balances.set(address, this.balanceOf(address) + toWallet);
  }

  credit(address: string, amount: bigint): void {
    this.balances.set(address, this.balanceOf(address) + amount);
  }

  private debit(address: string, amount: bigint): void {
    const balance = this.balanceOf(address);
    if (amount < 0n || balance < amount) throw new Error(`ledger: ${address} cannot pay ${amount}`);
    this.balances.set(address, balance - amount);
  }

  static fromState(state: WalletsState): LocalLedger {
    return new LocalLedger().load(state);
  }
}
