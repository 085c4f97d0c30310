// Response data of the operator routes, API keys and health checks.
import { Type } from '@sinclair/typebox';
import { IsoDate, Nullable } from './envelope.js';
import { Balance } from './trading.js';

export const ApiKeyCreated = Type.Object({
  id: Type.String(),
  apiKey: Type.String({ description: 'shown once; stored hashed' }),
  address: Type.String(),
});

export const ApiKeyRevoked = Type.Object({ id: Type.String(), revoked: Type.Boolean() });

/** A live key in its owner's listing: the key itself is never shown again. */
export const OwnedApiKey = Type.Object({ id: Type.String(), createdAt: IsoDate });

export const Account = Type.Composite([
  Balance,
  Type.Object({
    openOrders: Type.Integer(),
    restricted: Type.Boolean(),
    restrictedUntil: Nullable(IsoDate),
    recentShortfalls: Type.Array(IsoDate),
  }),
]);

export const Transfer = Type.Object({ from: Balance, to: Balance });

export const Live = Type.Object({ live: Type.Boolean() });
export const Ready = Type.Object({ ready: Type.Boolean() });

const Wei = Type.String({ description: 'wei' });

/** GET /admin/fees: fee revenue per UTC day and market. */
export const FeeRevenuePage = Type.Object({
  feeAccount: Type.String(),
  from: Type.String({ description: 'first UTC day' }),
  to: Type.String({ description: 'last UTC day, included' }),
  days: Type.Array(
    Type.Object({
      day: Type.String({ description: 'UTC day, YYYY-MM-DD' }),
      marketHash: Type.String(),
      fees: Wei,
      affiliateFees: Wei,
      feeAccountFees: Wei,
      charges: Type.Integer(),
    }),
  ),
  totals: Type.Object({ fees: Wei, affiliateFees: Wei, feeAccountFees: Wei }),
});
