// The page's wallet: a browser wallet through EIP-1193 when one is injected, else a development wallet whose
// private key is generated and kept in this browser's localStorage (for demos and tests; never for real funds).
import { createWalletClient, custom, type EIP1193Provider, type Hex, type SignableMessage, type TypedDataDefinition } from 'viem';
import type { AccountLike, TypedDataToSign } from '@oddex/sdk';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';

export type WalletKind = 'injected' | 'development';

/** The typed client's account shape (viem's): personal_sign of a text or raw bytes, and EIP-712 typed data. */
export interface Wallet extends AccountLike {
  kind: WalletKind;
  address: Hex;
  signMessage(args: { message: SignableMessage }): Promise<Hex>;
  signTypedData(args: TypedDataToSign): Promise<Hex>;
}

/** The client's typed data is what viem signs; its types are declared loosely, hence the cast. */
const asViemTypedData = (data: TypedDataToSign) => data as unknown as TypedDataDefinition;

const DEV_KEY_STORAGE = 'oddex.developmentWallet.privateKey';

declare global {
  interface Window {
    ethereum?: EIP1193Provider;
  }
}

export const hasInjectedProvider = () => typeof window !== 'undefined' && window.ethereum !== undefined;

export function developmentWallet(): Wallet {
  let key = localStorage.getItem(DEV_KEY_STORAGE) as Hex | null;
  if (!key || !/^0x[0-9a-fA-F]{64}$/.test(key)) {
    key = generatePrivateKey();
    localStorage.setItem(DEV_KEY_STORAGE, key);
  }
  const account = privateKeyToAccount(key);
  return {
    kind: 'development',
    address: account.address,
    signMessage: ({ message }) => account.signMessage({ message }),
    signTypedData: (data) => account.signTypedData(asViemTypedData(data)),
  };
}

/** Forgets the development key: the next wallet is a new, empty one. */
export function resetDevelopmentWallet(): void {
  localStorage.removeItem(DEV_KEY_STORAGE);
}

/** Asks the injected provider for an account (the extension shows its own prompt). */
export async function injectedWallet(): Promise<Wallet> {
  const provider = window.ethereum;
  if (!provider) throw new Error('no browser wallet found');
  const client = createWalletClient({ transport: custom(provider) });
  const [address] = await client.requestAddresses();
  if (!address) throw new Error('the browser wallet shared no account');
  return {
    kind: 'injected',
    address,
    signMessage: ({ message }) => client.signMessage({ account: address, message }),
    signTypedData: (data) => client.signTypedData({ account: address, ...asViemTypedData(data) }),
  };
}
