// A bet refused for the rate limit, in a real browser (Debian chromium through playwright-core): the bettor is told
// at once, with the wait the exchange named, and the page does not send the bet again on its own. (It used to retry
// it for about 15 s, the ticket saying meanwhile that the betting delay was running, and could then place it at the
// odds of that later moment.)
import { expect, it } from 'vitest';
import { defaultConfig } from '../src/config.js';
import { betTestConfig, createFixtureMarket, createSoccerLeague, fundedWallet, postOrder } from './helpers/bets.js';
import { browserSuite } from './helpers/browser.js';
import { E18, USDC } from './helpers/wallets.js';

// Two order operations a minute from one client address: the maker's order below, then the page's first bet.
const suite = browserSuite({ ...betTestConfig(), demo: false, rateLimits: { ...defaultConfig().rateLimits, enabled: true, orderOpsPerWindow: 2, windowMs: 60_000 } });

it('shows a rate-limited bet as refused at once, with the wait, and sends it only once', async () => {
  const ex = suite.ex;
  const w = await suite.openFunded(100n * USDC);
  const { page, wallet } = w;
  const cat = await createSoccerLeague(ex);
  const { markets } = await createFixtureMarket(ex, cat, { type: 52 });
  const market = markets[0]!.marketHash;
  const maker = await fundedWallet(ex, 1000n * USDC);
  await postOrder(ex, maker, { marketHash: market, totalBetSize: 50n * USDC, percentageOdds: 50n * E18, isMakerBettingOutcomeOne: false });

  const fills: number[] = [];
  page.on('request', (r) => void (r.url().endsWith('/orders/fill/v2') && fills.push(Date.now())));
  await page.goto(`${ex.url}/#/market/${market}`);
  const ticket = page.getByLabel('Bet ticket');
  await expect.poll(() => ticket.locator('.facts').innerText(), { timeout: 20_000 }).not.toMatch(/no offer/);
  await ticket.getByLabel('Stake').fill('2');
  await ticket.getByRole('button', { name: /^Bet on / }).click();
  await ticket.getByText(/Filled: 2\.00 USDC/).waitFor({ timeout: 20_000 });

  // The second bet is over the limit.
  w.expectFailedRequest('/orders/fill/v2', 429);
  await ticket.getByLabel('Stake').fill('3');
  const clicked = Date.now();
  await ticket.getByRole('button', { name: /^Bet on / }).click();
  await ticket.getByRole('alert').waitFor({ timeout: 20_000 });
  const shownAfter = Date.now() - clicked;
  expect(await ticket.getByRole('alert').innerText()).toMatch(/^Too many requests for now: try again in \d+ s\. RATE_LIMITED$/);
  expect(shownAfter).toBeLessThan(3_000);
  await new Promise((r) => setTimeout(r, 6_000));
  expect(fills.length).toBe(2);
  const { trades } = (await ex.get(`/trades?bettor=${wallet}`)).body.data as { trades: { stake: string }[] };
  expect(trades.map((t) => t.stake)).toEqual([(2n * USDC).toString()]);

  // A long wait reads in minutes (the demo funds' limit answers Retry-After up to an hour).
  w.expectFailedRequest('/orders/fill/v2', 429);
  await page.route(
    (url) => url.pathname === '/orders/fill/v2',
    (route) =>
      route.fulfill({
        status: 429,
        headers: { 'retry-after': '3599', 'content-type': 'application/json' },
        body: JSON.stringify({ status: 'failure', errorCode: 'RATE_LIMITED', message: 'retry after 3599 s' }),
      }),
  );
  await ticket.getByRole('button', { name: /^Bet on / }).click();
  await expect.poll(() => ticket.getByRole('alert').innerText()).toBe('Too many requests for now: try again in 60 min. RATE_LIMITED');
  expect(w.errors).toEqual([]);
});
