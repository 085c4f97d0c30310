// GET /user/realtime-token/api-key: a realtime connection token for the API key's address (bare `{token}`).
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../context.js';
import { authenticateKey } from '../admin/api-keys.js';
import { RealtimeTokens } from '../realtime/tokens.js';

export function registerRealtimeTokenRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get(
    '/user/realtime-token/api-key',
    {
      schema: {
        tags: ['realtime'],
        security: [{ apiKey: [] }],
        description: 'A token for the realtime WebSocket: an HS256 JWT whose `sub` is the API key address and `key` the API key id (revoking the key ends its sessions).',
        response: { 200: Type.Object({ token: Type.String() }) },
      },
    },
    async (request) => {
      const key = authenticateKey(ctx, request);
      return { token: await RealtimeTokens.of(ctx).issue(key.address, key.id) };
    },
  );
}
