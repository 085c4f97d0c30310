// Operator routes of the local ledger: mint test funds, move funds (so a maker's balance can drop).
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { AppContext } from '../context.js';
import { ok } from '../api/envelope.js';
import { Address } from '../api/params.js';
import { parseWei } from '../api/trading-input.js';
import { checksumAddress } from '../protocol/address.js';
import { submitToEngine } from '../api/engine-errors.js';
import { balanceView } from '../api/balances.js';
import { responses } from '../api/schemas/envelope.js';
import { Balance } from '../api/schemas/trading.js';
import { Transfer as TransferResult } from '../api/schemas/admin.js';

const Faucet = Type.Object({ address: Address, amount: Type.String({ maxLength: 80 }) }, { additionalProperties: false });
const Transfer = Type.Object(
  { from: Address, to: Address, amount: Type.String({ maxLength: 80 }) },
  { additionalProperties: false },
);

export function registerChainAdminRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.post('/admin/faucet', { schema: { tags: ['admin'], body: Faucet, response: responses(Balance) } }, async (request) => {
    const b = request.body as Static<typeof Faucet>;
    const amount = parseWei(b.amount, 'amount', 'INVALID_AMOUNT', { positive: true });
    await submitToEngine(ctx, { kind: 'faucet', at: ctx.now(), address: checksumAddress(b.address), amount });
    return ok(balanceView(ctx, b.address));
  });
  app.post('/admin/chain/transfer', { schema: { tags: ['admin'], body: Transfer, response: responses(TransferResult) } }, async (request) => {
    const b = request.body as Static<typeof Transfer>;
    const amount = parseWei(b.amount, 'amount', 'INVALID_AMOUNT', { positive: true });
    await submitToEngine(ctx, {
      kind: 'transfer',
      at: ctx.now(),
      from: checksumAddress(b.from),
      to: checksumAddress(b.to),
      amount,
    });
    return ok({ from: balanceView(ctx, b.from), to: balanceView(ctx, b.to) });
  });
}
