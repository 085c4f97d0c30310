// A repost of an order the exchange has seen is refused from the read side (the engine keeps only a window of
// closed orders): the answer is ORDERS_ALREADY_EXIST in the request's order, and the journal holds only the new ones.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestExchange, type TestExchange } from './helpers/server.js';
import { E18, USDC, signedCancel, signedOrder } from './helpers/wallets.js';
import { betTestConfig, createFixtureMarket, createSoccerLeague, fundedWallet } from './helpers/bets.js';
import { decodeCommand } from '../src/store/command-codec.js';
import type { Command } from '../src/engine/types.js';

describe('reposting a known order', () => {
  let ex: TestExchange;
  beforeAll(async () => {
    ex = await startTestExchange(betTestConfig());
  });
  afterAll(async () => ex.destroy());

  it('answers ORDERS_ALREADY_EXIST from the read side and journals only the new orders', async () => {
    const cat = await createSoccerLeague(ex);
    const { markets } = await createFixtureMarket(ex, cat, { type: 52 });
    const marketHash = markets[0]!.marketHash;
    const maker = await fundedWallet(ex);
    const sign = (odds: bigint) => signedOrder(maker, ex.ctx.config, { marketHash, totalBetSize: 10n * USDC, percentageOdds: odds * E18, isMakerBettingOutcomeOne: true });
    const [cancelled, open, fresh] = await Promise.all([sign(40n), sign(41n), sign(42n)]);
    expect((await ex.post('/orders/new', { orders: [cancelled.body, open.body] })).body.data.inserted).toBe(2);
    const cancel = await signedCancel(maker, ex.ctx.config, 'v2', { orderHashes: [cancelled.hash] });
    expect((await ex.post('/orders/cancel/v2', cancel)).status).toBe(200);
    // The read side covers the cancel once a read returns (read-your-writes). Under a lagging projector the engine
    // refuses the repeats itself, answering the same but journaling the whole request: what this test does not look at.
    expect((await ex.get(`/orders?orderHashes=${cancelled.hash}`)).body.data[0].orderStatus).toBe('CANCELLED');

    const res = await ex.post('/orders/new', { orders: [cancelled.body, fresh.body, open.body] });
    expect(res.body.data).toEqual({
      orders: [cancelled.hash, fresh.hash, open.hash],
      statuses: { [cancelled.hash]: 'ORDERS_ALREADY_EXIST', [fresh.hash]: 'OK', [open.hash]: 'ORDERS_ALREADY_EXIST' },
      inserted: 1,
    });
    const last = ex.ctx.db!.prepare("SELECT command FROM journal WHERE command LIKE '%\"postOrders\"%' ORDER BY seq DESC LIMIT 1").get() as { command: string };
    const cmd = decodeCommand(last.command) as Extract<Command, { kind: 'postOrders' }>;
    expect(cmd.orders.map((o) => o.orderHash)).toEqual([fresh.hash]);
    expect((await ex.get(`/orders?orderHashes=${cancelled.hash}`)).body.data[0].orderStatus).toBe('CANCELLED');
  });
});
