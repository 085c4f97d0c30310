// A partial cash out in a real browser (Debian chromium through playwright-core): the page's wallet backs outcome one
// with 30 against a maker's 20 on two (owed 50 if one wins). A maker then offers outcome one at 80% for only 12: the
// hedge needs a return of 50, the book gives 15 (3 at 20%). The account's cash-out cell offers that part with the
// exchange's partial quote to the wei (GET /cashout/quote?partial=true, as a third party reads it), and taking it
// leaves the rest a position: the cell asks for no quote the exchange would refuse (the book has nothing more) until
// another maker offers more, then offers the rest, which cashes out whole. No console error at any point.
import { expect, it } from 'vitest';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { betTestConfig, createFixtureMarket, createSoccerLeague, fillAndConfirm, fundedWallet, postOrder } from './helpers/bets.js';
import { browserSuite } from './helpers/browser.js';
import { publicationsOut } from './helpers/server.js';
import { E18, USDC, newWallet } from './helpers/wallets.js';

const FUNDS = 100n * USDC;
const suite = browserSuite({
  ...betTestConfig(),
  demo: false,
  fees: { singlesBps: 0, parlaysBps: 0, account: newWallet().address, affiliateShareBps: 0, cashoutBps: 100 },
});

it('offers the part of a position the book covers, with the partial quote\'s figures; taking it leaves the rest, cashed out once more is on offer', async () => {
  const ex = suite.ex;
  const w = await suite.openFunded(FUNDS);
  const { page, wallet } = w;
  const cat = await createSoccerLeague(ex);
  const market = (await createFixtureMarket(ex, cat, { type: 52 })).markets[0]!.marketHash;
  const maker = await fundedWallet(ex, 1000n * USDC);
  await postOrder(ex, maker, { marketHash: market, totalBetSize: 20n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: false });
  const key = (await page.evaluate('localStorage.getItem("oddex.developmentWallet.privateKey")')) as Hex;
  // Away from My account while the bet and the book are set up: a cell shown before the book offers anything would ask
  // (and be refused, as before this change), which is another test's subject (web-cashout-fees).
  await page.goto(`${ex.url}/#/`);
  await fillAndConfirm(ex, privateKeyToAccount(key), { market, isTakerBettingOutcomeOne: true, stakeWei: 30n * USDC, desiredOdds: 60n * E18 });
  await postOrder(ex, await fundedWallet(ex), { marketHash: market, totalBetSize: 12n * USDC, percentageOdds: 80n * E18, isMakerBettingOutcomeOne: true });
  await publicationsOut(ex);

  const apiQuote = async (partial: boolean) => (await ex.get(`/cashout/quote?bettor=${wallet}&marketHash=${market}${partial ? '&partial=true' : ''}`)).body;
  // The exchange: no whole quote; the part is 3 at 20% returning 15 of the 50: owed 15 whatever the result (33 staked
  // on a void), worth 12, less 0.12; 35 of the return left uncovered.
  expect((await apiQuote(false)).errorCode).toBe('INSUFFICIENT_SPACE');
  const part = (await apiQuote(true)).data;
  expect(part).toMatchObject({ stakeWei: '3000000', desiredOdds: (20n * E18).toString(), amount: '11880000', fee: '120000', paidNow: '14880000', partial: true, uncoveredWei: '35000000' });

  let quotes = 0;
  page.on('request', (r) => {
    if (new URL(r.url()).pathname === '/cashout/quote') quotes += 1;
  });
  await page.goto(`${ex.url}/#/account`);
  const cashOut = page.locator(`[data-position="${market}"] [data-cash-out]`);
  await expect.poll(() => cashOut.getAttribute('data-cash-out'), { timeout: 20_000 }).toBe(part.amount);
  expect(await cashOut.getAttribute('data-cash-out-fee')).toBe(part.fee);
  expect(await cashOut.getAttribute('data-paid-now')).toBe(part.paidNow);
  expect(await cashOut.getAttribute('data-cash-out-partial')).toBe(part.uncoveredWei);
  expect(await cashOut.innerText()).toMatch(
    /^11\.88 USDC Cash out part\s+after a 0\.12 USDC fee: you receive 14\.88 USDC when it confirms; the book covers part of the position: 35\.00 USDC of its payout stays unhedged, to cash out when more is on offer$/,
  );
  await w.screenshot('cash-out-partial');
  await new Promise((r) => setTimeout(r, 1_500));
  // Asked on loading and once subscribed to the book, as any position's cell.
  expect(quotes).toBe(2);

  await cashOut.getByRole('button', { name: 'Cash out part' }).click();
  // Paid the 15 the position is now owed in every result, less 0.12; the rest is a position, 35 more if one wins.
  await expect.poll(async () => (await ex.get(`/balances/${wallet}`)).body.data.balance, { timeout: 20_000 }).toBe((FUNDS - 33n * USDC + 14_880_000n).toString());
  const position = (await ex.get(`/positions?bettor=${wallet}`)).body.data.positions[0];
  expect(position).toMatchObject({ payoutIfOutcomeOne: '50000000', payoutIfOutcomeTwo: '15000000', cashedOut: '15000000', cashOutFees: '120000' });
  // The book holds nothing more for the hedge: the cell says so without asking (the exchange would refuse the quote).
  await expect.poll(() => cashOut.getAttribute('data-cash-out-refusal'), { timeout: 20_000 }).toBe('INSUFFICIENT_SPACE');
  expect((await apiQuote(true)).errorCode).toBe('INSUFFICIENT_SPACE');
  await new Promise((r) => setTimeout(r, 2_000));
  expect(quotes).toBe(2);

  // Another maker offers outcome one at 80% for 100: the rest is quoted whole, 7 at 20% returning the 35: owed 50 either
  // way (15 paid), 40 on a void: 25 now; worth 35 - 7 = 28, less 0.28.
  await postOrder(ex, await fundedWallet(ex), { marketHash: market, totalBetSize: 100n * USDC, percentageOdds: 80n * E18, isMakerBettingOutcomeOne: true });
  const rest = (await apiQuote(true)).data;
  expect(rest).toEqual({ ...(await apiQuote(false)).data });
  expect(rest).toMatchObject({ stakeWei: '7000000', amount: '27720000', fee: '280000', paidNow: '24720000' });
  await expect.poll(() => cashOut.getAttribute('data-cash-out'), { timeout: 20_000 }).toBe(rest.amount);
  expect(await cashOut.getAttribute('data-cash-out-partial')).toBeNull();
  expect(await cashOut.innerText()).toMatch(/^27\.72 USDC Cash out\s+after a 0\.28 USDC fee: you receive 24\.72 USDC when it confirms$/);
  await cashOut.getByRole('button', { name: 'Cash out' }).click();
  await expect.poll(() => cashOut.innerText(), { timeout: 20_000 }).toBe('hedged');
  await expect.poll(async () => (await ex.get(`/balances/${wallet}`)).body.data.balance, { timeout: 20_000 }).toBe((FUNDS - 40n * USDC + 14_880_000n + 24_720_000n).toString());
  await new Promise((r) => setTimeout(r, 1_000));
  // One more quote, once the book offered more.
  expect(quotes).toBe(3);
  expect(w.errors).toEqual([]);
}, 120_000);
