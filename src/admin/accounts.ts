// Operator view of an account: balances, exposure and any posting restriction, which the operator can lift.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Config } from '../config.js';
import { ok } from '../api/envelope.js';
import { Address } from '../api/params.js';
import { balanceAfterWrite, balanceView, type BalanceDeps } from '../api/balances.js';
import { checksumAddress } from '../protocol/address.js';
import { responses } from '../api/schemas/envelope.js';
import { Account } from '../api/schemas/admin.js';
import type { SequencerPort } from '../sequencer/port.js';
import type { ReadModels } from '../store/ports.js';

export interface AccountAdminDeps extends Omit<BalanceDeps, 'readModels'> {
  readModels: BalanceDeps['readModels'] & Pick<ReadModels, 'orders' | 'restrictions'>;
  trading: Pick<SequencerPort, 'liveEngine' | 'balancesAfterWrite' | 'submit'>;
  config: BalanceDeps['config'] & Pick<Config, 'restriction'>;
  now: () => number;
}

/** Balances, open orders and restriction from the read side, or right after a write from the sequencer (`afterWrite`). */
async function accountView(deps: AccountAdminDeps, raw: string, afterWrite = false) {
  const address = checksumAddress(raw);
  const engine = afterWrite ? deps.trading.liveEngine() : undefined;
  const r = engine ? engine.restrictionOf(address) : await deps.readModels.restrictions.restrictionOf(address);
  const now = deps.now();
  return {
    ...(afterWrite ? await balanceAfterWrite(deps, address) : await balanceView(deps, address)),
    openOrders: (engine ? engine.openOrdersOf(address) : await deps.readModels.orders.openOrdersOf(address)).length,
    restricted: r?.restrictedUntil != null && r.restrictedUntil > now,
    restrictedUntil: r?.restrictedUntil != null && r.restrictedUntil > now ? new Date(r.restrictedUntil).toISOString() : null,
    recentShortfalls: (r?.shortfalls ?? []).filter((t) => t > now - deps.config.restriction.windowMs).map((t) => new Date(t).toISOString()),
  };
}

export const accountAdminRoutes: FastifyPluginAsyncTypebox<AccountAdminDeps> = async (app, deps) => {
  const params = Type.Object({ address: Address });
  app.get('/admin/accounts/:address', { schema: { tags: ['admin'], params, response: responses(Account) } }, async (request) =>
    ok(await accountView(deps, request.params.address)),
  );
  app.post('/admin/accounts/:address/lift-restriction', { schema: { tags: ['admin'], params, response: responses(Account) } }, async (request) => {
    const address = checksumAddress(request.params.address);
    await deps.trading.submit({ kind: 'liftRestriction', at: deps.now(), address });
    return ok(await accountView(deps, address, true));
  });
};
