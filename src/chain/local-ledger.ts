// The default chain: an in-process ERC-20-like ledger of the base token. Deterministic, driven by engine commands.
// Free balances per address, plus escrow per (address, market) for bets waiting on their market's outcome.

const MAX_UINT256 = (1n << 256n) - 1n;

export class LocalLedger {
  private readonly balances = new Map<string, bigint>();
  private readonly escrow = new Map<string, Map<string, bigint>>();
  /** Each address's escrow over all markets, kept with every change: a balance record reads it per command. */
  private readonly escrowTotals = new Map<string, bigint>();
  /** Allowances for the transfer proxy, tracked only when balances live on a chain (absent: unlimited). */
  private readonly allowances = new Map<string, bigint>();
  /** Everything ever minted: the sum of all balances and escrow always equals it. */
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

  /** What fills may take from a wallet: its balance, capped by its allowance where one is tracked. */
  spendable(address: string): bigint {
    const balance = this.balanceOf(address);
    const allowance = this.allowances.get(address);
    return allowance !== undefined && allowance < balance ? allowance : balance;
  }

  setAllowance(address: string, amount: bigint): void {
    this.allowances.set(address, amount);
  }

  /** A fill spent part of the allowance (an ERC-20 leaves a maximal allowance untouched). */
  spendAllowance(address: string, amount: bigint): void {
    const allowance = this.allowances.get(address);
    if (allowance === undefined || allowance === MAX_UINT256) return;
    this.allowances.set(address, allowance > amount ? allowance - amount : 0n);
  }

  /**
   * A wallet's balance as the chain moved it outside our settlement: credits count as minted, debits as burnt.
   * A debit larger than what we knew of is clamped at zero (we may have started following mid-way).
   */
  applyChainDelta(address: string, delta: bigint): void {
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
  lock(address: string, marketHash: string, amount: bigint): void {
    this.debit(address, amount);
    this.adjustEscrow(address, marketHash, amount);
  }

  /** Takes `fromEscrow` out of the address's escrow in the market and credits `toBalance` (settlement, refunds). */
  release(address: string, marketHash: string, fromEscrow: bigint, toBalance: bigint): void {
    this.adjustEscrow(address, marketHash, -fromEscrow);
    this.balances.set(address, this.balanceOf(address) + toBalance);
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
    const total = (this.escrowTotals.get(address) ?? 0n) + delta;
    if (total === 0n) this.escrowTotals.delete(address);
    else this.escrowTotals.set(address, total);
  }

  /** Every balance and escrow, for snapshots. */
  exportState(): { balances: [string, bigint][]; escrow: [string, [string, bigint][]][]; allowances?: [string, bigint][]; minted: bigint } {
    return {
      balances: [...this.balances],
      escrow: [...this.escrow].map(([address, perMarket]) => [address, [...perMarket]]),
      allowances: [...this.allowances],
      minted: this.minted,
    };
  }

  static fromState(state: ReturnType<LocalLedger['exportState']>): LocalLedger {
    const ledger = new LocalLedger();
    for (const [address, amount] of state.balances) ledger.balances.set(address, amount);
    for (const [address, perMarket] of state.escrow) {
      ledger.escrow.set(address, new Map(perMarket));
      let total = 0n;
      for (const [, amount] of perMarket) total += amount;
      if (total !== 0n) ledger.escrowTotals.set(address, total);
    }
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
