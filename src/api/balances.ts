// GET /balances/:address (public): free wallet balance, escrow and open-order exposure.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../context.js';
import { ok } from './envelope.js';
import { Address } from './params.js';
import { checksumAddress } from '../protocol/address.js';
import { responses } from './schemas/envelope.js';
import { Balance } from './schemas/trading.js';

export function balanceView(ctx: AppContext, raw: string) {
  const address = checksumAddress(raw);
  const b = ctx.trading.engine.balances(address);
  return {
    address,
    baseToken: ctx.config.baseTokenAddress,
    balance: b.balance.toString(),
    escrowed: b.escrowed.toString(),
    openExposure: b.openExposure.toString(),
    pendingTakerStake: b.pendingTakerStake.toString(),
  };
}

export function registerBalanceRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get(
    '/balances/:address',
    { schema: { tags: ['chain'], params: Type.Object({ address: Address }), response: responses(Balance) } },
    async (request) => ok(balanceView(ctx, (request.params as { address: string }).address)),
  );
}
