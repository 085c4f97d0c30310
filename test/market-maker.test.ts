// The reference market maker against the real server: quotes both sides on the ladder around its fair
// probability, stays within its balance, re-quotes after fills and cancels, and its heartbeat clears its
// orders when it stops without saying so.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { OddexAdmin, OddexApiError, OddexClient, type Market } from '@oddex/sdk';
import { MarketMaker, quoteOdds } from '../src/demo/market-maker.js';
import { startTestExchange, TEST_ADMIN_TOKEN, type TestExchange } from './helpers/server.js';
import { betTestConfig, createFixtureMarket, createSoccerLeague, waitFor } from './helpers/bets.js';
import { newWallet, USDC } from './helpers/wallets.js';

const E18 = 10n ** 18n;
let ex: TestExchange;
let admin: OddexAdmin;
let markets: Market[];

beforeAll(async () => {
  ex = await startTestExchange(betTestConfig());
  admin = new OddexAdmin({ url: ex.url, adminToken: TEST_ADMIN_TOKEN });
  const cat = await createSoccerLeague(ex);
  const hashes: string[] = [];
  for (let i = 0; i < 3; i++) hashes.push((await createFixtureMarket(ex, cat, { type: 52 })).markets[0]!.marketHash);
  markets = await new OddexClient({ url: ex.url }).findMarkets(hashes);
});
afterAll(() => ex?.destroy());

it('quoteOdds: fair minus half the spread on each side, rounded down onto the ladder', () => {
  expect(quoteOdds(0.5, 0.04, 125)).toEqual({ one: 48n * E18, two: 48n * E18 });
  // 0.6 - 0.025 = 57.5%; 0.4 - 0.025 = 37.5%: both on the 0.125% ladder already.
  expect(quoteOdds(0.6, 0.05, 125)).toEqual({ one: 575n * 10n ** 17n, two: 375n * 10n ** 17n });
  // 0.5321 - 0.01 = 52.21% -> 52.125%; 0.4679 - 0.01 = 45.79% -> 45.75%.
  expect(quoteOdds(0.5321, 0.02, 125)).toEqual({ one: 52125n * 10n ** 15n, two: 4575n * 10n ** 16n });
});

describe('MarketMaker', () => {
  it('quotes within its balance, re-quotes after fills and cancels, and its orders go when it dies', async () => {
    const wallet = newWallet();
    await admin.faucet(wallet.address, 50n * USDC);
    const { apiKey } = await admin.createApiKey(wallet.address);
    const client = new OddexClient({ url: ex.url, signer: wallet, apiKey, WebSocket });
    const logs: string[] = [];
    const maker = new MarketMaker({
      client,
      markets: async () => markets,
      fairProbability: () => 0.6,
      spread: 0.05,
      orderSize: 20n * USDC,
      heartbeatSeconds: 1,
      requoteIntervalMs: 300,
      marketRefreshMs: 60_000,
      log: (m) => logs.push(m),
    });
    await maker.start();
    // 50 USDC covers two quotes of 20, not six.
    let open = await client.allOrders({ maker: wallet.address });
    expect(open).toHaveLength(2);
    expect(logs).toContain('balance covers only part of the quotes');

    await admin.faucet(wallet.address, 1000n * USDC);
    open = await waitFor(() => client.allOrders({ maker: wallet.address }), (os) => os.length === 6, 5000);
    for (const m of markets) {
      const mine = open.filter((o) => o.marketHash === m.marketHash);
      expect(mine.map((o) => [o.isMakerBettingOutcomeOne, o.percentageOdds, o.totalBetSize]).sort()).toEqual(
        [
          [false, 375n * 10n ** 17n, 20n * USDC],
          [true, 575n * 10n ** 17n, 20n * USDC],
        ].sort(),
      );
    }

    // A taker takes most of one quote: the maker replaces it.
    const taker = newWallet();
    await admin.faucet(taker.address, 100n * USDC);
    const takerClient = new OddexClient({ url: ex.url, signer: taker });
    const target = open.find((o) => o.marketHash === markets[0]!.marketHash && o.isMakerBettingOutcomeOne)!;
    // Backing outcome two at 42.5%: 14 USDC uses 14 * 57.5 / 42.5 = 18.94 of the maker's 20.
    await takerClient.fill({ marketHash: markets[0]!.marketHash, isTakerBettingOutcomeOne: false, stakeWei: 14n * USDC, desiredOdds: 425n * 10n ** 17n });
    const replaced = await waitFor(
      () => client.allOrders({ maker: wallet.address }),
      (os) => os.length === 6 && !os.some((o) => o.orderHash === target.orderHash),
      8000,
    );
    expect(replaced.filter((o) => o.marketHash === markets[0]!.marketHash && o.isMakerBettingOutcomeOne).map((o) => o.fillAmount)).toEqual([0n]);

    // Someone cancels a quote (here the maker's own key): it comes back.
    const victim = replaced.find((o) => o.marketHash === markets[1]!.marketHash)!;
    await client.cancelOrders([victim.orderHash]);
    await waitFor(
      () => client.allOrders({ maker: wallet.address }),
      (os) => os.length === 6 && !os.some((o) => o.orderHash === victim.orderHash),
      8000,
    );

    // Dies without cancelling: the heartbeat (1 s) runs out and the exchange cancels its orders.
    await maker.stop();
    client.close();
    const after = await waitFor(() => client.allOrders({ maker: wallet.address }), (os) => os.length === 0, 5000);
    expect(after).toEqual([]);
    expect(maker.stats.quotesPosted).toBeGreaterThanOrEqual(8);
  }, 60_000);

  it('takes an exchange that cannot write now (503) as no fault of its quotes: one request, no market backed off, posted again next round', async () => {
    const wallet = newWallet();
    await admin.faucet(wallet.address, 1000n * USDC);
    const { apiKey } = await admin.createApiKey(wallet.address);
    const client = new OddexClient({ url: ex.url, signer: wallet, apiKey, WebSocket });
    // The exchange's journal refuses writes for a while (a full disk): every post answers 503 STORAGE_FAILED.
    let failing = true;
    let refusedPosts = 0;
    const postOrders = client.postOrders.bind(client);
    client.postOrders = (async (...args: Parameters<typeof postOrders>) => {
      if (!failing) return postOrders(...args);
      refusedPosts++;
      throw new OddexApiError('STORAGE_FAILED', 503, 'the exchange cannot write to its journal');
    }) as typeof client.postOrders;
    const maker = new MarketMaker({
      client,
      markets: async () => markets,
      fairProbability: () => 0.5,
      spread: 0.04,
      orderSize: 20n * USDC,
      heartbeatSeconds: 30,
      requoteIntervalMs: 300,
      marketRefreshMs: 60_000,
      log: () => {},
    });
    try {
      await maker.start();
      // Splitting the batch to find a culprit market sent 4 more requests and backed every market off for a minute.
      expect(refusedPosts).toBe(1);
      failing = false;
      const open = await waitFor(() => client.allOrders({ maker: wallet.address }), (os) => os.length === 6, 5000);
      expect(open).toHaveLength(6);
    } finally {
      await maker.stop({ cancelOrders: true });
      client.close();
    }
  }, 30_000);
});
