// The web page in a real browser (Debian chromium through playwright-core) against the real exchange:
// a bettor's whole path, a maker posting and cancelling from the page, and a dropped WebSocket.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { defaultConfig } from '../src/config.js';
import { CloseCode } from '../src/realtime/protocol.js';
import { startTestExchange, TEST_ADMIN_TOKEN, type TestExchange } from './helpers/server.js';
import { newWallet, signedOrder, USDC, E18 } from './helpers/wallets.js';
import { ensureWebBuild, launchBrowser, openPage, PHONE, type WatchedPage } from './helpers/browser.js';

const BETTING_DELAY_MS = 1000;
const CHAIN_CONFIRM_MS = 2500;

let ex: TestExchange;
let browser: Browser;
const pages: WatchedPage[] = [];

beforeAll(async () => {
  ensureWebBuild(); // before the server starts, which warns when there is no build
  ex = await startTestExchange({
    demo: true, // the demo catalogue, without its market-making bots: the books hold only this test's orders
    demoLiquidity: false,
    bettingDelay: { preGameMs: BETTING_DELAY_MS, inPlayMs: BETTING_DELAY_MS, inPlayBySportMs: {}, inPlayByLeagueMs: {} },
    chainConfirmationDelayMs: CHAIN_CONFIRM_MS,
    rateLimits: { ...defaultConfig().rateLimits, enabled: false },
  });
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await ex?.destroy();
});

afterEach(() => {
  // No page may log a console error or throw, whatever the test checked.
  const errors = pages.splice(0).flatMap((p) => p.errors);
  expect(errors).toEqual([]);
});

async function newPage(viewport?: { width: number; height: number }): Promise<WatchedPage> {
  const p = await openPage(browser, viewport);
  pages.push(p);
  return p;
}

interface DemoMarket {
  marketHash: string;
  exchangeEventId: string;
  leagueId: number;
  teamOneName: string;
  teamTwoName: string;
  outcomeOneName: string;
}

async function moneylineOf(eventId: string): Promise<DemoMarket> {
  const res = await ex.get(`/markets/active?eventId=${eventId}`);
  const market = (res.body.data.markets as (DemoMarket & { type: number })[]).find((m) => m.type === 52);
  if (!market) throw new Error(`demo fixture ${eventId} has no moneyline`);
  return market;
}

/** A funded maker whose viem-signed order goes to POST /orders/new; returns the order hash. */
async function postOrderThroughApi(maker: ReturnType<typeof newWallet>, marketHash: string, percent: bigint, size: bigint, makerOutcomeOne = false) {
  const order = await signedOrder(maker, ex.ctx.config, { marketHash, totalBetSize: size, percentageOdds: percent * E18, isMakerBettingOutcomeOne: makerOutcomeOne });
  const res = await ex.post('/orders/new', { orders: [order.body] });
  expect(res.body.data.statuses).toEqual({ [order.hash]: 'OK' });
  return order.hash;
}

async function fundedMaker() {
  const maker = newWallet();
  expect((await ex.admin('POST', '/admin/faucet', { address: maker.address, amount: (10_000n * USDC).toString() })).status).toBe(200);
  return maker;
}

const activeOrderHashes = async (marketHash: string) =>
  ((await ex.get(`/orders?marketHashes=${marketHash}`)).body.data as { orderHash: string; orderStatus: string }[])
    .filter((o) => o.orderStatus === 'ACTIVE')
    .map((o) => o.orderHash)
    .sort();

const bookOrderHashes = (p: WatchedPage) =>
  p.page.locator('[aria-label="Order book"] [data-order-hash]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-order-hash')!).sort());

describe('web page', () => {
  it('a bettor finds a demo fixture, sees the book move, bets with the development wallet and sees it settle', async () => {
    const w = await newPage();
    const { page } = w;
    await page.goto(`${ex.url}/`);
    await page.getByRole('tab', { name: 'Soccer' }).waitFor();
    // A tab list as assistive technology expects: the selected tab names the panel, arrow keys move the selection.
    const tabs = await page.getByRole('tab').allInnerTexts();
    expect(tabs.length).toBeGreaterThan(1);
    const first = await page.getByRole('tab', { selected: true }).innerText();
    await page.getByRole('tabpanel', { name: first }).waitFor();
    await page.getByRole('tab', { selected: true }).focus();
    await page.keyboard.press('ArrowRight');
    const next = tabs[(tabs.indexOf(first) + 1) % tabs.length]!;
    await page.getByRole('tabpanel', { name: next }).waitFor();
    expect(await page.evaluate('document.activeElement.textContent')).toBe(next);
    await page.keyboard.press('ArrowLeft');
    await page.getByRole('tab', { name: first, selected: true }).waitFor();
    // The realtime connection's state is in the header of every page.
    await page.locator('header [data-connection="connected"]', { hasText: 'live' }).waitFor();
    await w.screenshot('home');

    // Find a demo fixture by search and open it.
    await page.getByLabel('Search fixtures').fill('atletico');
    const hit = page.getByLabel('Search results').getByRole('link').first();
    await hit.waitFor();
    await hit.click();
    await page.waitForURL(/#\/fixture\//);
    const eventId = decodeURIComponent(page.url().split('#/fixture/')[1]!);
    const market = await moneylineOf(eventId);
    await page.locator(`a[data-market-hash="${market.marketHash}"]`).waitFor();
    await w.screenshot('fixture');

    // Open the market: the book is live and empty.
    await page.locator(`a[data-market-hash="${market.marketHash}"]`).click();
    await page.locator('[aria-label="Order book"][data-feed="live"]').waitFor();
    expect(await bookOrderHashes(w)).toEqual([]);

    // An order posted through the API appears without a reload: a maker on outcome two at 45%, so a bettor
    // backing outcome one gets 55% (decimal 1.82).
    const maker = await fundedMaker();
    const orderHash = await postOrderThroughApi(maker, market.marketHash, 45n, 100n * USDC);
    await page.locator(`[data-order-hash="${orderHash}"]`).waitFor();
    await expect.poll(() => page.locator(`[data-order-hash="${orderHash}"]`).innerText()).toMatch(/1\.82\s+122\.22/);

    // The operator funds the development wallet from the console.
    const wallet = await page.locator('[data-wallet-kind="development"]').getAttribute('data-wallet-address');
    expect(wallet).toMatch(/^0x[0-9a-fA-F]{40}$/);
    await page.getByRole('link', { name: 'Console' }).click();
    await page.getByLabel('Admin token').fill(TEST_ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Open console' }).click();
    await page.getByLabel('Account address').fill(wallet!);
    await page.getByLabel('Faucet amount').fill('1000');
    await page.getByRole('button', { name: 'Send test funds' }).click();
    await page.getByText(`Sent 1000.00 USDC to ${wallet}.`).waitFor();

    // Bet 10 USDC on outcome one: the delay runs, the fill is PENDING on chain, then SUCCESS.
    await page.goto(`${ex.url}/#/market/${market.marketHash}`);
    await page.locator('[aria-label="Order book"][data-feed="live"]').waitFor();
    const ticket = page.getByLabel('Bet ticket');
    // The taker minimum from /metadata, before any bet is refused for it.
    await expect.poll(() => ticket.innerText()).toMatch(/Stake \(USDC\) · minimum 1\.00\b/);
    await ticket.getByLabel('Stake').fill('10');
    await expect.poll(() => ticket.locator('.facts').innerText()).toMatch(/Expected odds\s+1\.82\s+Payout if it wins\s+18\.181818 USDC/);
    // The betting delay is said before the bet: /metadata's pre-game figure, as the fixture has not kicked off.
    await ticket.getByText('Before kick-off, a bet is matched 1.0 s after you place it').waitFor();
    await ticket.getByRole('button', { name: `Bet on ${market.outcomeOneName}` }).click();
    await ticket.getByText('Betting delay running').waitFor();
    await ticket.getByText('Filled: 10.00 USDC').waitFor();
    await ticket.locator('.status.PENDING').waitFor();
    await ticket.locator('.status.SUCCESS').waitFor();
    // The maker's order shrank by the 8.181818 USDC it put in the pot.
    await expect.poll(() => page.locator(`[data-order-hash="${orderHash}"]`).innerText()).toMatch(/1\.82\s+112\.22/);
    await page.getByLabel('Recent trades').getByText('10.00 USDC').waitFor();
    // Writing the next bet clears the last one's result from the ticket.
    await ticket.getByLabel('Stake').fill('5');
    await ticket.getByText('Filled: 10.00 USDC').waitFor({ state: 'detached' });
    // After a reload the ticket is empty again, and the bet is listed with the bettor's own bets on the market.
    await page.reload();
    const myBets = page.getByLabel('Your bets here');
    await myBets.getByText(`10.00 USDC on ${market.outcomeOneName} at 1.82`).waitFor();
    await myBets.locator('.status.SUCCESS').waitFor();
    await w.screenshot('market');

    // The operator reports 2-0 in the console; the markets settle.
    await page.getByRole('link', { name: 'Console' }).click();
    await page.getByLabel('League').selectOption(String(market.leagueId));
    await page.locator('summary', { hasText: `${market.teamOneName} v ${market.teamTwoName}` }).first().click();
    const fixture = page.locator(`[data-console-fixture="${eventId}"]`);
    await fixture.getByLabel('Team one score').fill('2');
    await fixture.getByLabel('Team two score').fill('0');
    await fixture.getByRole('button', { name: 'Report result' }).click();
    await fixture.getByText(/Result 2-0 reported: \d+ market\(s\) settled\./).waitFor();
    await w.screenshot('console');

    // My account: the position settled with +8.181818 USDC, and the balance holds it to the wei.
    await page.getByRole('link', { name: 'My account' }).click();
    const position = page.locator(`[data-position="${market.marketHash}"] [data-settled-pnl]`);
    await expect.poll(() => position.getAttribute('data-settled-pnl'), { timeout: 10_000 }).toBe('8181818');
    await expect.poll(() => position.innerText()).toBe('+8.181818 USDC');
    await expect.poll(() => page.locator('[data-balance]').getAttribute('data-balance'), { timeout: 10_000 }).toBe((1000n * USDC - 10n * USDC + 18_181_818n).toString());
    // The statement, newest first: the payout of 18.181818 leaves the balance the account shows, after the stake.
    const entries = page.getByLabel('Statement').locator('[data-statement-entry]');
    await expect.poll(() => entries.evaluateAll((rows) => rows.slice(0, 3).map((r) => [r.getAttribute('data-statement-entry'), r.getAttribute('data-balance-after')])), { timeout: 10_000 }).toEqual([
      ['payout', '1008181818'],
      ['stake', '990000000'],
      ['deposit', '1000000000'],
    ]);
    await page.getByLabel('Trades').locator('.status.SUCCESS').waitFor();
    await w.screenshot('account');
    const balance = await ex.get(`/balances/${wallet}`);
    expect(balance.body.data.balance).toBe('1008181818');
  }, 90_000);

  it('a maker posts an order from the page, sees it in the book, and cancels it; a refused order says why', async () => {
    const w = await newPage();
    const { page } = w;
    const market = await moneylineOf('L1010');
    await page.goto(`${ex.url}/#/market/${market.marketHash}`);
    const wallet = await page.locator('[data-wallet-kind="development"]').getAttribute('data-wallet-address');
    await ex.admin('POST', '/admin/faucet', { address: wallet, amount: (500n * USDC).toString() });
    await page.locator('[aria-label="Order book"][data-feed="live"]').waitFor();

    const panel = page.getByLabel('Maker', { exact: true });
    await panel.getByLabel('Maker odds percent').fill('52.5');
    await panel.getByLabel('Maker size').fill('1');
    w.expectFailedRequest('/orders/new', 400);
    await panel.getByRole('button', { name: 'Post order' }).click();
    await panel.getByRole('alert').getByText('MAKER_AMOUNT_TOO_LOW').waitFor();

    await panel.getByLabel('Maker size').fill('25');
    await panel.getByRole('button', { name: 'Post order' }).click();
    await panel.getByText(/Order posted\. \(OK, /).waitFor();
    const mine = page.locator('[aria-label="Order book"] tr.mine');
    await mine.waitFor();
    const orderHash = await mine.getAttribute('data-order-hash');
    // Outcome one at 52.5%: bettors backing outcome two see 47.5% (2.11), and can stake 25 * 47.5 / 52.5.
    await expect.poll(() => mine.innerText()).toMatch(/2\.11\s+22\.619047/);
    const [order] = (await ex.get(`/orders?orderHashes=${orderHash}`)).body.data;
    expect(order).toMatchObject({ maker: wallet, totalBetSize: '25000000', percentageOdds: (525n * 10n ** 17n).toString(), isMakerBettingOutcomeOne: true, orderStatus: 'ACTIVE' });
    await panel.locator(`[data-my-order="${orderHash}"]`).waitFor();
    await w.screenshot('maker');

    await panel.locator(`[data-my-order="${orderHash}"]`).getByRole('button', { name: 'Cancel' }).click();
    await panel.getByText('1 order(s) cancelled.').waitFor();
    await mine.waitFor({ state: 'detached' });
    expect(await activeOrderHashes(market.marketHash)).toEqual([]);
    expect((await ex.get(`/orders?orderHashes=${orderHash}`)).body.data[0].orderStatus).toBe('CANCELLED');
  }, 60_000);

  it('an open market page shows its suspension, its reopening and its settlement as they happen, without a reload', async () => {
    const w = await newPage();
    const { page } = w;
    const market = await moneylineOf('L1012');
    const offer = await postOrderThroughApi(await fundedMaker(), market.marketHash, 40n, 50n * USDC);
    await page.goto(`${ex.url}/#/market/${market.marketHash}`);
    await page.locator(`[data-order-hash="${offer}"]`).waitFor();
    const suspended = page.getByText('This market is suspended');
    expect(await suspended.count()).toBe(0);
    // A bet and an order written out, ready to go.
    const ticket = page.getByLabel('Bet ticket');
    await ticket.getByLabel('Stake').fill('5');
    const bet = ticket.getByRole('button', { name: /^Bet on / });
    const panel = page.getByLabel('Maker', { exact: true });
    await panel.getByLabel('Maker size').fill('25');
    const post = panel.getByRole('button', { name: 'Post order' });
    expect([await bet.isEnabled(), await post.isEnabled()]).toEqual([true, true]);
    expect(await ticket.locator('[data-betting-delay]').count()).toBe(1);

    expect((await ex.admin('POST', `/admin/markets/${market.marketHash}/status`, { status: 'SUSPENDED' })).status).toBe(200);
    await suspended.waitFor({ timeout: 5_000 });
    // Suspended, the market takes neither: the ticket and the maker panel say so instead of offering what the exchange
    // can only refuse, and the ticket no longer says when a bet would be matched.
    expect([await bet.isDisabled(), await post.isDisabled()]).toEqual([true, true]);
    expect(await ticket.locator('[data-ticket-closed]').innerText()).toBe('No bet can be placed now: the market is suspended.');
    expect(await panel.locator('[data-maker-closed]').innerText()).toBe('No order can be posted now: the market is suspended.');
    expect(await ticket.locator('[data-betting-delay]').count()).toBe(0);
    expect((await ex.admin('POST', `/admin/markets/${market.marketHash}/status`, { status: 'ACTIVE' })).status).toBe(200);
    await suspended.waitFor({ state: 'detached', timeout: 5_000 });
    expect([await bet.isEnabled(), await post.isEnabled()]).toEqual([true, true]);
    expect(await ticket.locator('[data-ticket-closed]').count()).toBe(0);

    expect((await ex.admin('POST', `/admin/markets/${market.marketHash}/report`, { outcome: 1 })).status).toBe(200);
    await page.getByText(`settled: ${market.outcomeOneName} won`).waitFor({ timeout: 5_000 });
    // The bet ticket gives way to the settlement's notice.
    await page.getByText(/This market is settled/).waitFor();
    expect(await page.getByLabel('Bet ticket').count()).toBe(0);
  }, 60_000);

  it('after a dropped WebSocket the book recovers and equals GET /orders', async () => {
    const w = await newPage(PHONE);
    const { page } = w;
    const market = await moneylineOf('L1016');
    const maker = await fundedMaker();
    const first = await postOrderThroughApi(maker, market.marketHash, 40n, 50n * USDC);
    await page.goto(`${ex.url}/#/market/${market.marketHash}`);
    await page.locator(`[data-order-hash="${first}"]`).waitFor();

    // The header's connection state, every value it takes from here on.
    await page.locator('header [data-connection="connected"]').waitFor();
    // (Page code as text: this file is compiled without the DOM's types.)
    await page.evaluate(`
      const seen = (window.connectionStates = []);
      new MutationObserver(() => seen.push(document.querySelector('header [data-connection]').getAttribute('data-connection')))
        .observe(document.querySelector('header'), { subtree: true, attributes: true, attributeFilter: ['data-connection'] });
    `);

    // Cut every realtime connection, then change the book while the page is away.
    expect(ex.ctx.realtime!.disconnect(CloseCode.shutdown, 'test drop')).toBeGreaterThan(0);
    const during = await postOrderThroughApi(maker, market.marketHash, 42n, 30n * USDC, true);
    const cancel = await import('./helpers/wallets.js').then((m) => m.signedCancel(maker, ex.ctx.config, 'v2', { orderHashes: [first] }));
    expect((await ex.post('/orders/cancel/v2', cancel)).body.data.cancelledCount).toBe(1);

    await page.locator(`[data-order-hash="${during}"]`).waitFor();
    await page.locator(`[data-order-hash="${first}"]`).waitFor({ state: 'detached' });
    await expect.poll(() => bookOrderHashes(w)).toEqual(await activeOrderHashes(market.marketHash));
    // The header said so while it was away, and says live again.
    expect(await page.evaluate('window.connectionStates')).toEqual(['connecting', 'connected']);

    // And it keeps following: one more order after the recovery.
    const after = await postOrderThroughApi(maker, market.marketHash, 38n, 20n * USDC);
    await page.locator(`[data-order-hash="${after}"]`).waitFor();
    await expect.poll(() => bookOrderHashes(w)).toEqual(await activeOrderHashes(market.marketHash));
    expect(await bookOrderHashes(w)).toEqual([after, during].sort());

    // Usable at phone width: nothing wider than the screen.
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(PHONE.width);
    await w.screenshot('market-phone');
  }, 60_000);
});
