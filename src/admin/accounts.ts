// Operator view of an account: balances, exposure and any posting restriction, which the operator can lift.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../context.js';
import { ok } from '../api/envelope.js';
import { Address } from '../api/params.js';
import { balanceView } from '../api/balances.js';
import { submitToEngine } from '../api/engine-errors.js';
import { checksumAddress } from '../protocol/address.js';
import { responses } from '../api/schemas/envelope.js';
import { Account } from '../api/schemas/admin.js';

function accountView(ctx: AppContext, raw: string) {
  const address = checksumAddress(raw);
  const engine = ctx.trading.engine;
  const r = engine.restrictionOf(address);
  const now = ctx.now();
  return {
    ...balanceView(ctx, address),
    openOrders: engine.openOrdersOf(address).length,
    restricted: engine.isRestricted(address, now),
    restrictedUntil: r?.restrictedUntil != null && r.restrictedUntil > now ? new Date(r.restrictedUntil).toISOString() : null,
    recentShortfalls: (r?.shortfalls ?? []).filter((t) => t > now - ctx.config.restriction.windowMs).map((t) => new Date(t).toISOString()),
  };
}

export function registerAccountAdminRoutes(app: FastifyInstance, ctx: AppContext): void {
  const params = Type.Object({ address: Address });
  app.get('/admin/accounts/:address', { schema: { tags: ['admin'], params, response: responses(Account) } }, async (request) =>
    ok(accountView(ctx, (request.params as { address: string }).address)),
  );
  app.post('/admin/accounts/:address/lift-restriction', { schema: { tags: ['admin'], params, response: responses(Account) } }, async (request) => {
    const address = checksumAddress((request.params as { address: string }).address);
    await submitToEngine(ctx, { kind: 'liftRestriction', at: ctx.now(), address });
    return ok(accountView(ctx, address));
  });
}
