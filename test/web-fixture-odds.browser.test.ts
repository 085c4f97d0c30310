// The fixture page keeps its best odds live in a real browser: a maker's order appears as the price to back the other
// outcome, and its cancel takes it away, with no reload. A settled market names its winner and takes no bets; the bet ticket says when a stake is more than the book holds.
import { expect, it } from 'vitest';
import { betTestConfig, createFixtureMarket, createSoccerLeague, fundedWallet, postOrder } from './helpers/bets.js';
import { browserSuite, type WatchedPage } from './helpers/browser.js';
import { E18, USDC, signedCancel } from './helpers/wallets.js';

const suite = browserSuite({ ...betTestConfig(), demo: false });
let w: WatchedPage | undefined;

it('shows a new best price and its removal on the fixture page without a reload', async () => {
  const ex = suite.ex;
  const { exchangeEventId, markets } = await createFixtureMarket(ex, await createSoccerLeague(ex), { type: 52 });
  const market = markets[0]!.marketHash;
  w = await suite.open();
  const { page } = w;
  await page.goto(`${ex.url}/#/fixture/${encodeURIComponent(exchangeEventId)}`);
  const row = page.locator(`tr:has(a[data-market-hash="${market}"])`);
  await expect.poll(() => row.innerText(), { timeout: 20_000 }).toMatch(/no offer[\s\S]*no offer/);

  // A maker backs outcome one at 40%: backing outcome two now pays 1/0.6.
  const maker = await fundedWallet(ex, 100n * USDC);
  const orderHash = await postOrder(ex, maker, { marketHash: market, totalBetSize: 20n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: true });
  await expect.poll(() => row.innerText(), { timeout: 20_000 }).toMatch(/1\.67|60(\.0+)?%|\+?-?150/);
  expect((await row.innerText()).match(/no offer/g)).toHaveLength(1);

  // The bet ticket says when a stake is more than the book holds: 20 at 40% take 30 on outcome two.
  await page.goto(`${ex.url}/#/market/${market}`);
  const ticket = page.getByLabel('Bet ticket');
  await ticket.getByRole('group', { name: 'Outcome' }).getByRole('button').nth(1).click();
  await ticket.getByLabel('Stake').fill('50');
  await ticket.getByText(/Only 30(\.00)? USDC is on offer/).waitFor({ timeout: 20_000 });
  await ticket.getByLabel('Stake').fill('30');
  await expect.poll(() => ticket.getByText(/is on offer/).count()).toBe(0);
  await page.goto(`${ex.url}/#/fixture/${encodeURIComponent(exchangeEventId)}`);

  const cancel = await ex.post('/orders/cancel/v2', await signedCancel(maker, ex.ctx.config, 'v2', { orderHashes: [orderHash] }));
  expect(cancel.status).toBe(200);
  await expect.poll(() => row.innerText(), { timeout: 20_000 }).toMatch(/no offer[\s\S]*no offer/);

  // Once reported, the market page names the winner and offers no bet ticket or maker form.
  expect((await ex.admin('POST', `/admin/markets/${market}/report`, { outcome: 1 })).status).toBe(200);
  await page.goto(`${ex.url}/#/market/${market}`);
  const { outcomeOneName } = (await ex.get(`/markets/find?marketHashes=${market}`)).body.data[0] as { outcomeOneName: string };
  await page.getByText(`settled: ${outcomeOneName} won`).waitFor({ timeout: 20_000 });
  expect(await page.getByLabel('Bet ticket').count()).toBe(0);
  expect(w.errors).toEqual([]);
}, 90_000);
