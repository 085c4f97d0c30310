// The bet ticket in a real browser (Debian chromium through playwright-core): the slippage it signs is the whole
// percent the exchange takes (oddsSlippage, an integer from 0 to 100), never a rounded form of what was typed.
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

it('refuses a slippage with decimals or above 100 and says why, and signs a whole percent as typed', async () => {
  const ex = suite.ex;
  const market = await offeredMarket([[40n, 20n]]);
  const w = await suite.openFunded(100n * USDC);
  const { page } = w;
  await page.goto(`${ex.url}/#/market/${market}`);
  const ticket = page.getByLabel('Bet ticket');
  await expect.poll(() => ticket.locator('.facts').innerText(), { timeout: 20_000 }).not.toMatch(/no offer|reading/);
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
  page.on('request', (r) => {
    if (r.method() === 'POST' && new URL(r.url()).pathname === '/orders/fill/v2') fills.push(r);
  });
  await ticket.getByLabel('Slippage').fill('7');
  expect(await refusal.count()).toBe(0);
  await bet.click();
  await ticket.getByText(/Filled: 5\.00 USDC/).waitFor({ timeout: 30_000 });
  expect(fills.map((r) => (r.postDataJSON() as { oddsSlippage: unknown }).oddsSlippage)).toEqual([7]);
  expect(w.errors).toEqual([]);
});
