// The texts a wallet signs (personal_sign) to act on the exchange without an API key. Each names what it is for,
// so a signature made for one action is never valid for another. Pure: the server checks them, the SDK signs them.
import { checksumAddress } from './address.js';

/** Obtain a realtime token for the address (POST /user/realtime-token/wallet). */
export const walletSignInText = (address: string, timestamp: number): string =>
  `Oddex realtime sign-in\naddress: ${checksumAddress(address)}\ntimestamp: ${timestamp}`;

/**
 * What a wallet does with its API keys. `create` signs the shorter text without an `action:` line (POST
 * /user/api-keys); the other actions add one, so the create text matches neither of them and they match each other
 * only for the same action on the same key.
 */
export type ApiKeyAction = { kind: 'create' } | { kind: 'list' } | { kind: 'revoke'; id: string };

export function apiKeyText(action: ApiKeyAction, address: string, timestamp: number): string {
  const line = action.kind === 'create' ? '' : `action: ${action.kind === 'list' ? 'list' : `revoke ${action.id}`}\n`;
  return `Oddex API key\n${line}address: ${checksumAddress(address)}\ntimestamp: ${timestamp}`;
}
