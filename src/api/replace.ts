// POST /orders/replace: a maker's signed cancel (the body of POST /orders/cancel/v2) and its new signed orders (those
// of POST /orders/new), applied by one engine command, so a re-quote is one request, one rate-limit hit and no moment
// without a quote. All or nothing: a refused replace changes nothing.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ok } from './envelope.js';
import { CancelV2, cancelV2Job } from './cancels.js';
import { checkOrders, marketsOfOrders, postOrdersReply, SignedOrder, type OrderRouteDeps } from './orders.js';
import { requireSigner } from './trading-input.js';
import { checksumAddress, sameAddress } from '../protocol/address.js';
import { ExchangeError } from '../protocol/errors.js';
import { responses } from './schemas/envelope.js';
import { ReplaceResult } from './schemas/trading.js';
import type { Config } from '../config.js';

export interface ReplaceRouteDeps extends Omit<OrderRouteDeps, 'config' | 'apiKeys'> {
  config: OrderRouteDeps['config'] & Pick<Config, 'chainId' | 'domainNames'>;
}

export const replaceRoutes: FastifyPluginAsyncTypebox<ReplaceRouteDeps> = async (app, deps) => {
  const { config, trading, verifier, now } = deps;
  app.post(
    '/orders/replace',
    {
      schema: {
        tags: ['orders'],
        description:
          'Cancels some of a maker\'s orders and posts its new orders in one step: `cancel` is the body of POST ' +
          '/orders/cancel/v2 and `orders` those of POST /orders/new, every one of them the cancel\'s maker\'s. Both ' +
          'are applied by one journaled command, all or nothing: if any new order would not post once the cancel is ' +
          'done (INSUFFICIENT_BALANCE, MARKET_NOT_TRADEABLE for a market taking no orders, ORDERS_ALREADY_EXIST, ' +
          'ORDER_WOULD_CROSS), or the cancel is refused, the request fails with that errorCode and nothing changes. ' +
          'The cancel\'s notCancelled entries do not refuse it, as in POST /orders/cancel/v2. The reply holds both ' +
          'outcomes, each as its own endpoint answers it; the order channels publish the cancelled and the new orders ' +
          'together. One request of the orderOps rate-limit bucket.',
        body: Type.Object(
          {
            cancel: CancelV2,
            orders: Type.Array(SignedOrder, { minItems: 1, maxItems: config.maxOrdersPerRequest }),
          },
          { additionalProperties: false },
        ),
        response: responses(ReplaceResult),
      },
    },
    async (request) => {
      const { cancel, orders } = request.body;
      const foreign = orders.findIndex((o) => !sameAddress(o.maker, cancel.maker));
      if (foreign >= 0) {
        throw new ExchangeError('MAKER_SIGNATURE_MISMATCH', `orders[${foreign}].maker must be the cancel's maker ${cancel.maker}`);
      }
      const { jobs, toNewOrders } = checkOrders(config, orders, Math.floor(now() / 1000));
      // As POST /orders/new: settled markets of a database server are loaded before the synchronous step.
      const unloaded = deps.catalogue.unloaded(orders.map((o) => o.marketHash));
      if (unloaded.length > 0) await deps.catalogue.loadMarkets(unloaded);
      const result = await verifier.inClientOrder([cancel.maker], [cancelV2Job(config, cancel), ...jobs], ([cancelled, ...verified]) => {
        requireSigner(cancelled!.signer, cancel.maker, 'MAKER_SIGNATURE_MISMATCH', 'cancel');
        const checked = toNewOrders(verified);
        return trading.submit({
          kind: 'replaceOrders',
          at: now(),
          maker: checksumAddress(cancel.maker),
          salt: cancel.salt.toLowerCase(),
          timestamp: cancel.timestamp,
          orderHashes: cancel.orderHashes.map((h) => h.toLowerCase()),
          orders: checked,
          markets: marketsOfOrders(deps, checked, 'refuse'),
        });
      });
      return ok({ cancel: result.cancel, orders: postOrdersReply(result.statuses) });
    },
  );
};
