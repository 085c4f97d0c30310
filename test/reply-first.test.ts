// Reply first, fan out after: the poster's HTTP response is written before the commit's realtime rendering starts.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicationsOut, renderForEveryChannel, startTestExchange, type TestExchange } from './helpers/server.js';
import { betTestConfig, createFixtureMarket, createSoccerLeague, fund } from './helpers/bets.js';
import { E18, USDC, newWallet, signedOrder } from './helpers/wallets.js';

let ex: TestExchange;
let marketHash: string;

beforeAll(async () => {
  ex = await startTestExchange(betTestConfig());
  const cat = await createSoccerLeague(ex);
  marketHash = (await createFixtureMarket(ex, cat, { type: 52 })).markets[0]!.marketHash;
});
afterAll(() => ex.destroy());

describe('reply first, fan out after', () => {
  it('finishes the order response before the order is rendered for realtime, and still publishes it', async () => {
    const maker = newWallet();
    await fund(ex, maker, 1000n * USDC);
    const order = await signedOrder(maker, ex.ctx.config, { marketHash, totalBetSize: 10n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: true });

    const seen: string[] = [];
    const onRequest = (req: IncomingMessage, res: ServerResponse) => {
      if (req.url === '/orders/new') res.once('finish', () => seen.push('response written'));
    };
    const onOrders = (update: { orders: Record<string, unknown>[] }) => {
      if (update.orders.some((o) => o.orderHash === order.hash)) seen.push('orders published');
    };
    ex.app.server.on('request', onRequest);
    ex.ctx.bus.on('orders', onOrders);
    renderForEveryChannel(ex);
    try {
      const res = await ex.post('/orders/new', { orders: [order.body] });
      expect(res.body.data.statuses).toEqual({ [order.hash]: 'OK' });
      await publicationsOut(ex);
      expect(seen).toEqual(['response written', 'orders published']);
    } finally {
      ex.app.server.off('request', onRequest);
      ex.ctx.bus.off('orders', onOrders);
    }
  });
});
