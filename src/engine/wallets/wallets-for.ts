// Which wallets an engine runs on: the in-process ledger, or the mirror of an EVM chain's wallets.
import { ChainWallets } from './chain-wallets.js';
import { LocalLedger } from './local-ledger.js';
import type { Wallets, WalletsState } from './wallets.js';

/** Fresh wallets, or those a snapshot recorded. */
export function walletsFor(onChain: boolean, state?: WalletsState): Wallets {
  if (onChain) return state ? ChainWallets.fromState(state) : new ChainWallets();
  return state ? LocalLedger.fromState(state) : new LocalLedger();
}
