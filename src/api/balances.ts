// GET /balances/:address (public): free wallet balance, escrow and open-order exposure, from the read side.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Config } from '../config.js';
import type { Static } from '@sinclair/typebox';
import type { SequencerPort } from '../sequencer/port.js';
import type { BalanceView } from '../engine/types.js';
import type { ReadModels } from '../store/ports.js';
import { ok } from './envelope.js';
import { Address } from './params.js';
import { checksumAddress } from '../protocol/address.js';
import { responses } from './schemas/envelope.js';
import { Balance } from './schemas/trading.js';

export interface BalanceDeps {
  readModels: Pick<ReadModels, 'balances'>;
  config: Pick<Config, 'baseTokenAddress'>;
}

/** An address's balances as the read side holds them (a read waits for the position it must see). */
export const balanceView = async ({ readModels, config }: BalanceDeps, raw: string) => {
  const address = checksumAddress(raw);
  return balanceReply(address, await readModels.balances.balanceOf(address), config.baseTokenAddress);
};

/**
 * The reply of a write that moved funds: the balances right after the write (the sequencer's own where it runs in
 * this process; the read side covers the write only once it is projected).
 */
export const balanceAfterWrite = async ({ trading, config }: { trading: Pick<SequencerPort, 'balancesAfterWrite'>; config: BalanceDeps['config'] }, raw: string) => {
  const address = checksumAddress(raw);
  return balanceReply(address, await trading.balancesAfterWrite(address), config.baseTokenAddress);
};

function balanceReply(address: string, b: BalanceView, baseToken: string): Static<typeof Balance> {
  return {
    address,
    baseToken,
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
    async (request) => ok(await balanceView(deps, request.params.address)),
  );
};
