// The projector's thread ending unexpectedly (a crash, here a terminate in the middle of a stream of orders): it
// starts again from the read models' checkpoint, reads go on seeing every acknowledged write, and the read models
// equal a rebuild from the journal.
import { afterAll, describe, expect, it } from 'vitest';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startTestExchange, type TestExchange } from './helpers/server.js';
import { betTestConfig, createFixtureMarket, createSoccerLeague, fundedWallet, waitFor } from './helpers/bets.js';
import { E18, USDC, signedOrder } from './helpers/wallets.js';
import type { ProjectorThread } from '../src/store/projector-thread.js';

describe('the projector thread', () => {
  let ex: TestExchange;
  afterAll(() => ex?.destroy());

  it('starts again from its checkpoint after ending mid-stream, and nothing acknowledged is missing', async () => {
    ex = await startTestExchange({ ...betTestConfig(), demo: false });
    const cat = await createSoccerLeague(ex);
    const marketHash = (await createFixtureMarket(ex, cat, { type: 52 })).markets[0]!.marketHash;
    const maker = await fundedWallet(ex, 100_000n * USDC);
    const thread = (await waitFor(async () => ex.ctx.trading.projection.projectorThread, (t) => t !== undefined)) as ProjectorThread;
    expect(thread).toBeDefined();

    const orders = await Promise.all(
      Array.from({ length: 120 }, (_, i) =>
        signedOrder(maker, ex.ctx.config, { marketHash, totalBetSize: 10n * USDC, percentageOdds: BigInt(30 + (i % 40)) * E18, isMakerBettingOutcomeOne: true }),
      ),
    );
    const posting = (async () => {
      for (const o of orders) expect((await ex.post('/orders/new', { orders: [o.body] })).body.data.statuses[o.hash]).toBe('OK');
    })();
    await waitFor(async () => ex.ctx.trading.projection.position, () => thread.position > 0);
    await thread.terminate();
    await posting;
    expect(thread.restarts).toBe(1);

    // Every acknowledged order is listed once the restarted thread has caught up (a read waits for it, bounded).
    const listed = await waitFor(
      () => ex.get(`/orders?maker=${maker.address}&perPage=1000`),
      (r) => r.status === 200 && r.body.data.length === orders.length,
    );
    expect(listed.body.data.map((o: { orderHash: string }) => o.orderHash).sort()).toEqual(orders.map((o) => o.hash).sort());

    // And the read models equal a rebuild from the journal.
    ex = await ex.restart();
    const before = (await ex.get(`/orders?maker=${maker.address}&perPage=1000`)).body.data;
    await ex.close();
    for (const f of readdirSync(ex.dataDir).filter((n) => n.startsWith('oddex.read-models.sqlite'))) rmSync(join(ex.dataDir, f));
    ex = await ex.restart();
    expect((await ex.get(`/orders?maker=${maker.address}&perPage=1000`)).body.data).toEqual(before);
  }, 60_000);
});
