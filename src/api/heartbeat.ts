// POST /heartbeat: cancel-on-disconnect for a maker, authenticated by an API key of that maker.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Config } from '../config.js';
import { ok } from './envelope.js';
import { ExchangeError, invalidField } from '../protocol/errors.js';
import { Address } from './params.js';
import { authenticateApiKey, type ApiKeys } from '../admin/api-keys.js';
import { checksumAddress, sameAddress } from '../protocol/address.js';
import { responses } from './schemas/envelope.js';
import { Heartbeat } from './schemas/trading.js';
import type { SequencerPort } from '../sequencer/port.js';

const HeartbeatBody = Type.Object(
  { requestor: Address, timeoutSeconds: Type.Integer() },
  { additionalProperties: false },
);

export interface HeartbeatDeps {
  apiKeys: Pick<ApiKeys, 'keyOf'>;
  trading: Pick<SequencerPort, 'submit'>;
  config: Pick<Config, 'heartbeatMaxSeconds'>;
  now: () => number;
}

export const heartbeatRoutes: FastifyPluginAsyncTypebox<HeartbeatDeps> = async (app, { apiKeys, trading, config, now }) => {
  app.post(
    '/heartbeat',
    {
      schema: {
        tags: ['orders'],
        description:
          'Registers or refreshes cancel-on-disconnect: if no heartbeat arrives within timeoutSeconds, the open orders ' +
          'of requestor are cancelled. timeoutSeconds 0 deactivates it (orders stay); expiresAt is then the ISO 8601 ' +
          'time of the deactivation, never null.',
        body: HeartbeatBody,
        security: [{ apiKey: [] }],
        response: responses(Heartbeat),
      },
    },
    async (request) => {
      const owner = authenticateApiKey(apiKeys, request);
      const b = request.body;
      if (!sameAddress(owner, b.requestor)) {
        throw new ExchangeError('API_KEY_ADDRESS_MISMATCH');
      }
      const max = config.heartbeatMaxSeconds;
      if (b.timeoutSeconds < 0 || b.timeoutSeconds > max) {
        throw invalidField('timeoutSeconds', b.timeoutSeconds < 0 ? 'minimum' : 'maximum', `timeoutSeconds must be 0 (deactivate) or 1 to ${max}`, 'INVALID_TIMEOUT');
      }
      const at = now();
      const result = await trading.submit({
        kind: 'heartbeat',
        at,
        requestor: checksumAddress(b.requestor),
        timeoutSeconds: b.timeoutSeconds,
      });
      const hb = result.heartbeat;
      return ok({
        requestor: hb.requestor,
        timeoutSeconds: hb.timeoutSeconds,
        // Deactivation reports the moment it took effect: expiresAt is always an ISO 8601 string.
        expiresAt: new Date(hb.expiresAt ?? at).toISOString(),
      });
    },
  );
};
