// The bet ticket in a real browser (Debian chromium through playwright-core): the slippage it signs is the whole
// percent the exchange takes (oddsSlippage, an integer from 0 to 100), never a rounded form of what was typed; and its
// payout estimate walks the book in sight level by level, within the slippage, as the exchange fills a bet, saying
// when the book cannot cover the stake.
import { expect, it } from 'vitest';
import type { Request } from 'playwright-core';
import { betTestConfig, createFixtureMarket, createSoccerLeague, fundedWallet, postOrder } from './helpers/bets.js';
import { browserSuite } from './helpers/browser.js';
import { E18, USDC } from './helpers/wallets.js';

const suite = browserSuite({ ...betTestConfig(), demo: false });
let catalogue: Awaited<ReturnType<typeof createSoccerLeague>> | undefined;
const league = async () => (catalogue ??= await createSoccerLeague(suite.ex));

/** A moneyline whose outcome one is offered by a maker of outcome two at each of `levels` (maker percent, size in USDC). */
async function offeredMarket(levels: [percent: bigint, size: bigint][]): Promise<string> {
  const ex = suite.ex;
  const { markets } = await createFixtureMarket(ex, await league(), { type: 52 });
  const market = markets[0]!.marketHash;
  for (const [percent, size] of levels) {
    const maker = await fundedWallet(ex, 1000n * USDC);
    await postOrder(ex, maker, { marketHash: market, totalBetSize: size * USDC, percentageOdds: percent * E18, isMakerBettingOutcomeOne: false });
  }
  return market;
}

/** A funded page on the bet ticket of a market with these offers, once the ticket shows them. */
async function ticketOn(levels: [percent: bigint, size: bigint][]) {
  const market = await offeredMarket(levels);
  const w = await suite.openFunded(100n * USDC);
  await w.page.goto(`${suite.ex.url}/#/market/${market}`);
  const ticket = w.page.getByLabel('Bet ticket');
  await expect.poll(() => ticket.locator('.facts').innerText(), { timeout: 20_000 }).not.toMatch(/no offer|reading/);
  return { market, w, wallet: w.wallet, ticket };
}

it('refuses a slippage with decimals or above 100 and says why, and signs a whole percent as typed', async () => {
  const { w, ticket } = await ticketOn([[40n, 20n]]);
  await ticket.getByLabel('Stake').fill('5');
  const bet = ticket.getByRole('button', { name: /^Bet on / });
  const refusal = ticket.locator('[data-slippage-error]');

  for (const typed of ['0.5', '2.5', '101', '-1', '1e1', 'abc', '']) {
    await ticket.getByLabel('Slippage').fill(typed);
    // Kept as typed, not rounded to 0 or 1 behind the bettor's back; the bet waits for a slippage the exchange takes.
    expect([typed, await ticket.getByLabel('Slippage').inputValue()]).toEqual([typed, typed]);
    await refusal.waitFor();
    expect(await refusal.innerText()).toMatch(/whole percent from 0 to 100/);
    expect([typed, await bet.isDisabled()]).toEqual([typed, true]);
  }

  // A whole percent is taken as it is and signed as oddsSlippage.
  const fills: Request[] = [];
  w.page.on('request', (r) => {
    if (r.method() === 'POST' && new URL(r.url()).pathname === '/orders/fill/v2') fills.push(r);
  });
  await ticket.getByLabel('Slippage').fill('7');
  expect(await refusal.count()).toBe(0);
  await bet.click();
  await ticket.getByText(/Filled: 5\.00 USDC/).waitFor({ timeout: 30_000 });
  expect(fills.map((r) => (r.postDataJSON() as { oddsSlippage: unknown }).oddsSlippage)).toEqual([7]);
  expect(w.errors).toEqual([]);
});

/** What the exchange owes the wallet's position on `market` if outcome one wins, once its trades are confirmed. */
async function payoutIfOutcomeOne(wallet: string, market: string): Promise<string | undefined> {
  const { positions } = (await suite.ex.get(`/positions?bettor=${wallet}`)).body.data as { positions: { marketHash: string; payoutIfOutcomeOne: string }[] };
  return positions.find((p) => p.marketHash === market)?.payoutIfOutcomeOne;
}

// Two offers on outcome one: 30 at 60% (a maker's 20 at 40%), then 24.444444 at 55% (a maker's 20 at 45%).
const LEVELS: [bigint, bigint][] = [
  [40n, 20n],
  [45n, 20n],
];

it('prices a stake deeper than the best offer level by level, as the exchange then fills and owes it', async () => {
  const { market, w, wallet, ticket } = await ticketOn(LEVELS);
  const payout = ticket.locator('[data-payout]');

  // 60 with 10% slippage: both levels, 30 + 24.444444, are all the book holds; the estimate says so and pays for
  // that much: 30 + 20 at the first, 24.444444 + 19.999999 at the second.
  await ticket.getByLabel('Slippage').fill('10');
  await ticket.getByLabel('Stake').fill('60');
  await expect.poll(() => payout.getAttribute('data-payout')).toBe('94444443');
  expect(await payout.innerText()).toBe('94.444443 USDC for 54.444444 USDC of your stake');
  expect(await ticket.locator('[data-uncovered]').innerText()).toMatch(/^Only 54\.444444 USDC is on offer on /);

  // 40: 30 at the first level (pays 50) and 10 at the second (pays 18.181818), on average 58.75% (1.70), where
  // pricing all 40 at the best level said 66.666666.
  await ticket.getByLabel('Stake').fill('40');
  await expect.poll(() => payout.getAttribute('data-payout')).toBe('68181818');
  expect(await payout.innerText()).toBe('68.181818 USDC');
  expect(await ticket.locator('[data-uncovered]').count()).toBe(0);
  expect(await ticket.locator('.facts').innerText()).toMatch(/Expected odds\s+1\.67 \(best; 1\.70 on average for your stake\)/);

  await ticket.getByRole('button', { name: /^Bet on / }).click();
  await ticket.getByText(/Filled: 40\.00 USDC at 1\.70\./).waitFor({ timeout: 30_000 });
  await ticket.locator('.status.SUCCESS').waitFor({ timeout: 30_000 });
  await expect.poll(() => payoutIfOutcomeOne(wallet, market), { timeout: 20_000 }).toBe('68181818');
  expect(w.errors).toEqual([]);
});

it('says when the slippage, not the book, leaves part of the stake uncovered, and prices only what it covers', async () => {
  const { market, w, wallet, ticket } = await ticketOn(LEVELS);

  // 40 within 1% of 60% (59.4% on average at worst): the first level's 30 is 0.6% better, which lets 4.090909 be
  // taken 4.4% worse, at 55%: 34.090909 covered, paying 50 + 4.090909 + 3.347107.
  await ticket.getByLabel('Slippage').fill('1');
  await ticket.getByLabel('Stake').fill('40');
  const payout = ticket.locator('[data-payout]');
  await expect.poll(() => payout.getAttribute('data-payout')).toBe('57438016');
  expect(await payout.innerText()).toBe('57.438016 USDC for 34.090909 USDC of your stake');
  expect(await ticket.locator('[data-uncovered]').innerText()).toMatch(/^Within your 1% slippage the book in sight covers only 34\.090909 USDC of your stake on .* \(54\.444444 USDC on offer\)/);

  await ticket.getByRole('button', { name: /^Bet on / }).click();
  await ticket.getByText(/Partly filled: 34\.090909 USDC of 40\.00 USDC/).waitFor({ timeout: 30_000 });
  await ticket.locator('.status.SUCCESS').waitFor({ timeout: 30_000 });
  await expect.poll(() => payoutIfOutcomeOne(wallet, market), { timeout: 20_000 }).toBe('57438016');
  expect(w.errors).toEqual([]);
});
