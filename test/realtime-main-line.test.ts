// Main line over the real server and catalogue: best-odds changes move it and main_line:global announces it.
import { afterEach, expect, it } from 'vitest';
import { startTestExchange, type TestExchange } from './helpers/server.js';
import type { MarketRecord } from '../src/catalogue/catalogue.js';
import { createApiKey, fetchToken, rawConnected, waitFor, wsUrl, type RawClient } from './helpers/realtime.js';
import { emitAny } from './helpers/bus.js';

let ex: TestExchange | undefined;
let client: RawClient | undefined;
afterEach(async () => {
  client?.close();
  await ex?.destroy();
});

it('moves the main line of a totals group to the line whose outcome-one odds are closest to 50%', async () => {
  ex = await startTestExchange({ demo: true });
  const catalogue = ex.ctx.catalogue;
  const totals = catalogue
    .activeMarkets()
    .filter((m) => m.type === 2 && !m.isQuarterLineMarket)
    .reduce((groups, m) => groups.set(m.exchangeEventId, [...(groups.get(m.exchangeEventId) ?? []), m]), new Map<string, MarketRecord[]>());
  const group = [...totals.values()].find((g) => g.length >= 2)!;
  const main = group.find((m) => m.mainLine)!;
  const other = group.find((m) => !m.mainLine)!;
  expect(main).toBeDefined();

  client = await rawConnected(wsUrl(ex), await fetchToken(ex, await createApiKey(ex, '0x1111111111111111111111111111111111111111')));
  await client.call({ subscribe: { channel: 'main_line:global' } });

  const entry = (marketHash: string, percent: number) => ({
    marketHash,
    baseToken: ex!.ctx.config.baseTokenAddress,
    isMakerBettingOutcomeOne: true,
    percentageOdds: (BigInt(percent) * 10n ** 18n).toString(),
    updatedAt: 1,
  });
  emitAny(ex.ctx.bus, 'bestOdds', [entry(main.marketHash, 70), entry(other.marketHash, 49)]);

  // The move is written to the catalogue's store before memory shows it.
  await waitFor(() => catalogue.getMarket(other.marketHash)!.mainLine || undefined, 5000, 'the main line moved');
  expect(catalogue.getMarket(other.marketHash)!.mainLine).toBe(true);
  expect(catalogue.getMarket(main.marketHash)!.mainLine).toBe(false);
  const push = await waitFor(() => client!.pushes('main_line:global')[0]);
  expect(push.push.pub.offset).toBe(1);
  expect(push.push.pub.data).toEqual([catalogue.getMarket(other.marketHash)!, catalogue.getMarket(main.marketHash)!].map((m) => catalogue.toRestMarket(m)));
  expect(push.push.pub.data).toMatchObject([
    { marketHash: other.marketHash, mainLine: true },
    { marketHash: main.marketHash, mainLine: false },
  ]);
});
