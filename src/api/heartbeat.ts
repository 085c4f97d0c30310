// POST /heartbeat: cancel-on-disconnect for a maker, authenticated by an API key of that maker.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { AppContext } from '../context.js';
import { ApiError, badRequest, ok } from './envelope.js';
import { Address } from './params.js';
import { authenticateApiKey } from '../admin/api-keys.js';
import { checksumAddress, sameAddress } from '../protocol/address.js';
import { submitToEngine } from './engine-errors.js';
import { responses } from './schemas/envelope.js';
import { Heartbeat } from './schemas/trading.js';

const HeartbeatBody = Type.Object(
  { requestor: Address, timeoutSeconds: Type.Integer() },
  { additionalProperties: false },
);

export function registerHeartbeatRoutes(app: FastifyInstance, ctx: AppContext): void {
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
      const owner = authenticateApiKey(ctx, request);
      const b = request.body as Static<typeof HeartbeatBody>;
      if (!sameAddress(owner, b.requestor)) {
        throw new ApiError(403, 'API_KEY_ADDRESS_MISMATCH', 'the API key belongs to another address than requestor');
      }
      const max = ctx.config.heartbeatMaxSeconds;
      if (b.timeoutSeconds < 0 || b.timeoutSeconds > max) {
        throw badRequest('INVALID_TIMEOUT', `timeoutSeconds must be 0 (deactivate) or 1 to ${max}`);
      }
      const at = ctx.now();
      const result = await submitToEngine(ctx, {
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
}
