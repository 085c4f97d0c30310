// The market page's price chart in a real browser (Debian chromium through playwright-core) against the real
// exchange: the chart draws the market's candles from GET /markets/:marketHash/history, and a fill made while the
// page is open (another bettor, over the API) moves its last close without a reload.
import { expect, it } from 'vitest';
import { browserSuite } from './helpers/browser.js';
import { betTestConfig, createFixtureMarket, createSoccerLeague, fillAndConfirm, fundedWallet, postOrder } from './helpers/bets.js';
import { E18, USDC } from './helpers/wallets.js';

const suite = browserSuite(betTestConfig());

it('draws the price history and follows a new fill live', async () => {
  const ex = suite.ex;
  const { markets } = await createFixtureMarket(ex, await createSoccerLeague(ex), { type: 52 });
  const market = markets[0]!.marketHash;
  const maker = await fundedWallet(ex);
  const taker = await fundedWallet(ex);
  await postOrder(ex, maker, { marketHash: market, totalBetSize: 100n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: true });
  await postOrder(ex, maker, { marketHash: market, totalBetSize: 100n * USDC, percentageOdds: 45n * E18, isMakerBettingOutcomeOne: false });
  // Outcome two at 60%: outcome one traded at 40%.
  await fillAndConfirm(ex, taker, { market, isTakerBettingOutcomeOne: false, stakeWei: 30n * USDC, desiredOdds: 60n * E18 });

  const { page, errors, screenshot } = await suite.open();
  await page.goto(`${ex.url}/#/market/${market}`);
  const chart = page.getByLabel('Price history');
  await page.locator(`[aria-label="Price history"][data-last-close="${40n * E18}"]`).waitFor();
  expect(await chart.getAttribute('data-candles')).toBe('1');
  // lightweight-charts draws on canvases sized to the chart's box.
  const canvas = chart.locator('.price-chart canvas').first();
  await canvas.waitFor();
  const box = await canvas.boundingBox();
  expect(box!.width).toBeGreaterThan(100);
  expect(box!.height).toBeGreaterThan(100);
  await expect.poll(() => chart.innerText()).toMatch(/last 40%/);
  await page.evaluate('window.chartMark = 1');

  // Outcome one at 55% while the page is open: the chart follows over recent_trades:global.
  await fillAndConfirm(ex, taker, { market, isTakerBettingOutcomeOne: true, stakeWei: 11n * USDC, desiredOdds: 55n * E18 });
  await page.locator(`[aria-label="Price history"][data-last-close="${55n * E18}"]`).waitFor();
  await expect.poll(() => chart.innerText()).toMatch(/last 55%/);
  expect(await page.evaluate('window.chartMark === 1')).toBe(true);
  const history = (await ex.get(`/markets/${market}/history?interval=5m`)).body.data.candles;
  expect(await chart.getAttribute('data-candles')).toBe(String(history.length));
  await screenshot('market-price-chart');
  expect(errors).toEqual([]);
}, 90_000);
