// Who signs for the client: a raw private key (signed here, no wallet needed) or any viem-compatible account
// (a viem LocalAccount, or a browser wallet adapted to the same two methods).
import { hashTypedData, type TypeDefinitions, type TypedDataDomain } from '../../../src/protocol/typed-data.js';
import { hexToBytes } from '@noble/hashes/utils.js';
import { personalBytesDigest } from '../../../src/protocol/hashing.js';
import { checksumAddress } from '../../../src/protocol/address.js';
import { addressOf, signDigest, type PrivateKey } from '../../../src/protocol/signing.js';

export type Hex = `0x${string}`;

/** An EIP-712 domain as wallets take it (hex strings typed as such). */
export interface TypedDataDomainToSign extends TypedDataDomain {
  verifyingContract?: Hex;
  salt?: Hex;
}

export interface TypedDataToSign {
  domain: TypedDataDomainToSign;
  types: TypeDefinitions;
  primaryType: string;
  message: Record<string, unknown>;
}

/** The two signing methods the client needs, shaped like viem's account methods. */
export interface AccountLike {
  readonly address: string;
  /** EIP-191 personal_sign over raw bytes: the 32-byte order hash, or the UTF-8 bytes of a text (API keys). */
  signMessage(args: { message: { raw: Hex } }): Promise<string>;
  /** EIP-712 typed data (fills and cancels). */
  signTypedData(args: TypedDataToSign): Promise<string>;
}

/** A private key (`0x` + 64 hex) or an account. */
export type SignerInput = PrivateKey | AccountLike;

/** An account that signs with a raw private key in process (pure JavaScript, works in browsers too). */
export function privateKeyAccount(key: PrivateKey): AccountLike {
  const address = addressOf(key);
  return {
    address,
    signMessage: async ({ message }) => signDigest(personalBytesDigest(hexToBytes(message.raw.slice(2))), key),
    signTypedData: async ({ domain, types, primaryType, message }) =>
      signDigest(hashTypedData(domain, types, primaryType, message), key),
  };
}

export function toAccount(input: SignerInput): AccountLike {
  if (typeof input === 'string' || input instanceof Uint8Array) return privateKeyAccount(input);
  // A wallet adapter may report a lower-case address; the exchange answers with checksummed ones.
  return {
    address: checksumAddress(input.address),
    signMessage: (args) => input.signMessage(args),
    signTypedData: (args) => input.signTypedData(args),
  };
}
