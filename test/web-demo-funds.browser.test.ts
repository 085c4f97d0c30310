// A first bet without the operator, in a real browser (Debian chromium through playwright-core): on a freshly
// started demo exchange, with its demo market makers quoting, a person opens the page, gets demo funds with the
// button, bets on a market and sees the bet settle. Only the result comes from the operator (the admin API).
import { expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { browserSuite, type WatchedPage } from './helpers/browser.js';

const suite = browserSuite({ demo: true, demoLiquidity: true });
let w: WatchedPage | undefined;

/** From the Markets tab, the `nth` fixture search finds and its moneyline, once the demo makers quote it. */
async function openQuotedMoneyline(page: Page, nth: number) {
  await page.getByRole('link', { name: 'Markets' }).click();
  await page.getByLabel('Search fixtures').fill('atletico');
  const hit = page.getByLabel('Search results').getByRole('link').nth(nth);
  await hit.click();
  await page.waitForURL(/#\/fixture\//);
  const eventId = decodeURIComponent(page.url().split('#/fixture/')[1]!);
  const markets = (await suite.ex.get(`/markets/active?eventId=${eventId}`)).body.data.markets as { marketHash: string; type: number; outcomeOneName: string }[];
  const market = markets.find((m) => m.type === 52)!;
  await page.locator(`a[data-market-hash="${market.marketHash}"]`).click();
  await page.locator('[aria-label="Order book"][data-feed="live"]').waitFor();
  const ticket = page.getByLabel('Bet ticket');
  await expect.poll(() => ticket.locator('.facts').innerText(), { timeout: 20_000 }).not.toMatch(/no offer/);
  return { market, ticket };
}

interface Trade {
  stake: string;
  odds: string;
  tradeStatus: string;
}

it('a new development wallet gets demo funds from the page, bets, and sees the bet settle', async () => {
  w = await suite.open();
  const { page } = w;
  await page.goto(`${suite.ex.url}/`);
  await page.getByRole('tab', { name: 'Soccer' }).waitFor();

  // My account: no funds, and the exchange offers demo funds.
  await page.getByRole('link', { name: 'My account' }).click();
  await expect.poll(() => page.locator('[data-balance]').getAttribute('data-balance')).toBe('0');
  await page.getByText('This wallet has no funds yet.', { exact: false }).waitFor();
  await page.getByRole('button', { name: 'Get demo funds' }).click();
  await page.getByText('Received 100.00 USDC. Your balance is now 100.00 USDC.').waitFor();
  await expect.poll(() => page.locator('[data-balance]').getAttribute('data-balance')).toBe('100000000');
  await w.screenshot('demo-funds');
  const wallet = (await page.locator('[data-wallet-kind="development"]').getAttribute('data-wallet-address'))!;

  const { market, ticket } = await openQuotedMoneyline(page, 0);

  // Bet 10 USDC on outcome one, with room for the demo makers moving their quotes meanwhile.
  await ticket.getByLabel('Stake').fill('10');
  await ticket.getByLabel('Slippage').fill('5');
  await ticket.getByRole('button', { name: `Bet on ${market.outcomeOneName}` }).click();
  await ticket.getByText(/Filled: 10\.00 USDC/).waitFor({ timeout: 30_000 });
  await ticket.locator('.status.SUCCESS').waitFor();
  await w.screenshot('demo-funds-bet');

  // The operator reports outcome one; the page shows the position settled, to the wei of the trade's odds.
  expect((await suite.ex.admin('POST', `/admin/markets/${market.marketHash}/report`, { outcome: 1 })).status).toBe(200);
  const trades = (await suite.ex.get(`/trades?bettor=${wallet}&maker=false`)).body.data.trades as Trade[];
  expect(trades.map((t) => [t.stake, t.tradeStatus])).toEqual([['10000000', 'SUCCESS']]);
  const pot = (10_000_000n * 10n ** 20n) / BigInt(trades[0]!.odds);
  await page.getByRole('link', { name: 'My account' }).click();
  const position = page.locator(`[data-position="${market.marketHash}"] [data-settled-pnl]`);
  await expect.poll(() => position.getAttribute('data-settled-pnl'), { timeout: 10_000 }).toBe((pot - 10_000_000n).toString());
  await page.getByLabel('Trades').locator('.status.settled').waitFor();
  await expect.poll(() => page.locator('[data-balance]').getAttribute('data-balance'), { timeout: 10_000 }).toBe((100_000_000n - 10_000_000n + pot).toString());
  expect((await suite.ex.get(`/balances/${wallet}`)).body.data.balance).toBe((100_000_000n - 10_000_000n + pot).toString());
  await w.screenshot('demo-funds-settled');
  expect(w.errors).toEqual([]);
}, 120_000);

it('a bet refused for want of funds offers demo funds in the ticket, and the next try is filled', async () => {
  const fresh = await suite.open(); // a new browser profile: a new development wallet with nothing
  const { page } = fresh;
  await page.goto(`${suite.ex.url}/`);
  await page.getByRole('tab', { name: 'Soccer' }).waitFor();
  const { market, ticket } = await openQuotedMoneyline(page, 1); // the first one's moneyline is settled by now
  await ticket.getByLabel('Stake').fill('10');
  await ticket.getByLabel('Slippage').fill('5');
  const bet = ticket.getByRole('button', { name: `Bet on ${market.outcomeOneName}` });
  fresh.expectFailedRequest('/orders/fill/v2', 400); // the refusal this test provokes
  await bet.click();
  await ticket.getByText('Your bet was refused.').waitFor({ timeout: 30_000 });
  await ticket.getByText('INSUFFICIENT_BALANCE', { exact: false }).waitFor();
  await ticket.getByRole('button', { name: 'Get demo funds' }).click();
  await ticket.getByText('Received 100.00 USDC. Your balance is now 100.00 USDC.').waitFor();
  await bet.click();
  await ticket.getByText(/Filled: 10\.00 USDC/).waitFor({ timeout: 30_000 });
  await fresh.screenshot('demo-funds-ticket');
  expect(fresh.errors).toEqual([]);
}, 120_000);

it('a grant refused after earlier ones says so alone: the last grant is no longer reported as just received', async () => {
  const opened = await suite.open();
  const { page } = opened;
  await page.goto(`${suite.ex.url}/#/account`);
  const button = page.getByRole('button', { name: 'Get demo funds' });
  const received = page.getByText(/^Received 100\.00 USDC\./);
  // Three grants an hour per address (the default): each click's line says what that click got.
  for (const balance of ['100.00', '200.00', '300.00']) {
    await button.click();
    await page.getByText(`Received 100.00 USDC. Your balance is now ${balance} USDC.`).waitFor();
  }
  opened.expectFailedRequest('/user/demo-funds', 429);
  await button.click();
  await page.getByRole('alert').getByText('RATE_LIMITED').waitFor();
  expect(await received.count()).toBe(0);
  await expect.poll(() => page.locator('[data-balance]').getAttribute('data-balance')).toBe('300000000');
  expect(opened.errors).toEqual([]);
}, 60_000);
