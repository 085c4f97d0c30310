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
  const engine = ctx.trading.engine;
  return {
    address,
    baseToken: ctx.config.baseTokenAddress,
    balance: engine.ledger.balanceOf(address).toString(),
    escrowed: engine.ledger.escrowOf(address).toString(),
    openExposure: engine.exposureOf(address).toString(),
    pendingTakerStake: engine.pendingTakerStakeOf(address).toString(),
  };
}

export function registerBalanceRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get(
    '/balances/:address',
    { schema: { tags: ['chain'], params: Type.Object({ address: Address }), response: responses(Balance) } },
    async (request) => ok(balanceView(ctx, (request.params as { address: string }).address)),
  );
}
