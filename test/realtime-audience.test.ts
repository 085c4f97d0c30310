// Publications are rendered only for channels someone can receive. Counts renders through /metrics with the real
// server and viem-signed orders and fills: nothing for channels nobody subscribed to, exactly the subscribed
// channel's orders once one is, and a channel stays recorded after its subscriber leaves, so that subscriber
// recovers exactly what it missed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../src/config.js';
import { publicationsOut, startTestExchange, type TestExchange } from './helpers/server.js';
import { createApiKey, fetchToken, rawConnected, waitFor, wsUrl, type RawClient } from './helpers/realtime.js';
import { E18, USDC } from './helpers/wallets.js';
import { fillAndConfirm, fundedWallet, postOrder } from './helpers/bets.js';

type Rest = Record<string, unknown>;

describe('realtime rendering follows subscriptions', () => {
  let ex: TestExchange;
  let marketA: string;
  let marketB: string;

  beforeAll(async () => {
    ex = await startTestExchange({
      demo: true,
      chainConfirmationDelayMs: 50,
      bettingDelay: { preGameMs: 0, inPlayMs: 0, inPlayBySportMs: {}, inPlayByLeagueMs: {} },
      rateLimits: { ...defaultConfig().rateLimits, enabled: false },
    });
    const page = (await ex.get('/markets/active?pageSize=100')).body.data.markets as { marketHash: string; liveEnabled: boolean; type: number }[];
    const preGame = page.filter((m) => !m.liveEnabled && m.type === 52);
    [marketA, marketB] = [preGame[0]!.marketHash, preGame[1]!.marketHash];
  });
  afterAll(async () => ex.destroy());

  /** Items rendered for realtime since start, by kind, as /metrics reports them. */
  const rendered = async (): Promise<Record<string, number>> => {
    const text = await (await fetch(`${ex.url}/metrics`)).text();
    const out: Record<string, number> = {};
    for (const m of text.matchAll(/^oddex_realtime_items_rendered_total\{kind="(\w+)"\} (\d+)$/gm)) out[m[1]!] = Number(m[2]);
    return out;
  };
  const connect = async (address: string): Promise<RawClient> => rawConnected(wsUrl(ex), await fetchToken(ex, await createApiKey(ex, address)));
  const restOrder = async (hash: string): Promise<Rest> => (await ex.get(`/orders?orderHashes=${hash}`)).body.data[0];
  const asPublished = (o: Rest): Rest => ({ ...o, status: 'ACTIVE', updateTime: Date.parse(o.updatedAt as string) });
  const order = (market: string, odds: bigint) => ({ marketHash: market, totalBetSize: 20n * USDC, percentageOdds: odds * E18, isMakerBettingOutcomeOne: true });

  it('renders nothing for orders, trades, consolidated entries and refunds nobody subscribed to; best odds still move', async () => {
    const events: Record<string, number> = { orders: 0, trades: 0, consolidatedTrades: 0, refunds: 0, bestOdds: 0 };
    for (const name of Object.keys(events)) ex.ctx.bus.on(name as 'orders', () => events[name]!++);
    const maker = await fundedWallet(ex);
    const taker = await fundedWallet(ex);
    await postOrder(ex, maker, order(marketA, 40n));
    await fillAndConfirm(ex, taker, { market: marketA, isTakerBettingOutcomeOne: false, stakeWei: 3n * USDC, desiredOdds: 60n * E18 });
    // Two trades recorded and confirmed: the trading side did its work, and rendered none of it.
    expect((await ex.get(`/trades?marketHashes=${marketA}`)).body.data.trades).toHaveLength(2);
    expect(await rendered()).toEqual({ orders: 0, trades: 0, consolidatedTrades: 0, refundGroups: 0 });
    expect(events).toMatchObject({ orders: 0, trades: 0, consolidatedTrades: 0, refunds: 0 });
    expect(events.bestOdds).toBeGreaterThan(0); // main lines follow them
    const best = (await ex.get(`/orders/odds/best?marketHashes=${marketA}&baseToken=${ex.ctx.config.baseTokenAddress}`)).body.data.bestOdds;
    expect(best[0].outcomeOne.percentageOdds).toBe('40000000000000000000');
  });

  it('once a book is subscribed, renders its orders only; after its subscriber leaves it stays recorded for exact recovery', async () => {
    const maker = await fundedWallet(ex);
    const channel = `order_book:market_${marketA}`;
    const c = await connect(maker.address);
    const sub = (await c.call({ subscribe: { channel, recoverable: true, positioned: true } })).subscribe;
    expect(sub).toMatchObject({ recoverable: true, positioned: true, offset: 0, recovered: false, publications: [] });
    const before = await rendered();

    const first = await postOrder(ex, maker, order(marketA, 41n));
    await postOrder(ex, maker, order(marketB, 42n)); // nobody reads market B's channels
    const push = await waitFor(() => c.pushes(channel)[0]);
    expect(push.push.pub).toEqual({ data: [asPublished(await restOrder(first))], offset: 1 });
    expect(await rendered()).toEqual({ ...before, orders: before.orders! + 1 });

    // The subscriber leaves; the book is still recorded, and its subscriber comes back for what it missed.
    expect(await c.call({ unsubscribe: { channel } })).toMatchObject({ unsubscribe: {} });
    const missed = [await postOrder(ex, maker, order(marketA, 43n)), await postOrder(ex, maker, order(marketA, 44n))];
    // /metrics does not wait for the projection (it is no account read): wait for the two renders to be counted.
    const after = await waitFor(async () => {
      const r = await rendered();
      return r.orders! >= before.orders! + 3 ? r : undefined;
    });
    expect(after).toEqual({ ...before, orders: before.orders! + 3 });
    // Rendered is not yet published: the recovery below reads the channel's history.
    await publicationsOut(ex);
    const back = (await c.call({ subscribe: { channel, recover: true, offset: 1, epoch: sub.epoch } })).subscribe;
    expect(back).toEqual({
      recoverable: true,
      positioned: true,
      epoch: sub.epoch,
      offset: 1,
      was_recovering: true,
      recovered: true,
      publications: [
        { data: [asPublished(await restOrder(missed[0]!))], offset: 2 },
        { data: [asPublished(await restOrder(missed[1]!))], offset: 3 },
      ],
    });
  });

  it('a subscriber that joins after unrendered publications reads them from the REST snapshot, then follows', async () => {
    const maker = await fundedWallet(ex);
    const channel = `order_book:market_${marketB}`;
    const c = await connect(maker.address);
    // Market B had an order posted while nobody read it (previous test): its stream starts now, at offset 0.
    const sub = (await c.call({ subscribe: { channel, recoverable: true, positioned: true } })).subscribe;
    expect(sub).toMatchObject({ offset: 0, recovered: false, publications: [] });
    const snapshot = (await ex.get(`/orders?marketHashes=${marketB}`)).body.data as Rest[];
    expect(snapshot.map((o) => o.percentageOdds)).toEqual(['42000000000000000000']);
    const hash = await postOrder(ex, maker, order(marketB, 45n));
    const push = await waitFor(() => c.pushes(channel)[0]);
    expect(push.push.pub).toEqual({ data: [asPublished(await restOrder(hash))], offset: 1 });
    expect(c.pushes(channel)).toHaveLength(1);
  });
});
