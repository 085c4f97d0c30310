// Requests a wallet signs with personal_sign over a short text (realtime sign-in, API keys): the body they share
// and its one check, so each endpoint only says which text is expected.
import { Type } from '@sinclair/typebox';
import { ExchangeError } from '../protocol/errors.js';
import { checksumAddress, sameAddress } from '../protocol/address.js';
import { personalTextDigest } from '../protocol/hashing.js';
import { recoverSigner } from '../protocol/signatures.js';
import { Address } from './params.js';

/** How far a signed timestamp may be from server time, like the cancel endpoints' replay window. */
export const SIGNED_TEXT_WINDOW_SECONDS = 60;

export const SignedByWallet = Type.Object(
  {
    address: Address,
    timestamp: Type.Integer({ minimum: 0, description: `UNIX seconds, within ${SIGNED_TEXT_WINDOW_SECONDS} s of server time` }),
    signature: Type.String({ maxLength: 200, description: 'personal_sign of the signed text by the address' }),
  },
  { additionalProperties: false },
);

export interface SignedText {
  address: string;
  timestamp: number;
  signature: string;
}

/**
 * The checksummed address when `signature` is the address's personal_sign over `text` and the timestamp is within
 * the window of `nowMs`; else STALE_TIMESTAMP or SIGNATURE_MISMATCH. The timestamp bounds how long a signature seen
 * by someone else stays usable.
 */
export function verifySignedText(text: string, { address, timestamp, signature }: SignedText, nowMs: number): string {
  if (Math.abs(timestamp - Math.floor(nowMs / 1000)) > SIGNED_TEXT_WINDOW_SECONDS) {
    throw new ExchangeError('STALE_TIMESTAMP', `timestamp must be within ${SIGNED_TEXT_WINDOW_SECONDS} s of server time`);
  }
  const signer = recoverSigner(personalTextDigest(text), signature);
  if (!signer || !sameAddress(signer, address)) throw new ExchangeError('SIGNATURE_MISMATCH');
  return checksumAddress(address);
}
