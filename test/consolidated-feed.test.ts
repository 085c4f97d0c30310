// The consolidated-trades feed publishes what changed: after a fill confirms, the entries of that fill, and only
// when a bettor's first refund in a market flips marketHasRefunds, that bettor's entries there once. Refunds on
// later fills republish nothing else, so a publication's size does not grow with the bettor's history.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderForEveryChannel, startTestExchange, type TestExchange } from './helpers/server.js';
import { E18, USDC, newWallet } from './helpers/wallets.js';
import { betTestConfig, createFixtureMarket, createSoccerLeague, fillAndConfirm, fund, postOrder, waitFor } from './helpers/bets.js';

type Entry = { fillHash: string; bettor: string; marketHasRefunds: boolean };

describe('consolidated feed', () => {
  let ex: TestExchange;
  const publications: Entry[][] = [];

  beforeAll(async () => {
    ex = await startTestExchange(betTestConfig());
    ex.ctx.bus.on('consolidatedTrades', (entries) => publications.push(entries as Entry[]));
    renderForEveryChannel(ex);
  });
  afterAll(async () => ex.destroy());

  it('publishes the confirmed fill’s entries, and a bettor’s market entries only on its first refund', async () => {
    const cat = await createSoccerLeague(ex);
    const { markets } = await createFixtureMarket(ex, cat, { type: 52 });
    const market = markets[0]!.marketHash;
    const maker = newWallet();
    const taker = newWallet();
    await fund(ex, maker, 1000n * USDC);
    await fund(ex, taker, 1000n * USDC);
    await postOrder(ex, maker, { marketHash: market, totalBetSize: 400n * USDC, percentageOdds: 50n * E18, isMakerBettingOutcomeOne: true });
    await postOrder(ex, maker, { marketHash: market, totalBetSize: 400n * USDC, percentageOdds: 50n * E18, isMakerBettingOutcomeOne: false });

    const fills = 12;
    const perFill: Entry[][] = [];
    for (let i = 0; i < fills; i++) {
      const before = publications.length;
      // Alternate sides: from the second fill on, both parties hold offsetting positions and get refunds.
      const fillHash = await fillAndConfirm(ex, taker, { market, isTakerBettingOutcomeOne: i % 2 === 0, stakeWei: 2n * USDC, desiredOdds: 50n * E18 });
      // REST may show the confirmation a WAL sync before it is durable and published: wait for its publication.
      // (waitFor gives up quietly: had it, this fill's publication would land in the next fill's window.)
      const seen = await waitFor(async () => publications.slice(before).flat(), (p) => p.some((e) => e.fillHash === fillHash), 20_000);
      expect(seen.some((e) => e.fillHash === fillHash), `fill ${i} published`).toBe(true);
      const published = publications.slice(before).flat();
      expect(published.every((e) => e.fillHash === fillHash || i === 1), JSON.stringify({ i, fillHash, published })).toBe(true);
      perFill.push(published);
    }
    // Fill 1: its two entries (maker and taker), no refunds yet.
    expect(perFill[0]!.map((e) => [e.bettor, e.marketHasRefunds])).toEqual([
      [maker.address, false],
      [taker.address, false],
    ]);
    // Fill 2 pays both parties' first refund: every entry of theirs in the market is republished once, flipped.
    expect(perFill[1]!).toHaveLength(4);
    expect(perFill[1]!.every((e) => e.marketHasRefunds)).toBe(true);
    // Every later fill republishes only its own two entries, however many came before.
    for (const published of perFill.slice(2)) {
      expect(published.map((e) => e.bettor).sort()).toEqual([maker.address, taker.address].sort());
    }
    const listed = await ex.get(`/trades/consolidated?bettor=${taker.address}&settled=false&page=0&perPage=100&sortAsc=true`);
    expect(listed.body.data.count).toBe(fills);
  }, 120_000);
});
