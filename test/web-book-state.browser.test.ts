// The market page says what it knows of the book, in a real browser (Debian chromium through playwright-core): while
// the first snapshot is on its way the book and the bet ticket say they are reading it (they used to say "No offer."
// and "no offer on …" of a market with offers), and while the realtime connection is down the ticket warns that the
// prices it shows may be out of date (it used to go on quoting them as the expected odds with no word). A first
// snapshot the exchange refuses is read again (it used to leave the book on "loading", or with the orders published
// since then standing for the whole book).
import { expect, it } from 'vitest';
import { betTestConfig, createFixtureMarket, createSoccerLeague, fundedWallet, postOrder } from './helpers/bets.js';
import { browserSuite } from './helpers/browser.js';
import { E18, USDC } from './helpers/wallets.js';

const suite = browserSuite({ ...betTestConfig(), demo: false });
let catalogue: Awaited<ReturnType<typeof createSoccerLeague>> | undefined;
const league = async () => (catalogue ??= await createSoccerLeague(suite.ex));
/** A new moneyline market with one maker's offer on outcome one (the maker backs outcome two at 50%). */
async function marketWithAnOffer() {
  const { markets } = await createFixtureMarket(suite.ex, await league(), { type: 52 });
  const market = markets[0]!.marketHash;
  const maker = await fundedWallet(suite.ex, 1000n * USDC);
  await postOrder(suite.ex, maker, { marketHash: market, totalBetSize: 20n * USDC, percentageOdds: 50n * E18, isMakerBettingOutcomeOne: false });
  return { market, maker };
}

it('shows the book as loading until its snapshot arrives, and warns of stale prices while the realtime feed reconnects', async () => {
  const ex = suite.ex;
  const { market } = await marketWithAnOffer();

  const w = await suite.open();
  const { page, context } = { page: w.page, context: w.page.context() };
  // The book's snapshot (GET /orders?marketHashes=…) is slow to come.
  let release: () => void = () => {};
  const released = new Promise<void>((r) => (release = r));
  await page.route(
    (url) => url.pathname === '/orders' && url.searchParams.has('marketHashes'),
    async (route) => {
      await released;
      await route.continue();
    },
  );
  await page.goto(`${ex.url}/#/market/${market}`);
  const book = page.getByLabel('Order book');
  const ticket = page.getByLabel('Bet ticket');
  await ticket.waitFor();
  await expect.poll(() => book.getAttribute('data-feed')).toBe('loading');
  expect(await book.innerText()).not.toMatch(/No offer/);
  expect(await book.innerText()).toMatch(/Loading offers/);
  expect(await ticket.locator('.facts').innerText()).toMatch(/reading the order book/);

  release();
  await expect.poll(() => ticket.locator('.facts').innerText(), { timeout: 10_000 }).toMatch(/Expected odds\s+2\.00/);
  await expect.poll(() => book.getAttribute('data-feed')).toBe('live');
  expect(await ticket.locator('[data-stale-prices]').count()).toBe(0);

  // The realtime connection drops: the ticket warns; once it is back, the warning goes.
  await context.setOffline(true);
  await ticket.locator('[data-stale-prices]').waitFor({ timeout: 10_000 });
  await context.setOffline(false);
  await expect.poll(() => ticket.locator('[data-stale-prices]').count(), { timeout: 20_000 }).toBe(0);
  expect(w.errors.filter((e) => !e.includes('ERR_INTERNET_DISCONNECTED'))).toEqual([]);
});

it('reads the book again when its first snapshot is refused, instead of staying on "loading" or showing a partial book', async () => {
  const ex = suite.ex;
  const { market, maker } = await marketWithAnOffer();

  const w = await suite.open();
  const { page } = w;
  // The first snapshot is answered 500 (not retried by the HTTP client); the next ones go through.
  let refused = 0;
  await page.route(
    (url) => url.pathname === '/orders' && url.searchParams.has('marketHashes'),
    (route) =>
      refused++ === 0
        ? route.fulfill({ status: 500, contentType: 'application/json', body: JSON.stringify({ status: 'failure', errorCode: 'INTERNAL_ERROR', message: 'boom' }) })
        : route.continue(),
  );
  w.expectFailedRequest('/orders', 500);
  await page.goto(`${ex.url}/#/market/${market}`);
  const book = page.getByLabel('Order book');
  // Meanwhile an order on the other side arrives by publication: it must not stand alone for the book.
  await postOrder(ex, maker, { marketHash: market, totalBetSize: 20n * USDC, percentageOdds: 45n * E18, isMakerBettingOutcomeOne: true });
  await expect.poll(() => book.getAttribute('data-feed'), { timeout: 15_000 }).toBe('live');
  await expect.poll(() => book.locator('[data-order-hash]').count(), { timeout: 10_000 }).toBe(2);
  expect(await book.innerText()).not.toMatch(/could not be read/);
  expect(await page.getByLabel('Bet ticket').locator('.facts').innerText()).toMatch(/Expected odds\s+2\.00/);
  expect(w.errors).toEqual([]);
});
