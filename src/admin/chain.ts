// Operator routes of the local ledger: mint test funds, move funds (so a maker's balance can drop).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { EvmChain } from '../chain/evm/evm-chain.js';
import { ok } from '../api/envelope.js';
import { ExchangeError } from '../protocol/errors.js';
import { Address } from '../api/params.js';
import { parseWei } from '../api/trading-input.js';
import { checksumAddress } from '../protocol/address.js';
import { balanceAfterWrite, type BalanceDeps } from '../api/balances.js';
import { responses } from '../api/schemas/envelope.js';
import { Balance } from '../api/schemas/trading.js';
import { Transfer as TransferResult } from '../api/schemas/admin.js';
import type { SequencerPort } from '../sequencer/port.js';

const Faucet = Type.Object({ address: Address, amount: Type.String({ maxLength: 80 }) }, { additionalProperties: false });
const Transfer = Type.Object(
  { from: Address, to: Address, amount: Type.String({ maxLength: 80 }) },
  { additionalProperties: false },
);

export interface ChainAdminDeps {
  config: BalanceDeps['config'];
  trading: Pick<SequencerPort, 'balancesAfterWrite' | 'submit'>;
  now: () => number;
  /** With ODDEX_CHAIN=evm: the chain, once it runs here (never without the settlement role); absent on the local ledger. */
  evm?: (() => EvmChain | undefined) | undefined;
}

export const chainAdminRoutes: FastifyPluginAsyncTypebox<ChainAdminDeps> = async (app, deps) => {
  app.post('/admin/faucet', { schema: { tags: ['admin'], body: Faucet, response: responses(Balance) } }, async (request) => {
    const b = request.body;
    const amount = parseWei(b.amount, 'amount', 'INVALID_AMOUNT', { positive: true });
    // On a chain the faucet mints real tokens; the balance follows from the chain's Transfer event.
    if (deps.evm) {
      const evm = deps.evm();
      if (!evm) throw new ExchangeError('NOT_ON_LOCAL_LEDGER', 'the chain is not reached from this process (a settlement process holds its keys): mint with the operator key');
      await evm.mint(checksumAddress(b.address) as `0x${string}`, amount);
    } else await deps.trading.submit({ kind: 'faucet', at: deps.now(), address: checksumAddress(b.address), amount });
    return ok(await balanceAfterWrite(deps, b.address));
  });
  app.post('/admin/chain/transfer', { schema: { tags: ['admin'], body: Transfer, response: responses(TransferResult) } }, async (request) => {
    const b = request.body;
    const amount = parseWei(b.amount, 'amount', 'INVALID_AMOUNT', { positive: true });
    if (deps.evm) throw new ExchangeError('NOT_ON_LOCAL_LEDGER', 'on a chain, wallets move their own funds: send an ERC-20 transfer');
    await deps.trading.submit({
      kind: 'transfer',
      at: deps.now(),
      from: checksumAddress(b.from),
      to: checksumAddress(b.to),
      amount,
    });
    return ok({ from: await balanceAfterWrite(deps, b.from), to: await balanceAfterWrite(deps, b.to) });
  });
};
