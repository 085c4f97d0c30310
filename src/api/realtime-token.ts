// Realtime connection tokens: for an API key (bare `{token}`), or for a wallet that signs a short sign-in text,
// so a browser page can follow its own channels (active_orders, ce_refunds) without an operator-issued key.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { authenticateKey, type ApiKeys } from '../admin/api-keys.js';
import type { RealtimeTokens } from '../realtime/tokens.js';
import { ok } from './envelope.js';
import { ExchangeError } from '../protocol/errors.js';
import { Address } from './params.js';
import { bareResponses, responses } from './schemas/envelope.js';
import { RealtimeToken } from './schemas/trading.js';
import { checksumAddress, sameAddress } from '../protocol/address.js';
import { personalTextDigest } from '../protocol/hashing.js';
import { recoverSigner } from '../protocol/signatures.js';

/** How far a sign-in timestamp may be from server time, like the cancel endpoints' replay window. */
const SIGN_IN_WINDOW_SECONDS = 60;

/** The text a wallet signs (personal_sign) to obtain a realtime token for its address. */
export const walletSignInText = (address: string, timestamp: number): string =>
  `Oddex realtime sign-in\naddress: ${checksumAddress(address)}\ntimestamp: ${timestamp}`;

const WalletSignIn = Type.Object(
  {
    address: Address,
    timestamp: Type.Integer({ minimum: 0, description: 'UNIX seconds, within 60 s of server time' }),
    signature: Type.String({ maxLength: 200, description: 'personal_sign of the sign-in text by the address' }),
  },
  { additionalProperties: false },
);

export interface RealtimeTokenDeps {
  apiKeys: Pick<ApiKeys, 'keyOf'>;
  /** The same issuer the WebSocket server verifies with. */
  tokens: Pick<RealtimeTokens, 'issue'>;
  now: () => number;
}

export const realtimeTokenRoutes: FastifyPluginAsyncTypebox<RealtimeTokenDeps> = async (app, { apiKeys, tokens, now }) => {
  app.get(
    '/user/realtime-token/api-key',
    {
      schema: {
        tags: ['realtime'],
        security: [{ apiKey: [] }],
        description: 'A token for the realtime WebSocket: an HS256 JWT whose `sub` is the API key address and `key` the API key id (revoking the key ends its sessions).',
        response: bareResponses(RealtimeToken),
      },
    },
    async (request) => {
      const key = authenticateKey(apiKeys, request);
      return { token: await tokens.issue(key.address, key.id) };
    },
  );

  app.post(
    '/user/realtime-token/wallet',
    {
      schema: {
        tags: ['realtime'],
        description:
          'A realtime token for a wallet, without an API key: the wallet signs (personal_sign) the text ' +
          '"Oddex realtime sign-in\\naddress: <checksummed address>\\ntimestamp: <UNIX seconds>".',
        body: WalletSignIn,
        response: responses(RealtimeToken, 'a realtime token for the wallet'),
      },
    },
    async (request) => {
      const { address, timestamp, signature } = request.body;
      if (Math.abs(timestamp - Math.floor(now() / 1000)) > SIGN_IN_WINDOW_SECONDS) {
        throw new ExchangeError('STALE_TIMESTAMP', `timestamp must be within ${SIGN_IN_WINDOW_SECONDS} s of server time`);
      }
      const signer = recoverSigner(personalTextDigest(walletSignInText(address, timestamp)), signature);
      if (!signer || !sameAddress(signer, address)) {
        throw new ExchangeError('SIGNATURE_MISMATCH');
      }
      return ok({ token: await tokens.issue(checksumAddress(address)) });
    },
  );
};
