// GET /markets/:marketHash/history over HTTP: candles equal those computed here from the trades the test made (read
// back from GET /trades), across minute and five-minute boundaries of the server's injected clock, with each
// candle's best odds as GET /orders/odds/best showed them after the interval's last change; the same after a restart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PrivateKeyAccount } from 'viem';
import { OddexApiError, OddexClient } from '@oddex/sdk';
import { startTestExchange, type TestExchange } from './helpers/server.js';
import { betTestConfig, createFixtureMarket, createSoccerLeague, fillAndConfirm, fundedWallet, postOrder } from './helpers/bets.js';
import { E18, USDC } from './helpers/wallets.js';

const ODDS_SCALE = 10n ** 20n;
const INTERVALS = { '1m': 60, '5m': 300, '1h': 3600, '1d': 86400 } as const;
type Interval = keyof typeof INTERVALS;

interface RestTrade {
  _id: string;
  fillHash: string;
  orderHash: string;
  maker: boolean;
  bettingOutcomeOne: boolean;
  stake: string;
  odds: string;
  betTime: number;
}

interface Candle {
  time: number;
  open: string;
  high: string;
  low: string;
  close: string;
  volume: string;
  bestMakerOddsOutcomeOne: string | null;
  bestMakerOddsOutcomeTwo: string | null;
}

/** Candles by the documented rule: taker trades in id order price outcome one; volume is both sides' stakes. */
function expectedCandles(trades: RestTrade[], seconds: number, best: Map<string, [string | null, string | null]>): Candle[] {
  const makerStake = new Map(trades.filter((t) => t.maker).map((t) => [`${t.fillHash}:${t.orderHash}`, BigInt(t.stake)]));
  const takers = trades.filter((t) => !t.maker).sort((a, b) => Number(a._id) - Number(b._id));
  const out = new Map<number, Candle>();
  for (const t of takers) {
    const price = t.bettingOutcomeOne ? BigInt(t.odds) : ODDS_SCALE - BigInt(t.odds);
    const volume = BigInt(t.stake) + makerStake.get(`${t.fillHash}:${t.orderHash}`)!;
    const time = Math.floor(t.betTime / seconds) * seconds;
    const c = out.get(time);
    const [one, two] = best.get(`${seconds}:${time}`)!;
    if (!c) {
      const p = price.toString();
      out.set(time, { time, open: p, high: p, low: p, close: p, volume: volume.toString(), bestMakerOddsOutcomeOne: one, bestMakerOddsOutcomeTwo: two });
      continue;
    }
    c.close = price.toString();
    if (price > BigInt(c.high)) c.high = price.toString();
    if (price < BigInt(c.low)) c.low = price.toString();
    c.volume = (BigInt(c.volume) + volume).toString();
  }
  return [...out.values()].sort((a, b) => a.time - b.time);
}

describe('GET /markets/:marketHash/history', () => {
  let ex: TestExchange;
  let clock: number;
  let market: string;
  let maker: PrivateKeyAccount;
  let taker: PrivateKeyAccount;
  /** Best odds per interval start ("seconds:start"), as last seen after a change in that interval. */
  const best = new Map<string, [string | null, string | null]>();

  const history = (query: string) => ex.get(`/markets/${market}/history?${query}`);
  const allTrades = async (): Promise<RestTrade[]> => [
    ...(await ex.get(`/trades?bettor=${maker.address}&pageSize=300`)).body.data.trades,
    ...(await ex.get(`/trades?bettor=${taker.address}&pageSize=300`)).body.data.trades,
  ];
  /** Records the book's best odds now for every interval this moment belongs to. */
  const noteBestOdds = async () => {
    const entry = (await ex.get(`/orders/odds/best?marketHashes=${market}&baseToken=${ex.ctx.config.baseTokenAddress}`)).body.data.bestOdds[0];
    const odds: [string | null, string | null] = [entry?.outcomeOne?.percentageOdds ?? null, entry?.outcomeTwo?.percentageOdds ?? null];
    for (const seconds of Object.values(INTERVALS)) best.set(`${seconds}:${Math.floor(clock / 1000 / seconds) * seconds}`, odds);
  };
  const fillAt = async (offsetMs: number, isTakerBettingOutcomeOne: boolean, stakeWei: bigint, desiredOdds: bigint) => {
    clock = start + offsetMs;
    await fillAndConfirm(ex, taker, { market, isTakerBettingOutcomeOne, stakeWei, desiredOdds });
    await noteBestOdds();
  };
  // The start of the current five minutes: the clock stays close to real time (orders expire an hour from it).
  const start = Math.floor(Date.now() / 300_000) * 300_000;

  beforeAll(async () => {
    clock = start + 1_000;
    ex = await startTestExchange(betTestConfig(), { now: () => clock });
    const { markets } = await createFixtureMarket(ex, await createSoccerLeague(ex), { type: 52 });
    market = markets[0]!.marketHash;
    maker = await fundedWallet(ex, 10_000n * USDC);
    taker = await fundedWallet(ex, 10_000n * USDC);
    for (const [odds, one] of [[40n, true], [42n, true], [44n, true], [45n, false], [47n, false]] as const) {
      await postOrder(ex, maker, { marketHash: market, totalBetSize: 100n * USDC, percentageOdds: odds * E18, isMakerBettingOutcomeOne: one });
    }
    // Minute 0: outcome two at 60% (outcome one traded at 40%), outcome one at 55%, then one fill over two orders
    // (the rest of 40% and 42%: two trades, two prices).
    await fillAt(5_000, false, 60n * USDC, 60n * E18);
    await fillAt(20_000, true, 11n * USDC, 55n * E18);
    await fillAt(50_000, false, 150n * USDC, 58n * E18);
    // Minute 1 (same five minutes), then the next five minutes.
    await fillAt(65_000, true, 70n * USDC, 53n * E18);
    await fillAt(310_000, false, 30n * USDC, 56n * E18);
  });
  afterAll(async () => ex.destroy());

  it('answers the candles computed from the trades, per interval, to the wei', async () => {
    const trades = await allTrades();
    expect(trades.filter((t) => !t.maker)).toHaveLength(6);
    for (const [interval, seconds] of Object.entries(INTERVALS) as [Interval, number][]) {
      const res = await history(`interval=${interval}`);
      expect([interval, res.status]).toEqual([interval, 200]);
      expect(res.body.data.candles).toEqual(expectedCandles(trades, seconds, best));
    }
    const minutes = (await history('interval=1m')).body.data.candles as Candle[];
    expect(minutes.map((c) => c.time)).toEqual([start / 1000, start / 1000 + 60, start / 1000 + 300]);
    // The first minute as a reader checks it by hand: 40%, 55%, 40% then 42%.
    expect(minutes[0]).toMatchObject({ open: (40n * E18).toString(), high: (55n * E18).toString(), low: (40n * E18).toString(), close: (42n * E18).toString() });
  });

  it('a book change after the interval\'s last trade moves that interval\'s best odds', async () => {
    clock = start + 330_000;
    await postOrder(ex, maker, { marketHash: market, totalBetSize: 10n * USDC, percentageOdds: 43n * E18, isMakerBettingOutcomeOne: false });
    await noteBestOdds();
    const last = ((await history('interval=5m')).body.data.candles as Candle[]).at(-1)!;
    expect(last.bestMakerOddsOutcomeTwo).toBe((43n * E18).toString());
    expect(last).toEqual(expectedCandles(await allTrades(), 300, best).at(-1));
  });

  it('bounds the range by from, to and limit', async () => {
    const s = start / 1000;
    const all = (await history('interval=1m')).body.data.candles as Candle[];
    expect((await history('interval=1m&limit=2')).body.data.candles).toEqual(all.slice(1));
    expect((await history(`interval=1m&from=${s + 1}`)).body.data.candles).toEqual(all.slice(1));
    expect((await history(`interval=1m&to=${s + 60}`)).body.data.candles).toEqual(all.slice(0, 2));
    expect((await history(`interval=1m&from=${s + 60}&to=${s + 60}`)).body.data.candles).toEqual([all[1]]);
    expect((await history(`interval=1m&to=${s - 1}`)).body.data.candles).toEqual([]);
  });

  it('refuses a bad interval, hash or range with its errorCode and an unknown market with 404', async () => {
    const bad = [
      'interval=2m',
      'interval=',
      '',
      'interval=1m&limit=0',
      'interval=1m&limit=1001',
      'interval=1m&from=-1',
      'interval=1m&from=x',
      'interval=1m&from=20&to=10',
      'interval=1m&to=100000000001',
    ];
    for (const q of bad) {
      const res = await history(q);
      expect([q, res.status, res.body.errorCode]).toEqual([q, 400, 'INVALID_PARAMETER']);
    }
    const badHash = await ex.get('/markets/0x1234/history?interval=1m');
    expect([badHash.status, badHash.body.errorCode]).toEqual([400, 'INVALID_PARAMETER']);
    const unknown = await ex.get(`/markets/0x${'ab'.repeat(32)}/history?interval=1m`);
    expect([unknown.status, unknown.body.errorCode]).toEqual([404, 'MARKET_NOT_FOUND']);
  });

  it('the typed client reads the same candles, amounts and odds as bigint', async () => {
    const client = new OddexClient({ url: ex.url });
    const wire = (await history('interval=5m')).body.data.candles as Candle[];
    const big = (v: string | null) => (v === null ? null : BigInt(v));
    expect(await client.priceHistory(market, { interval: '5m' })).toEqual(
      wire.map((c) => ({ ...c, open: BigInt(c.open), high: BigInt(c.high), low: BigInt(c.low), close: BigInt(c.close), volume: BigInt(c.volume), bestMakerOddsOutcomeOne: big(c.bestMakerOddsOutcomeOne), bestMakerOddsOutcomeTwo: big(c.bestMakerOddsOutcomeTwo) })),
    );
    expect(await client.priceHistory(market, { interval: '1m', limit: 1 })).toHaveLength(1);
    const refused = await client.priceHistory(market, { interval: '1m', from: 10, to: 5 }).catch((e: unknown) => e);
    expect(refused instanceof OddexApiError && refused.errorCode).toBe('INVALID_PARAMETER');
  });

  it('answers the same candles after a restart', async () => {
    const before = await Promise.all(Object.keys(INTERVALS).map((i) => history(`interval=${i}`)));
    ex = await ex.restart();
    const after = await Promise.all(Object.keys(INTERVALS).map((i) => history(`interval=${i}`)));
    expect(after.map((r) => r.body)).toEqual(before.map((r) => r.body));
    expect(after[0]!.body.data.candles).toHaveLength(3);
  });
});
