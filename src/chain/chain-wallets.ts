// The engine's mirror of wallets on an EVM chain (ODDEX_CHAIN=evm). Balances and allowances are exactly what the
// chain's token events say, applied in log order from journaled commands; escrow per (bettor, market) is what our
// settlement contract holds for the engine's confirmed trades. Nothing here moves a wallet: settlement pulls stakes
// and pays out on chain, and the wallets follow when those transfers are seen.
import type { ChainExecution } from '../engine/types.js';
import type { Wallets, WalletsState } from '../engine/wallets.js';

const MAX_UINT256 = (1n << 256n) - 1n;

export class ChainWallets implements Wallets {
  readonly onChain = true;
  private readonly balances = new Map<string, bigint>();
  private readonly escrow = new Map<string, Map<string, bigint>>();
  /** Allowances for the transfer proxy; a wallet never seen approving has none. */
  private readonly allowances = new Map<string, bigint>();
  /** Tokens that reached wallets or escrow from outside (mints, transfers in from unknown wallets). */
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

  spendable(address: string): bigint {
    const balance = this.balanceOf(address);
    const allowance = this.allowances.get(address) ?? 0n;
    return allowance < balance ? allowance : balance;
  }

  total(): bigint {
    let sum = 0n;
    for (const b of this.balances.values()) sum += b;
    for (const perMarket of this.escrow.values()) for (const e of perMarket.values()) sum += e;
    return sum;
  }

  mint(): void {
    throw new Error('wallets live on chain: mint tokens with the token contract');
  }

  transfer(): void {
    throw new Error('wallets live on chain: wallets move their own funds');
  }

  executes(_owed: ReadonlyMap<string, bigint>, reported: ChainExecution | undefined): boolean {
    return reported?.executed ?? false;
  }

  hold(bettor: string, marketHash: string, stake: bigint): void {
    // The stake left the wallet in the transfer the settlement made (seen before its FillSettled event).
    this.adjustEscrow(bettor, marketHash, stake);
    this.minted += stake;
  }

  payOut(bettor: string, marketHash: string, fromEscrow: bigint): void {
    // The wallet is credited when the escrow's transfer to it is seen.
    this.adjustEscrow(bettor, marketHash, -fromEscrow);
    this.minted -= fromEscrow;
  }

  walletMoved(address: string, delta: bigint, allowanceSpent: bigint): void {
    const balance = this.balanceOf(address);
    // A debit beyond what we knew of is clamped (we may have started following mid-way).
    const next = balance + delta < 0n ? 0n : balance + delta;
    this.balances.set(address, next);
    this.minted += next - balance;
    const allowance = this.allowances.get(address);
    if (allowanceSpent > 0n && allowance !== undefined && allowance !== MAX_UINT256) {
      this.allowances.set(address, allowance > allowanceSpent ? allowance - allowanceSpent : 0n);
    }
  }

  approved(owner: string, amount: bigint): void {
    this.allowances.set(owner, amount);
  }

  private adjustEscrow(address: string, marketHash: string, delta: bigint): void {
    let perMarket = this.escrow.get(address);
    if (!perMarket) this.escrow.set(address, (perMarket = new Map()));
    const next = (perMarket.get(marketHash) ?? 0n) + delta;
    if (next < 0n) throw new Error(`escrow of ${address} in ${marketHash} would go negative`);
    if (next === 0n) perMarket.delete(marketHash);
    else perMarket.set(marketHash, next);
  }

  exportState(): WalletsState {
    return {
      balances: [...this.balances],
      escrow: [...this.escrow].map(([address, perMarket]) => [address, [...perMarket]]),
      allowances: [...this.allowances],
      minted: this.minted,
    };
  }

  static fromState(state: WalletsState): ChainWallets {
    const w = new ChainWallets();
    for (const [address, amount] of state.balances) w.balances.set(address, amount);
    for (const [address, perMarket] of state.escrow) w.escrow.set(address, new Map(perMarket));
    for (const [address, amount] of state.allowances ?? []) w.allowances.set(address, amount);
    w.minted = state.minted;
    return w;
  }
}
