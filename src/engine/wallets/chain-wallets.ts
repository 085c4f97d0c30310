// The engine's mirror of wallets on an EVM chain (ODDEX_CHAIN=evm). Balances and allowances are exactly what the
// chain's token events say, applied in log order from journaled commands; escrow per (bettor, market) is what our
// settlement contract holds for the engine's confirmed trades. Nothing here moves a wallet: settlement pulls stakes
// and pays out on chain, and the wallets follow when those transfers are seen.
import type { ChainExecution } from '../types.js';
import type { Wallets, WalletsState } from './wallets.js';
import { WalletBook } from './wallet-book.js';

const MAX_UINT256 = (1n << 256n) - 1n;

export class ChainWallets extends WalletBook implements Wallets {
  readonly onChain = true;

  /** The balance capped by the allowance for the transfer proxy; a wallet never seen approving has none. */
  spendable(address: string): bigint {
    const balance = this.balanceOf(address);
    const allowance = this.allowances.get(address) ?? 0n;
    return allowance < balance ? allowance : balance;
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

  credit(): void {
    // The wallet is credited when the settlement contract's transfer to it is seen.
  }

  walletMoved(address: string, delta: bigint, allowanceSpent: bigint): void {
    this.moveBalance(address, delta);
    const allowance = this.allowances.get(address);
    if (allowanceSpent > 0n && allowance !== undefined && allowance !== MAX_UINT256) {
      this.allowances.set(address, allowance > allowanceSpent ? allowance - allowanceSpent : 0n);
    }
  }

  approved(owner: string, amount: bigint): void {
    this.allowances.set(owner, amount);
  }

  static fromState(state: WalletsState): ChainWallets {
    return new ChainWallets().load(state);
  }
}
