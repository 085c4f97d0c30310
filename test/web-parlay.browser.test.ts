// A parlay from the bet slip, in a real browser (Debian chromium through playwright-core), against the demo market
// makers: selections from two fixtures' pages, the request, the offers shown when the quote window closes, one
// taken, and the parlay settled once the operator reports both legs (the results are the only operator step).
import { expect, it } from 'vitest';
import { defaultConfig } from '../src/config.js';
import { browserSuite, PHONE, type WatchedPage } from './helpers/browser.js';
import { newWallet } from './helpers/wallets.js';

// The default rates (parlays 500 bps) with a fee account to pay them to: without one nothing is charged.
const suite = browserSuite({ demo: true, demoLiquidity: true, fees: { ...defaultConfig().fees, account: newWallet().address } });
let w: WatchedPage | undefined;

interface DemoMarket {
  marketHash: string;
  exchangeEventId: string;
  type: number;
  gameTime: number;
  liveEnabled: boolean;
  outcomeOneName: string;
  outcomeTwoName: string;
}

/** Moneylines of two fixtures that start in more than an hour (no kick-off during the test). */
async function twoMoneylines(): Promise<[DemoMarket, DemoMarket]> {
  const markets: DemoMarket[] = [];
  for (let key = ''; ; ) {
    const page = (await suite.ex.get(`/markets/active?type=52&pageSize=100${key ? `&paginationKey=${key}` : ''}`)).body.data;
    markets.push(...page.markets);
    if (!page.nextKey) break;
    key = page.nextKey;
  }
  const later = markets.filter((m) => m.gameTime > Date.now() / 1000 + 3600);
  const first = later[0]!;
  const second = later.find((m) => m.exchangeEventId !== first.exchangeEventId)!;
  return [first, second];
}

it('collects selections from two fixtures, requests the parlay, takes an offer from the demo makers and sees it settle', async () => {
  w = await suite.open();
  const { page } = w;
  await page.goto(`${suite.ex.url}/`);
  await page.getByRole('tab', { name: 'Soccer' }).waitFor();
  const wallet = (await page.locator('[data-wallet-kind="development"]').getAttribute('data-wallet-address'))!;
  expect((await suite.ex.admin('POST', '/admin/faucet', { address: wallet, amount: '100000000' })).status).toBe(200);
  const [a, b] = await twoMoneylines();
  // The demo makers quote once started: wait for their quotes on the first leg.
  await expect
    .poll(async () => (await suite.ex.get(`/orders?marketHashes=${a.marketHash}`)).body.data.length, { timeout: 30_000 })
    .toBeGreaterThan(0);

  // Outcome one of a's fixture, outcome two of b's.
  await page.goto(`${suite.ex.url}/#/fixture/${encodeURIComponent(a.exchangeEventId)}`);
  await page.locator(`tr:has(a[data-market-hash="${a.marketHash}"])`).getByRole('button', { name: `Add ${a.outcomeOneName} (` }).click();
  const slip = page.getByLabel('Bet slip');
  await slip.locator(`[data-leg="${a.marketHash}"]`).waitFor();
  await page.goto(`${suite.ex.url}/#/fixture/${encodeURIComponent(b.exchangeEventId)}`);
  await page.locator(`tr:has(a[data-market-hash="${b.marketHash}"])`).getByRole('button', { name: `Add ${b.outcomeTwoName} (` }).click();
  await expect.poll(() => slip.locator('[data-leg]').count()).toBe(2);
  await w.screenshot('parlay-slip');

  await slip.getByLabel('Parlay stake').fill('10');
  await slip.getByRole('button', { name: 'Request parlay' }).click();
  await slip.getByText(/Market makers are quoting/).waitFor();
  const offers = slip.getByLabel('Parlay offers');
  await offers.waitFor({ timeout: 15_000 });
  // Every demo maker quoted within the window, and the offers appear together.
  expect(await offers.locator('[data-offer]').count()).toBe(3);
  const parlay = (await offers.getAttribute('data-parlay'))!;
  const market = (await suite.ex.get(`/markets/find?marketHashes=${parlay}`)).body.data[0];
  expect(market.legs).toEqual([
    { marketHash: a.marketHash, bettingOutcomeOne: true },
    { marketHash: b.marketHash, bettingOutcomeOne: false },
  ]);
  expect(market.parlay.bettor).toBe(wallet);
  await w.screenshot('parlay-offers');

  // Listed in the order the exchange fills them: the one taken is the first listed, at the odds the button names.
  const first = (await offers.locator('[data-offer]').first().getAttribute('data-offer'))!;
  await offers.getByRole('button', { name: /^Take at / }).click();
  await slip.getByText(/Parlay filled/).waitFor({ timeout: 15_000 });
  const trades = await (async () => {
    for (;;) {
      const t = (await suite.ex.get(`/trades?bettor=${wallet}&marketHashes=${parlay}`)).body.data.trades as { stake: string; odds: string; tradeStatus: string; orderHash: string }[];
      if (t.length > 0 && t.every((x) => x.tradeStatus === 'SUCCESS')) return t;
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  expect(trades.map((t) => [t.stake, t.orderHash])).toEqual([['10000000', first]]);

  // Both legs win as picked: the parlay pays stake / odds less the parlay commission (500 bps of the profit by
  // default, rounded down), to the wei.
  expect((await suite.ex.admin('POST', `/admin/markets/${a.marketHash}/report`, { outcome: 1 })).status).toBe(200);
  expect((await suite.ex.admin('POST', `/admin/markets/${b.marketHash}/report`, { outcome: 2 })).status).toBe(200);
  const payout = (10_000_000n * 10n ** 20n) / BigInt(trades[0]!.odds);
  const fee = ((payout - 10_000_000n) * 500n) / 10_000n;
  await page.getByRole('link', { name: 'My account' }).click();
  const position = page.locator(`[data-position="${parlay}"] [data-settled-pnl]`);
  await expect.poll(() => position.getAttribute('data-settled-pnl'), { timeout: 15_000 }).toBe((payout - fee - 10_000_000n).toString());
  const balance = (100_000_000n - 10_000_000n + payout - fee).toString();
  await expect.poll(() => page.locator('[data-balance]').getAttribute('data-balance'), { timeout: 10_000 }).toBe(balance);
  expect((await suite.ex.get(`/balances/${wallet}`)).body.data.balance).toBe(balance);
  await w.screenshot('parlay-settled');
  expect(w.errors).toEqual([]);
}, 180_000);

it('on a phone, a selection added far up a fixture page shows the slip at once, at the bottom of the screen; it folds to its header', async () => {
  const phone = await suite.open(PHONE);
  const { page } = phone;
  const [a] = await twoMoneylines();
  await page.goto(`${suite.ex.url}/#/fixture/${encodeURIComponent(a.exchangeEventId)}`);
  await page.locator(`tr:has(a[data-market-hash="${a.marketHash}"])`).getByRole('button', { name: `Add ${a.outcomeOneName} (` }).click();
  const slip = page.getByLabel('Bet slip', { exact: true });
  await slip.locator(`[data-leg="${a.marketHash}"]`).waitFor();
  // The fixture page is longer than the screen, and the slip comes after it in the page: it is in view all the same.
  expect(await page.evaluate('document.documentElement.scrollHeight')).toBeGreaterThan(PHONE.height);
  const inView = async () => {
    const box = (await slip.boundingBox())!;
    return box.y >= 0 && box.y + box.height <= PHONE.height;
  };
  expect(await inView()).toBe(true);
  await expect.poll(() => slip.getByRole('heading').textContent()).toBe('Bet slip (1)');
  await phone.screenshot('parlay-slip-phone');

  // Folded, only its header is left; shown again, the stake typed before is still there.
  await slip.getByLabel('Parlay stake').fill('7');
  await slip.getByRole('button', { name: 'Hide' }).click();
  expect(await slip.getByLabel('Parlay stake').isVisible()).toBe(false);
  expect((await slip.boundingBox())!.height).toBeLessThan(80);
  expect(await inView()).toBe(true);
  await slip.getByRole('button', { name: 'Show' }).click();
  expect(await slip.getByLabel('Parlay stake').inputValue()).toBe('7');
  expect(phone.errors).toEqual([]);
}, 60_000);
