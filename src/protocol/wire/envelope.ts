// The wire envelope (DECISIONS.md): `{status:"success", data}` around each route's data, the one failure shape
// every error reply shares, and the scalar encodings the records use (wei and odds as decimal strings). Pure
// schemas, shared by the server (src/api/schemas/envelope.ts builds route replies from them) and the SDK (types
// only). They document replies (OpenAPI, /docs); the app serializes with JSON.stringify (app.ts), so a field
// missing here is never dropped from a reply, and test/openapi.test.ts checks real replies against these schemas
// with no unlisted field allowed.
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

export const WeiString = Type.String({ pattern: '^[0-9]+$', description: 'base-token wei, decimal string' });
export const OddsString = Type.String({ pattern: '^[0-9]+$', description: 'percentage odds, 10^20 = 100%' });
export const HumanAmount = Type.String({ description: 'base-token units, exact decimal (e.g. "12.5")' });
export const IsoDate = Type.String({ description: 'ISO 8601 UTC' });
export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
