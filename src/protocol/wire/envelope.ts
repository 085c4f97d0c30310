// Response schemas of the wire envelope (DECISIONS.md): `{status:"success", data}` around each route's data, and
// the one failure shape every error reply shares. They document replies (OpenAPI, /docs); the app serializes
// with JSON.stringify (app.ts), so a field missing here is never dropped from a reply, and
// test/openapi.test.ts checks real replies against these schemas with no unlisted field allowed.
import { Type, type TSchema } from '@sinclair/typebox';

export const FailureEnvelope = Type.Object(
  {
    status: Type.Literal('failure'),
    // The codes are listed once, in info.description (src/api/errors.ts), not as an enum here: this schema is
    // inlined in every operation's 4xx and 5xx replies, and the enum would double the document's size.
    errorCode: Type.String({
      description: 'UPPER_SNAKE error code: the table in the API description gives each its HTTP status',
      examples: ['INVALID_PARAMETER'],
    }),
    message: Type.String(),
    details: Type.Optional(
      Type.Array(Type.Object({ field: Type.String(), rule: Type.String(), message: Type.String() }), {
        description: 'validation failures: which field, which rule',
      }),
    ),
  },
  { description: 'Failure envelope (4xx for bad input, 429 with Retry-After, 503 not ready)' },
);

export const successEnvelope = <T extends TSchema>(data: T) =>
  Type.Object({ status: Type.Literal('success'), data }, { description: 'Success envelope' });

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

export const WeiString = Type.String({ pattern: '^[0-9]+$', description: 'base-token wei, decimal string' });
export const OddsString = Type.String({ pattern: '^[0-9]+$', description: 'percentage odds, 10^20 = 100%' });
export const HumanAmount = Type.String({ description: 'base-token units, exact decimal (e.g. "12.5")' });
export const IsoDate = Type.String({ description: 'ISO 8601 UTC' });
export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
