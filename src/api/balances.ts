// GET /balances/:address (public): free wallet balance, escrow and open-order exposure.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Config } from '../config.js';
import type { Sequencer } from '../sequencer/sequencer.js';
import { ok } from './envelope.js';
import { Address } from './params.js';
import { checksumAddress } from '../protocol/address.js';
import { responses } from './schemas/envelope.js';
import { Balance } from './schemas/trading.js';

export interface BalanceDeps {
  /** The live engine is read through the service: a failed commit replaces it. */
  trading: Pick<Sequencer, 'engine'>;
  config: Pick<Config, 'baseTokenAddress'>;
}

export function balanceView({ trading, config }: BalanceDeps, raw: string) {
  const address = checksumAddress(raw);
  const b = trading.engine.balances(address);
  return {
    address,
    baseToken: config.baseTokenAddress,
    balance: b.balance.toString(),
    escrowed: b.escrowed.toString(),
    openExposure: b.openExposure.toString(),
    pendingTakerStake: b.pendingTakerStake.toString(),
  };
}

export const balanceRoutes: FastifyPluginAsyncTypebox<BalanceDeps> = async (app, deps) => {
  app.get(
    '/balances/:address',
    { schema: { tags: ['chain'], params: Type.Object({ address: Address }), response: responses(Balance) } },
    async (request) => ok(balanceView(deps, request.params.address)),
  );
};
