// My account kept live in a real browser (Debian chromium through playwright-core): the cash-out cell of a position
// asks the exchange for a quote when the position or its book changes, not when the page reads its other data again
// (its trades arriving after its positions, a new balance).
import { expect, it } from 'vitest';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { betTestConfig, createFixtureMarket, createSoccerLeague, fillAndConfirm, fundedWallet, postOrder } from './helpers/bets.js';
import { browserSuite, type WatchedPage } from './helpers/browser.js';
import { publicationsOut } from './helpers/server.js';
import { E18, USDC } from './helpers/wallets.js';

const suite = browserSuite({ ...betTestConfig(), demo: false });
let w: WatchedPage | undefined;
let market = '';
let wallet: Hex = '0x';
/** GET /cashout/quote requests the page sent. */
let quotes = 0;

/** The quote the exchange gives now, as a third party reads it. */
const apiQuote = async () => (await suite.ex.get(`/cashout/quote?bettor=${wallet}&marketHash=${market}`)).body.data as { amount: string; stakeWei: string };

it('asks for a position\'s cash-out quote on loading and once subscribed to its book, however late the trades land', async () => {
  const ex = suite.ex;
  const opened = await suite.openFunded(100n * USDC);
  w = opened;
  wallet = opened.wallet;
  const { page } = opened;

  const cat = await createSoccerLeague(ex);
  const { markets } = await createFixtureMarket(ex, cat, { type: 52 });
  market = markets[0]!.marketHash;
  const maker = await fundedWallet(ex, 1000n * USDC);
  await postOrder(ex, maker, { marketHash: market, totalBetSize: 20n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: false });
  // The page's development wallet backs outcome one with 30 at 60% (its key is the page's, in localStorage).
  const key = (await page.evaluate('localStorage.getItem("oddex.developmentWallet.privateKey")')) as Hex;
  const bettor = privateKeyToAccount(key);
  expect(bettor.address).toBe(wallet);
  await fillAndConfirm(ex, bettor, { market, isTakerBettingOutcomeOne: true, stakeWei: 30n * USDC, desiredOdds: 60n * E18 });
  // Outcome two is offered at 20%: the whole position can be hedged (10 returns 50), worth 40.
  const hedger = await fundedWallet(ex, 1000n * USDC);
  await postOrder(ex, hedger, { marketHash: market, totalBetSize: 100n * USDC, percentageOdds: 80n * E18, isMakerBettingOutcomeOne: true });
  await publicationsOut(ex);

  // The wallet's trades land well after its positions: the cell is there before them.
  await page.route((url) => url.pathname === '/trades', async (route) => {
    await new Promise((r) => setTimeout(r, 800));
    await route.continue();
  });
  page.on('request', (r) => {
    if (new URL(r.url()).pathname === '/cashout/quote') quotes += 1;
  });
  await page.reload();
  const cashOut = page.locator(`[data-position="${market}"] [data-cash-out]`);
  await expect.poll(() => cashOut.getAttribute('data-cash-out'), { timeout: 20_000 }).toBe((await apiQuote()).amount);
  expect((await apiQuote()).amount).toBe((40n * USDC).toString());
  await page.locator('[data-fill-hash]').first().waitFor();
  await new Promise((r) => setTimeout(r, 2_000));
  // Asked on loading, and again once subscribed to the book (a change in between would otherwise be missed): the
  // trades arriving change nothing the quote depends on.
  expect(quotes).toBe(2);
  await page.unroute((url) => url.pathname === '/trades');
  expect(w.errors).toEqual([]);
}, 60_000);

it('shows a deposit no channel announces (the operator\'s faucet) without a reload, and the cash-out cell asks nothing for it', async () => {
  const ex = suite.ex;
  const { page } = w!;
  const before = BigInt((await ex.get(`/balances/${wallet}`)).body.data.balance as string);
  await expect.poll(() => page.locator('[data-balance]').getAttribute('data-balance')).toBe(before.toString());
  const asked = quotes;
  const deposits = await page.locator('[data-statement-entry="deposit"]').count();
  expect((await ex.admin('POST', '/admin/faucet', { address: wallet, amount: '7000001' })).status).toBe(200);
  // Within the page's 5 s balance read, with no reload; the statement enters the deposit with the balance after it.
  const after = BigInt((await ex.get(`/balances/${wallet}`)).body.data.balance as string);
  expect(after).toBe(before + 7_000_001n);
  await expect.poll(() => page.locator('[data-balance]').getAttribute('data-balance'), { timeout: 8_000 }).toBe(after.toString());
  await expect.poll(() => page.locator('[data-statement-entry="deposit"]').count(), { timeout: 5_000 }).toBe(deposits + 1);
  expect(await page.locator('[data-statement-entry="deposit"]').first().getAttribute('data-balance-after')).toBe(after.toString());
  // Several reads of the balance later, the position and its book unchanged: no quote asked again.
  await new Promise((r) => setTimeout(r, 6_000));
  expect(quotes).toBe(asked);
  expect(await page.locator(`[data-position="${market}"] [data-cash-out]`).getAttribute('data-cash-out')).toBe((await apiQuote()).amount);
  expect(w!.errors).toEqual([]);
}, 60_000);

it('asks nothing for a position whose market is reported: the cell stops at the report, the position shows settled', async () => {
  const ex = suite.ex;
  const { page } = w!;
  const asked = quotes;
  const cashOut = page.locator(`[data-position="${market}"] [data-cash-out]`);
  expect(await cashOut.getAttribute('data-cash-out')).toBe((await apiQuote()).amount);
  // The report cancels the market's orders (a book publication) and settles the position: the exchange has no
  // position to quote any more (404 NO_POSITION), so the page does not ask.
  expect((await ex.admin('POST', `/admin/markets/${market}/report`, { outcome: 1 })).status).toBe(200);
  await expect.poll(() => page.locator(`[data-position="${market}"] [data-settled-pnl]`).getAttribute('data-settled-pnl'), { timeout: 20_000 }).toBe((20n * USDC).toString());
  await new Promise((r) => setTimeout(r, 1_000));
  expect(quotes).toBe(asked);
  expect(w!.errors).toEqual([]);
}, 60_000);
