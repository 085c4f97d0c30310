// Route reply schemas (`response` of a Fastify route) built from the wire envelope, which lives with the other
// wire schemas in src/protocol/wire (shared with the SDK); re-exported here for the routes.
import { Type, type TSchema } from '@sinclair/typebox';
import { FailureEnvelope, successEnvelope } from '../../protocol/wire/envelope.js';

export * from '../../protocol/wire/envelope.js';

/** The `response` of a route schema: 200 with `data`, any 4xx or 5xx as the failure envelope. */
export const responses = <T extends TSchema>(data: T, description?: string) => ({
  200: description ? { ...successEnvelope(data), description } : successEnvelope(data),
  '4xx': FailureEnvelope,
  '5xx': FailureEnvelope,
});

/**
 * Like `responses`, for routes whose data comes from renderers typed as plain records (the same objects feed the
 * realtime channels): the 200 schema is unchanged at run time (OpenAPI, /docs, test/openapi.test.ts), but the
 * handler's reply is typed as a success envelope with untyped data instead of the schema's shape.
 */
export const recordResponses = <T extends TSchema>(data: T, description?: string) => {
  const typed = responses(data, description);
  return { ...typed, 200: Type.Unsafe<{ status: 'success'; data: unknown }>(typed[200]) };
};

/** Replies outside the envelope (the realtime token is a bare `{token}`, as public clients read it). */
export const bareResponses = <T extends TSchema>(body: T) => ({ 200: body, '4xx': FailureEnvelope, '5xx': FailureEnvelope });
