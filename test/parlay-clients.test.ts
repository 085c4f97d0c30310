// Parlays from the clients' side: the demo market makers (the reference example's ParlayQuoter) quote every request
// within the quote window from their fair probabilities, and the typed client requests a parlay, waits out the
// window for the offers and fills the best one. Also the quoter's pricing on its own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { OddexAdmin, OddexClient, type Market } from '@oddex/sdk';
import { startTestExchange, TEST_ADMIN_TOKEN, type TestExchange } from './helpers/server.js';
import { waitFor } from './helpers/bets.js';
import { newWallet, USDC } from './helpers/wallets.js';
import { demoFairProbability } from '../src/demo/liquidity.js';
import { parlayFairProbability, parlayQuote } from '../src/demo/parlay-quoter.js';

const E18 = 10n ** 18n;

describe('the reference parlay quoter prices', () => {
  const legs = [
    { marketHash: '0x' + '01'.repeat(32), bettingOutcomeOne: true },
    { marketHash: '0x' + '02'.repeat(32), bettingOutcomeOne: false },
  ];
  const fairOf = (h: string) => ({ ['0x' + '01'.repeat(32)]: 0.55, ['0x' + '02'.repeat(32)]: 0.52 })[h];

  it('a parlay as the product of its legs as picked, and nothing for a leg it cannot price', () => {
    expect(parlayFairProbability(legs, fairOf)).toBeCloseTo(0.55 * 0.48, 12);
    expect(parlayFairProbability([...legs, { marketHash: '0x' + '03'.repeat(32), bettingOutcomeOne: true }], fairOf)).toBeUndefined();
  });

  it('backs outcome two at 1 - (fair + margin) rounded down onto the ladder, sized to take the whole request', () => {
    // Fair 26.4% + 3% margin: the bettor is offered 29.4%, so the maker backs outcome two at 70.6% -> 70.5 on a 0.125% ladder.
    const q = parlayQuote({ marketHash: '0x' + 'aa'.repeat(32), baseToken: '0x', requestSize: '10000000', legs }, 0.264, {
      margin: 0.03,
      maxStake: 1000n * USDC,
      ladderStep: 125,
      makerMinimum: 1n * USDC,
    });
    // 10 * 70.5 / 29.5 = 23.898305084..., rounded up so that the book's taker space (rounded down) takes all 10.
    expect(q).toEqual({ percentageOdds: 70_500_000_000_000_000_000n, totalBetSize: 23_898_306n });
    expect((q!.totalBetSize * 295n) / 705n).toBe(10_000_000n);
    const capped = parlayQuote({ marketHash: '0x', baseToken: '0x', requestSize: '10000000', legs }, 0.264, { margin: 0.03, maxStake: 5n * USDC, ladderStep: 125, makerMinimum: 1n * USDC });
    expect(capped?.totalBetSize).toBe(5n * USDC);
    const tooSmall = parlayQuote({ marketHash: '0x', baseToken: '0x', requestSize: '1000', legs }, 0.264, { margin: 0.03, maxStake: 5n * USDC, ladderStep: 125, makerMinimum: 1n * USDC });
    expect(tooSmall).toBeUndefined();
  });
});

describe('a parlay against the demo market makers, through the typed client', () => {
  let ex: TestExchange;
  let bettor: OddexClient;
  const clients: OddexClient[] = [];

  beforeAll(async () => {
    ex = await startTestExchange({ demo: true, demoLiquidity: true, bettingDelay: { preGameMs: 0, inPlayMs: 0, inPlayBySportMs: {}, inPlayByLeagueMs: {} } });
    const admin = new OddexAdmin({ url: ex.url, adminToken: TEST_ADMIN_TOKEN });
    const account = newWallet();
    await admin.faucet(account.address, 100n * USDC);
    bettor = new OddexClient({ url: ex.url, signer: account, WebSocket });
    clients.push(bettor);
  }, 60_000);
  afterAll(async () => {
    for (const c of clients) c.close();
    await ex?.destroy();
  });

  it('every demo maker quotes within the window; the bettor sees the offers at once and fills the best', async () => {
    const active = await bettor.allActiveMarkets({ type: [52] });
    const preGame = active.filter((m: Market) => !m.liveEnabled && m.type === 52);
    const byEvent = new Map<string, Market>();
    for (const m of preGame) if (!byEvent.has(m.exchangeEventId)) byEvent.set(m.exchangeEventId, m);
    const [a, b] = [...byEvent.values()];
    const legs = [
      { marketHash: a!.marketHash, bettingOutcomeOne: true },
      { marketHash: b!.marketHash, bettingOutcomeOne: true },
    ];
    // The demo makers subscribe to the parlay channel as they start: wait until the first request is quoted.
    let parlay: Market | undefined;
    let offers: Awaited<ReturnType<OddexClient['parlayOffers']>> = [];
    await waitFor(
      async () => {
        parlay = await bettor.requestParlay({ legs, requestSize: 10n * USDC });
        offers = await bettor.parlayOffers(parlay);
        return offers.length;
      },
      (n) => n === 3,
      30_000,
    );
    expect(parlay!.parlay!.quoteWindowEndsAt - parlay!.parlay!.requestedAt).toBe(3000);
    expect(offers.length).toBe(3);
    const fair = demoFairProbability(a!) * demoFairProbability(b!);
    for (const o of offers) {
      expect(o.isMakerBettingOutcomeOne).toBe(false);
      // Every offer prices the bettor above the fair chance (the maker's margin), and takes the whole request.
      expect(Number(o.percentageOdds) / 1e20).toBeLessThan(1 - fair);
      expect((o.totalBetSize * (100n * E18 - o.percentageOdds)) / o.percentageOdds).toBeGreaterThanOrEqual(10n * USDC);
    }
    // In the order the exchange fills them (lowest maker odds first): the fill takes the first, whole.
    expect([...offers].sort((x, y) => (x.percentageOdds < y.percentageOdds ? -1 : 1))).toEqual(offers);
    const first = offers[0]!;
    const fill = await bettor.fill({ marketHash: parlay!.marketHash, isTakerBettingOutcomeOne: true, stakeWei: 10n * USDC, desiredOdds: 100n * E18 - first.percentageOdds });
    expect(fill.totalFilled).toBe(10n * USDC);
    expect(fill.averageOdds).toBe(100n * E18 - first.percentageOdds);
  }, 60_000);
});
