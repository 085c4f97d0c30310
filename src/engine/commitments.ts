// What accounts hold and what trading has committed of it: the wallets (injected: the in-process ledger or a chain's
// mirror), open-order exposure, pending taker stakes, and the restrictions repeated shortfalls earn.
// Invariants: conservation of funds (the wallets' balances plus escrow always sum to what was minted); an account's
// exposure is the sum of its orders' orderExposure and its pending taker stake the sum of its pending fills' stakes,
// and while it is not restricted by a shortfall, both together fit in what it may spend (freeBalance >= 0).
import type { AccountRestriction, EngineParams } from './types.js';
import type { ChangeLog } from './change-log.js';
import type { Wallets, WalletsState } from './wallets/wallets.js';

export interface CommitmentsState {
  ledger: WalletsState;
  restrictions: AccountRestriction[];
  exposure: [string, bigint][];
  pendingTakerStake: [string, bigint][];
}

type RestrictionParams = Pick<EngineParams, 'restrictionWindowMs' | 'restrictionThreshold' | 'restrictionMs'>;

const addTo = (map: Map<string, bigint>, key: string, delta: bigint) => {
  const next = (map.get(key) ?? 0n) + delta;
  if (next === 0n) map.delete(key);
  else map.set(key, next);
};

const copyRestriction = (r: AccountRestriction): AccountRestriction => ({ ...r, shortfalls: [...r.shortfalls] });

export class Commitments {
  private readonly exposure = new Map<string, bigint>();
  private readonly pendingTakerStake = new Map<string, bigint>();
  private readonly restrictions = new Map<string, AccountRestriction>();

  constructor(
    /** Balances, allowances and escrow: the settlement chain's side (see wallets/wallets.ts). */
    readonly wallets: Wallets,
    private readonly params: RestrictionParams,
  ) {}

  exposureOf(address: string): bigint {
    return this.exposure.get(address) ?? 0n;
  }

  pendingTakerStakeOf(address: string): bigint {
    return this.pendingTakerStake.get(address) ?? 0n;
  }

  /** Wallet balance not yet committed to open orders or pending taker stakes. */
  freeBalance(address: string): bigint {
    return this.wallets.spendable(address) - this.exposureOf(address) - this.pendingTakerStakeOf(address);
  }

  /**
   * What a taker may stake: the wallet balance less its pending taker stakes. Its open orders do not hold it back; they
   * leave the book afterwards if the balance no longer covers them (OrderLifecycle.enforceExposure).
   */
  takerFunds(address: string): bigint {
    return this.wallets.spendable(address) - this.pendingTakerStakeOf(address);
  }

  addExposure(address: string, delta: bigint): void {
    addTo(this.exposure, address, delta);
  }

  addPendingTakerStake(address: string, delta: bigint): void {
    addTo(this.pendingTakerStake, address, delta);
  }

  /** Every address with funds or commitments: those whose balance record is not all zeros. */
  holders(): Set<string> {
    return new Set([...this.wallets.holders(), ...this.exposure.keys(), ...this.pendingTakerStake.keys()]);
  }

  /** An account's balance record, as the change log and balance reads give it. */
  emitBalance(log: ChangeLog, address: string): void {
    log.emit({
      type: 'balanceChanged',
      address,
      balance: this.wallets.balanceOf(address),
      escrowed: this.wallets.escrowOf(address),
      openExposure: this.exposureOf(address),
      pendingTakerStake: this.pendingTakerStakeOf(address),
    });
  }

  isRestricted(address: string, at: number): boolean {
    const until = this.restrictions.get(address)?.restrictedUntil;
    return until != null && until > at;
  }

  restrictionOf(address: string): AccountRestriction | undefined {
    const r = this.restrictions.get(address);
    return r && copyRestriction(r);
  }

  get restrictionCount(): number {
    return this.restrictions.size;
  }

  /**
   * Repeated shortfalls within the window restrict the account from posting for a while. Each one is a change record,
   * so the operator's view of an account reads its shortfalls from the read side.
   */
  recordShortfall(log: ChangeLog, address: string, at: number): void {
    const p = this.params;
    const r = this.restrictions.get(address) ?? { address, shortfalls: [], restrictedUntil: null };
    r.shortfalls = [...r.shortfalls.filter((t) => t > at - p.restrictionWindowMs), at];
    if (r.shortfalls.length >= p.restrictionThreshold) r.restrictedUntil = at + p.restrictionMs;
    this.restrictions.set(address, r);
    log.emit({ type: 'restrictionChanged', address, restrictedUntil: r.restrictedUntil, shortfalls: [...r.shortfalls] });
  }

  liftRestriction(log: ChangeLog, address: string): void {
    if (this.restrictions.delete(address)) log.emit({ type: 'restrictionChanged', address, restrictedUntil: null, shortfalls: [] });
  }

  snapshot(): CommitmentsState {
    return {
      ledger: this.wallets.exportState(),
      restrictions: [...this.restrictions.values()].map(copyRestriction),
      exposure: [...this.exposure],
      pendingTakerStake: [...this.pendingTakerStake],
    };
  }

  static from(wallets: Wallets, params: RestrictionParams, state: Omit<CommitmentsState, 'ledger'>): Commitments {
    const c = new Commitments(wallets, params);
    for (const r of state.restrictions) c.restrictions.set(r.address, copyRestriction(r));
    for (const [a, v] of state.exposure) c.exposure.set(a, v);
    for (const [a, v] of state.pendingTakerStake) c.pendingTakerStake.set(a, v);
    return c;
  }
}
