// Realtime connection tokens: for an API key (bare `{token}`), or for a wallet that signs a short sign-in text,
// so a browser page can follow its own channels (active_orders, ce_refunds) without an operator-issued key.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { authenticateKey, type ApiKeys } from '../admin/api-keys.js';
import type { RealtimeTokens } from '../realtime/tokens.js';
import { ok } from './envelope.js';
import { bareResponses, responses } from './schemas/envelope.js';
import { RealtimeToken } from './schemas/trading.js';
import { walletSignInText } from '../protocol/wallet-texts.js';
import { SignedByWallet, verifySignedText } from './signed-text.js';

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
        body: SignedByWallet,
        response: responses(RealtimeToken, 'a realtime token for the wallet'),
      },
    },
    async (request) => {
      const { address, timestamp } = request.body;
      const signer = verifySignedText(walletSignInText(address, timestamp), request.body, now());
      return ok({ token: await tokens.issue(signer) });
    },
  );
};
