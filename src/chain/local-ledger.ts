// The default chain: an in-process ERC-20-like ledger of the base token (ODDEX_CHAIN=local). Deterministic, driven
// by engine commands: it is the chain, so it decides whether a fill executes and moves the funds itself.
// Free balances per address, plus escrow per (address, market) for bets waiting on their market's outcome.
import type { Wallets, WalletsState } from '../engine/wallets.js';

export class LocalLedger implements Wallets {
  readonly onChain = false;
  private readonly balances = new Map<string, bigint>();
  private readonly escrow = new Map<string, Map<string, bigint>>();
  /** Allowances for the transfer proxy, only if chain commands set one (absent: unlimited). */
  private readonly allowances = new Map<string, bigint>();
  /** Everything ever minted: the sum of all balances and escrow always equals it. */
  minted = 0n;

  balanceOf(address: string): bigint {
    return this.balances.get(address) ?? 0n;
  }

  escrowOf(address: string): bigint {
    let total = 0n;
    for (const amount of this.escrow.get(address)?.values() ?? []) total += amount;
    return total;
  }

  escrowIn(address: string, marketHash: string): bigint {
    return this.escrow.get(address)?.get(marketHash) ?? 0n;
  }

  /** What fills may take from a wallet: its balance, capped by its allowance where one is tracked. */
  spendable(address: string): bigint {
    const balance = this.balanceOf(address);
    const allowance = this.allowances.get(address);
    return allowance !== undefined && allowance < balance ? allowance : balance;
  }

  /** A fill executes when every party still holds what it owes. */
  executes(owed: ReadonlyMap<string, bigint>): boolean {
    for (const [address, amount] of owed) if (this.balanceOf(address) < amount) return false;
    return true;
  }

  approved(address: string, amount: bigint): void {
    this.allowances.set(address, amount);
  }

  /** A balance moved outside our settlement: credits count as minted, debits as burnt (clamped at zero). */
  walletMoved(address: string, delta: bigint): void {
    const balance = this.balanceOf(address);
    const next = balance + delta < 0n ? 0n : balance + delta;
    this.balances.set(address, next);
    this.minted += next - balance;
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

  private debit(address: string, amount: bigint): void {
    const balance = this.balanceOf(address);
    if (amount < 0n || balance < amount) throw new Error(`ledger: ${address} cannot pay ${amount}`);
    this.balances.set(address, balance - amount);
  }

  private adjustEscrow(address: string, marketHash: string, delta: bigint): void {
    let perMarket = this.escrow.get(address);
    if (!perMarket) this.escrow.set(address, (perMarket = new Map()));
    const next = (perMarket.get(marketHash) ?? 0n) + delta;
    if (next < 0n) throw new Error(`ledger: escrow of ${address} in ${marketHash} would go negative`);
    if (next === 0n) perMarket.delete(marketHash);
    else perMarket.set(marketHash, next);
  }

  /** Every balance and escrow, for snapshots. */
  exportState(): WalletsState {
    return {
      balances: [...this.balances],
      escrow: [...this.escrow].map(([address, perMarket]) => [address, [...perMarket]]),
      allowances: [...this.allowances],
      minted: this.minted,
    };
  }

  static fromState(state: WalletsState): LocalLedger {
    const ledger = new LocalLedger();
    for (const [address, amount] of state.balances) ledger.balances.set(address, amount);
    for (const [address, perMarket] of state.escrow) ledger.escrow.set(address, new Map(perMarket));
    for (const [address, amount] of state.allowances ?? []) ledger.allowances.set(address, amount);
    ledger.minted = state.minted;
    return ledger;
  }

  /** Sum of every balance and escrow: equals `minted` when funds are conserved. */
  total(): bigint {
    let sum = 0n;
    for (const b of this.balances.values()) sum += b;
    for (const perMarket of this.escrow.values()) for (const e of perMarket.values()) sum += e;
    return sum;
  }
}
