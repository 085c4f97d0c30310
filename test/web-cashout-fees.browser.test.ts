// Cash out and fees in a real browser (Debian chromium through playwright-core): the page's wallet bets 30 on
// outcome one against a maker's 20 on two; once a maker offers outcome one at 80%, the account view shows the
// position worth 39.60 (40 less the 1% cash-out fee, both named in the offer) and its button cashes it out: 40 paid at once (what the hedged
// position is owed in every result, a void's 40 staked included) less 0.40. After the report the settled trade shows
// the fee on its winnings, and the operator console shows the market's fee revenue, the cash-out fee included.
import { expect, it } from 'vitest';
import { betTestConfig, createFixtureMarket, createSoccerLeague, fundedWallet, postOrder } from './helpers/bets.js';
import { browserSuite, DESKTOP, PHONE, type WatchedPage } from './helpers/browser.js';
import { publicationsOut, TEST_ADMIN_TOKEN } from './helpers/server.js';
import { E18, USDC, newWallet } from './helpers/wallets.js';

const FUNDS = 100n * USDC;
const suite = browserSuite({
  ...betTestConfig(),
  demo: false,
  fees: { singlesBps: 500, parlaysBps: 500, account: newWallet().address, affiliateShareBps: 0, cashoutBps: 100 },
});
let w: WatchedPage | undefined;

it('shows a live cash-out value with a button that hedges the position, the fee on the settled bet, and fee revenue in the console', async () => {
  const ex = suite.ex;
  const opened = await suite.openFunded(FUNDS);
  w = opened;
  const { page, wallet } = opened;

  const cat = await createSoccerLeague(ex);
  const { markets } = await createFixtureMarket(ex, cat, { type: 52 });
  const market = markets[0]!.marketHash;
  const maker = await fundedWallet(ex, 1000n * USDC);
  await postOrder(ex, maker, { marketHash: market, totalBetSize: 20n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: false });

  // The page's wallet backs outcome one with 30 (at 60%: owed 50 if it wins).
  await page.goto(`${ex.url}/#/market/${market}`);
  const ticket = page.getByLabel('Bet ticket');
  await expect.poll(() => ticket.locator('.facts').innerText(), { timeout: 20_000 }).not.toMatch(/no offer/);
  await ticket.getByLabel('Stake').fill('30');
  await ticket.getByRole('button', { name: /^Bet on / }).click();
  await ticket.getByText(/Filled: 30\.00 USDC/).waitFor({ timeout: 30_000 });
  await ticket.locator('.status.SUCCESS').waitFor({ timeout: 30_000 });

  // Nothing on the book to hedge with: no value, and the page does not keep asking for one (each refused quote is a
  // failed request in the console) until the book changes. The fill's book publications go out first: one arriving
  // after the page subscribed would be a change of the book, rightly asked about again.
  await publicationsOut(ex);
  await page.goto(`${ex.url}/#/account`);
  const cashOut = page.locator(`[data-position="${market}"] [data-cash-out]`);
  await expect.poll(() => cashOut.innerText(), { timeout: 20_000 }).toBe('not enough on offer');
  const quoteErrors = () => w!.errors.filter((e) => e.includes('/cashout/quote')).length;
  // Asked on loading, and again once subscribed to the book (a change in between would otherwise be missed).
  await expect.poll(quoteErrors, { timeout: 5_000 }).toBe(2);
  await new Promise((r) => setTimeout(r, 4_000));
  expect(quoteErrors()).toBe(2);

  // Outcome one is now offered at 80%: the hedge takes two at 20% (10 returns 50), worth 40 less 0.40. The value shows
  // without a reload.
  const hedger = await fundedWallet(ex, 1000n * USDC);
  await postOrder(ex, hedger, { marketHash: market, totalBetSize: 100n * USDC, percentageOdds: 80n * E18, isMakerBettingOutcomeOne: true });
  await expect.poll(() => cashOut.getAttribute('data-cash-out'), { timeout: 20_000 }).toBe('39600000');
  // The offer itself names the fee and what the bettor gets, not a tooltip: 39.60 after a 0.40 fee, all paid at once.
  expect(await cashOut.getAttribute('data-cash-out-fee')).toBe('400000');
  expect(await cashOut.getAttribute('data-paid-now')).toBe('39600000');
  expect(await cashOut.innerText()).toMatch(/^39\.60 USDC Cash out\s+after a 0\.40 USDC fee: you receive 39\.60 USDC when it confirms$/);
  expect(await cashOut.locator('[data-cash-out-terms]').isVisible()).toBe(true);
  // The offer and its button are in sight on a desktop screen and on a phone: the terms wrap in their cell instead of
  // widening the positions table past its card, where the button would only be found by scrolling the card sideways.
  for (const viewport of [DESKTOP, PHONE]) {
    await page.setViewportSize(viewport);
    const positions = page.getByLabel('Positions', { exact: true });
    await expect.poll(() => positions.evaluate((card) => card.scrollWidth - card.clientWidth), { timeout: 5_000 }).toBe(0);
    const card = (await positions.boundingBox())!;
    const button = (await cashOut.getByRole('button', { name: 'Cash out' }).boundingBox())!;
    expect([viewport.width, button.x + button.width <= card.x + card.width]).toEqual([viewport.width, true]);
  }
  await page.setViewportSize(DESKTOP);
  await w.screenshot('cash-out-value');
  await cashOut.getByRole('button', { name: 'Cash out' }).click();
  // Cashed out: the position pays 50 either way and 40 on a void: 40 came back at once, less the 0.40 fee. The page
  // asks for no quote meanwhile (the exchange would refuse one while the cash out confirms, 409 CASHOUT_PENDING) nor
  // once the position pays the same either way (409 NOTHING_TO_CASH_OUT): the position says so.
  await expect.poll(() => cashOut.innerText(), { timeout: 20_000 }).toBe('hedged');
  await new Promise((r) => setTimeout(r, 1_000));
  expect(quoteErrors()).toBe(2);
  expect(await cashOut.getAttribute('data-cash-out-refusal')).toBe('NOTHING_TO_CASH_OUT');
  // On a phone the page is no wider than the screen, and the positions, statement and trades tables fit their cards:
  // each row a block of labelled lines, a position's cash out and profit in sight without scrolling sideways.
  await page.setViewportSize(PHONE);
  await expect.poll(() => page.evaluate('document.documentElement.scrollWidth'), { timeout: 5_000 }).toBeLessThanOrEqual(PHONE.width);
  for (const table of ['Positions', 'Statement', 'Trades']) {
    await expect.poll(() => page.getByLabel(table, { exact: true }).evaluate((card) => card.scrollWidth - card.clientWidth), { timeout: 5_000 }).toBe(0);
  }
  expect(await cashOut.innerText()).toBe('hedged');
  const cell = (await cashOut.boundingBox())!;
  expect(cell.x + cell.width).toBeLessThanOrEqual(PHONE.width);
  await w.screenshot('account-phone');
  await page.setViewportSize(DESKTOP);
  await expect.poll(async () => (await ex.get(`/balances/${wallet}`)).body.data.balance, { timeout: 20_000 }).toBe((FUNDS - 400_000n).toString());

  // Outcome two: the hedge trade wins; the position's net winnings are 50 - 40 = 10, and 5% of them is the fee; the
  // 10 above what was paid at once comes now.
  expect((await ex.admin('POST', `/admin/markets/${market}/report`, { outcome: 2 })).status).toBe(200);
  await expect.poll(() => page.locator('[data-fee="500000"]').count(), { timeout: 20_000 }).toBe(1);
  await expect.poll(() => page.locator('[data-balance]').getAttribute('data-balance'), { timeout: 20_000 }).toBe((FUNDS + 9_100_000n).toString());
  await w.screenshot('settled-with-fee');

  // The console: the market's fees that day, the bettor's 0.50, the maker's 1.50 (its 30 won on 20) and the 0.40 cash-out fee.
  await page.goto(`${ex.url}/#/console`);
  await page.getByLabel('Admin token').fill(TEST_ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Open console' }).click();
  const row = page.locator(`[data-fee-market="${market}"]`);
  await expect.poll(() => row.getAttribute('data-fees'), { timeout: 20_000 }).toBe('2400000');
  expect(await row.getAttribute('data-fee-day')).toBe(new Date().toISOString().slice(0, 10));
  await w.screenshot('console-fees');
  // The two refused quotes before the offer are the only failed requests: none once hedged, none once settled.
  expect(quoteErrors()).toBe(2);
  expect(w.errors.filter((e) => !e.includes('/cashout/quote'))).toEqual([]);
}, 120_000);
