// Self-service API keys: a wallet creates, lists and revokes the keys of its own address by signing a short text
// (personal_sign), so a bot author needs no operator for a heartbeat or a realtime session.
// All three are POST: the signature travels in a JSON body, never in a URL (URLs end up in logs and caches), and a
// listing is as much a signed request as the others.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Config } from '../config.js';
import type { ApiKeys } from '../admin/api-keys.js';
import { ok } from './envelope.js';
import { ExchangeError } from '../protocol/errors.js';
import { apiKeyText } from '../protocol/wallet-texts.js';
import { responses } from './schemas/envelope.js';
import { ApiKeyCreated, ApiKeyRevoked, OwnedApiKey } from './schemas/admin.js';
import { SignedByWallet, SIGNED_TEXT_WINDOW_SECONDS, verifySignedText } from './signed-text.js';

export interface UserApiKeyDeps {
  apiKeys: Pick<ApiKeys, 'create' | 'liveOf' | 'revoke'>;
  config: Pick<Config, 'userApiKeysPerAddress'>;
  now: () => number;
  /** Ends the realtime sessions opened with a key (by its id); returns how many. */
  disconnectKey: (keyId: string) => number;
}

const signs = (text: string) =>
  `The wallet signs (personal_sign) the text "${text}\\naddress: <checksummed address>\\ntimestamp: <UNIX seconds>", ` +
  `the timestamp within ${SIGNED_TEXT_WINDOW_SECONDS} s of server time (else 400 STALE_TIMESTAMP; another signer or text: 403 SIGNATURE_MISMATCH). `;

/** Operator-issued keys of the address are included: a key acts for its address, so its owner may see and end it. */
const OWNED = 'Every live key of the address counts, whether the wallet or the operator issued it. ';

export const userApiKeyRoutes: FastifyPluginAsyncTypebox<UserApiKeyDeps> = async (app, { apiKeys, config, now, disconnectKey }) => {
  app.post(
    '/user/api-keys',
    {
      schema: {
        tags: ['user'],
        description:
          'Issues an API key for the signing wallet\'s address (shown once; use it as X-Api-Key for POST /heartbeat and ' +
          'realtime tokens). ' + signs('Oddex API key') + OWNED +
          `An address holding ODDEX_USER_API_KEYS_PER_ADDRESS live keys (default 5) is refused with 409 API_KEY_LIMIT_REACHED.`,
        body: SignedByWallet,
        response: responses(ApiKeyCreated, 'the new key, its id and address'),
      },
    },
    async (request) => {
      const { address, timestamp } = request.body;
      const owner = verifySignedText(apiKeyText({ kind: 'create' }, address, timestamp), request.body, now());
      const limit = config.userApiKeysPerAddress;
      const created = await apiKeys.create(owner, new Date(now()).toISOString(), (live) => {
        if (live.length >= limit) {
          throw new ExchangeError('API_KEY_LIMIT_REACHED', `${owner} holds ${limit} live API keys, the most an address may; revoke one first`);
        }
      });
      return ok(created);
    },
  );

  app.post(
    '/user/api-keys/list',
    {
      schema: {
        tags: ['user'],
        description:
          'The live API keys of the signing wallet\'s address, oldest first (ids and creation times; keys are stored ' +
          'hashed and never shown again). A POST because it is signed like the others. ' + signs('Oddex API key\\naction: list') + OWNED,
        body: SignedByWallet,
        response: responses(Type.Array(OwnedApiKey), 'the live keys of the address'),
      },
    },
    async (request) => {
      const { address, timestamp } = request.body;
      const owner = verifySignedText(apiKeyText({ kind: 'list' }, address, timestamp), request.body, now());
      return ok(apiKeys.liveOf(owner));
    },
  );

  app.post(
    '/user/api-keys/:id/revoke',
    {
      schema: {
        tags: ['user'],
        description:
          'Revokes one live API key of the signing wallet\'s address; its realtime sessions end at once. ' +
          signs('Oddex API key\\naction: revoke <id>') + OWNED +
          'A key of another address, or one already revoked, answers 404 API_KEY_NOT_FOUND.',
        params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
        body: SignedByWallet,
        response: responses(ApiKeyRevoked, 'the key is revoked'),
      },
    },
    async (request) => {
      const { id } = request.params;
      const { address, timestamp } = request.body;
      const owner = verifySignedText(apiKeyText({ kind: 'revoke', id }, address, timestamp), request.body, now());
      // Another address's key is "not found" too: a wallet learns nothing about keys it does not own.
      if (!(await apiKeys.revoke(id, new Date(now()).toISOString(), owner))) {
        throw new ExchangeError('API_KEY_NOT_FOUND', `no live API key ${id} of ${owner}`);
      }
      disconnectKey(id);
      return ok({ id, revoked: true });
    },
  );
};
