// Balances, allowances and escrow per (address, market) as plain maps: the storage both implementations of the
// engine's Wallets share (the in-process ledger and the EVM mirror); they differ in how funds move.
import type { WalletsState } from './wallets.js';

export abstract class WalletBook {
  protected readonly balances = new Map<string, bigint>();
  protected readonly escrow = new Map<string, Map<string, bigint>>();
  /** Each address's escrow over all markets, kept with every change: a balance record reads it per command. */
  private readonly escrowTotals = new Map<string, bigint>();
  protected readonly allowances = new Map<string, bigint>();
  /** Everything that reached wallets or escrow: the sum of all balances and escrow always equals it. */
  minted = 0n;

  balanceOf(address: string): bigint {
    return this.balances.get(address) ?? 0n;
  }

  escrowOf(address: string): bigint {
    return this.escrowTotals.get(address) ?? 0n;
  }

  escrowIn(address: string, marketHash: string): bigint {
    return this.escrow.get(address)?.get(marketHash) ?? 0n;
  }

  holders(): Iterable<string> {
    return new Set([...this.balances.keys(), ...this.escrowTotals.keys()]);
  }

  /** Sum of every balance and escrow: equals `minted` when funds are conserved. */
  total(): bigint {
    let sum = 0n;
    for (const b of this.balances.values()) sum += b;
    for (const perMarket of this.escrow.values()) for (const e of perMarket.values()) sum += e;
    return sum;
  }

  /** A balance moved by `delta` from outside (clamped at zero: we may have started following mid-way). */
  protected moveBalance(address: string, delta: bigint): void {
    const balance = this.balanceOf(address);
    const next = balance + delta < 0n ? 0n : balance + delta;
    this.balances.set(address, next);
    this.minted += next - balance;
  }

  protected adjustEscrow(address: string, marketHash: string, delta: bigint): void {
    let perMarket = this.escrow.get(address);
    if (!perMarket) this.escrow.set(address, (perMarket = new Map()));
    const next = (perMarket.get(marketHash) ?? 0n) + delta;
    if (next < 0n) throw new Error(`escrow of ${address} in ${marketHash} would go negative`);
    if (next === 0n) perMarket.delete(marketHash);
    else perMarket.set(marketHash, next);
    this.addToEscrowTotal(address, delta);
  }

  private addToEscrowTotal(address: string, delta: bigint): void {
    const total = (this.escrowTotals.get(address) ?? 0n) + delta;
    if (total === 0n) this.escrowTotals.delete(address);
    else this.escrowTotals.set(address, total);
  }

  /** Every balance, escrow and allowance, for snapshots. */
  exportState(): WalletsState {
    return {
      balances: [...this.balances],
      escrow: [...this.escrow].map(([address, perMarket]) => [address, [...perMarket]]),
      allowances: [...this.allowances],
      minted: this.minted,
    };
  }

  protected load(state: WalletsState): this {
    for (const [address, amount] of state.balances) this.balances.set(address, amount);
    for (const [address, perMarket] of state.escrow) {
      this.escrow.set(address, new Map(perMarket));
      for (const [, amount] of perMarket) this.addToEscrowTotal(address, amount);
    }
    for (const [address, amount] of state.allowances ?? []) this.allowances.set(address, amount);
    this.minted = state.minted;
    return this;
  }
}
