// Demo defaults give live books from the first start: two-sided best odds on at least 90% of the active demo
// markets within 10 seconds of the exchange answering, and trades from the demo taker within 60 seconds. Off when
// asked, never outside demo.
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestExchange, type TestExchange } from './helpers/server.js';

let ex: TestExchange | undefined;
afterEach(async () => {
  await ex?.destroy();
  ex = undefined;
});

/** Active markets, without those that take no orders now (in play but not enabled for in-play betting). */
async function activeMarketHashes(t: TestExchange): Promise<string[]> {
  const markets: { marketHash: string; exchangeEventId: string; leagueId: number; liveEnabled: boolean }[] = [];
  let key = '';
  do {
    const res = await t.get(`/markets/active?pageSize=100${key ? `&paginationKey=${encodeURIComponent(key)}` : ''}`);
    markets.push(...res.body.data.markets);
    key = res.body.data.nextKey;
  } while (key);
  const live = new Set<string>();
  for (const leagueId of new Set(markets.map((m) => m.leagueId))) {
    const fixtures = (await t.get(`/fixture/active?leagueId=${leagueId}`)).body.data as { eventId: string; status: number }[];
    for (const f of fixtures) if (f.status === 2) live.add(f.eventId);
  }
  return markets.filter((m) => m.liveEnabled || !live.has(m.exchangeEventId)).map((m) => m.marketHash);
}

async function twoSidedShare(t: TestExchange, hashes: string[]): Promise<number> {
  const token = t.ctx.config.baseTokenAddress;
  let twoSided = 0;
  for (let i = 0; i < hashes.length; i += 50) {
    const res = await t.get(`/orders/odds/best?baseToken=${token}&marketHashes=${hashes.slice(i, i + 50).join(',')}`);
    for (const b of res.body.data.bestOdds) if (b.outcomeOne?.percentageOdds && b.outcomeTwo?.percentageOdds) twoSided++;
  }
  return twoSided / hashes.length;
}

describe('demo liquidity', () => {
  it('quotes both sides of at least 90% of active markets within 10 s, and the demo taker trades within 60 s', async () => {
    const started = Date.now();
    ex = await startTestExchange({ demo: true, demoLiquidity: true });
    // Counted from the first answer: the start itself is not the demo makers' time. On a loaded machine (six busy
    // loops beside this test) it took 3.3 s and the quoting 5.4 s, together close to the 10 s.
    const answering = Date.now();
    const hashes = await activeMarketHashes(ex);
    expect(hashes.length).toBeGreaterThan(400);
    let share = 0;
    while (Date.now() - answering < 10_000) {
      share = await twoSidedShare(ex, hashes);
      if (share >= 0.9) break;
      await sleep(250);
    }
    expect(share).toBeGreaterThanOrEqual(0.9);

    const since = Math.floor(started / 1000) - 1;
    let trades: unknown[] = [];
    while (Date.now() - started < 60_000 && trades.length === 0) {
      await sleep(1000);
      trades = (await ex.get(`/trades?startDate=${since}`)).body.data.trades;
    }
    expect(trades.length).toBeGreaterThan(0);
    // The demo wallets are kept for the next start.
    expect(existsSync(join(ex.dataDir, 'demo-wallets.json'))).toBe(true);
  }, 90_000);

  it('ODDEX_DEMO_LIQUIDITY=false leaves the books empty, and so does demo mode off', async () => {
    for (const overrides of [{ demo: true, demoLiquidity: false }, { demo: false, demoLiquidity: true }]) {
      ex = await startTestExchange(overrides);
      await sleep(3000);
      const hashes = (await activeMarketHashes(ex)).slice(0, 100);
      if (hashes.length > 0) expect(await twoSidedShare(ex, hashes)).toBe(0);
      expect(existsSync(join(ex.dataDir, 'demo-wallets.json'))).toBe(false);
      await ex.destroy();
      ex = undefined;
    }
  }, 30_000);
});
