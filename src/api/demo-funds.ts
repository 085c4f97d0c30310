// POST /user/demo-funds (public): in demo mode on the local ledger, a wallet asks for test funds itself, so a first
// bet needs no operator. Grants are the admin faucet's journaled command (durable, on balances and realtime),
// bounded by a fixed amount, a ceiling on what the address holds, and per-address and per-client quotas.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Config } from '../config.js';
import { checksumAddress } from '../protocol/address.js';
import { ok } from './envelope.js';
import { ApiError } from './errors.js';
import { ExchangeError } from '../protocol/errors.js';
import { Address } from './params.js';
import { balanceAfterWrite, type BalanceDeps } from './balances.js';
import { resetSeconds } from './rate-limit.js';
import { quota, type InProcessRateLimiter, type ClientKey } from './rate-limit/limiter.js';
import { responses } from './schemas/envelope.js';
import { Balance } from './schemas/trading.js';
import type { SequencerPort } from '../sequencer/port.js';

type DemoFundsSettings = Pick<Config, 'demo' | 'chain' | 'demoFunds'>;

/** Why this exchange gives no demo funds (with the HTTP status it answers), or undefined when it does. */
export function demoFundsRefusal(c: DemoFundsSettings): ApiError | undefined {
  if (c.chain === 'evm') {
    return new ApiError('NOT_ON_LOCAL_LEDGER', 'demo funds exist only on the local ledger: on a chain they would be real token mints (ask the operator)');
  }
  if (!c.demo) return new ApiError('DEMO_MODE_OFF');
  return undefined;
}

/** What /metadata tells clients (`demoFunds`): the grant and the ceiling, or null when there are none. */
export function demoFundsOffer(c: DemoFundsSettings): { amount: string; maxBalance: string } | null {
  return demoFundsRefusal(c) ? null : { amount: c.demoFunds.amount.toString(), maxBalance: c.demoFunds.maxBalance.toString() };
}

const DemoFundsRequest = Type.Object({ address: Address }, { additionalProperties: false });

export interface DemoFundsDeps {
  config: BalanceDeps['config'] & DemoFundsSettings;
  trading: Pick<SequencerPort, 'balancesAfterWrite' | 'submit'>;
  now: () => number;
}

export const demoFundsRoutes: FastifyPluginAsyncTypebox<DemoFundsDeps> = async (app, deps) => {
  const { amount, maxBalance, windowMs, perAddress, perClient } = deps.config.demoFunds;
  const byAddress = quota(perAddress, windowMs);
  const byClient = quota(perClient, windowMs);
  const consume = (limiter: InProcessRateLimiter, key: ClientKey, who: string) => {
    const d = limiter.consume(key, 'base', deps.now());
    if (d.allowed) return;
    const retryAfter = String(resetSeconds(d));
    const message = `demo funds: ${d.limit} per ${windowMs / 1000} s for ${who} are used up; retry after ${retryAfter} s`;
    throw new ApiError('RATE_LIMITED', message, { headers: { 'retry-after': retryAfter } });
  };

  // Grants run one at a time: the ceiling is checked against a balance no other grant is about to change.
  let previous: Promise<unknown> = Promise.resolve();
  const oneAtATime = <T>(task: () => Promise<T>): Promise<T> => {
    const run = previous.then(task);
    previous = run.catch(() => undefined);
    return run;
  };

  app.post(
    '/user/demo-funds',
    {
      schema: {
        tags: ['chain'],
        description:
          'Demo mode on the local ledger only (see `demoFunds` in /metadata): grants the address the fixed demo amount. ' +
          'Refused with 403 DEMO_MODE_OFF or 400 NOT_ON_LOCAL_LEDGER where there are no demo funds, 409 DEMO_FUNDS_CAP_REACHED ' +
          'when the grant would lift balance plus escrow above maxBalance, 429 RATE_LIMITED with Retry-After past the grants ' +
          'per address or the requests per client address in the window.',
        body: DemoFundsRequest,
        response: responses(Balance, 'the address\'s balance after the grant'),
      },
    },
    async (request) => {
      const refusal = demoFundsRefusal(deps.config);
      if (refusal) throw refusal;
      const address = checksumAddress(request.body.address);
      const balance = await oneAtATime(async () => {
        const held = await deps.trading.balancesAfterWrite(address);
        if (held.balance + held.escrowed + amount > maxBalance) {
          const message = `a grant of ${amount} wei would lift this address's balance plus escrow above the demo ceiling of ${maxBalance} wei`;
          throw new ExchangeError('DEMO_FUNDS_CAP_REACHED', message);
        }
        // The client first: its requests count whichever address they name.
        consume(byClient, request.ip, 'this client address');
        consume(byAddress, address, 'this address');
        await deps.trading.submit({ kind: 'faucet', at: deps.now(), address, amount });
        return balanceAfterWrite(deps, address);
      });
      return ok(balance);
    },
  );
};
