// A parlay offer smaller than the bettor's stake, in a real browser (Debian chromium through playwright-core): the
// slip shows what the offer pays for the part of the stake it covers, and after taking it that the parlay was only
// partly filled, of how much. (It used to show the payout of the whole stake, which the offer could not pay, and
// "Parlay filled" with the smaller amount and no word of the rest.)
import { expect, it } from 'vitest';
import { betTestConfig, createFixtureMarket, createSoccerLeague, fundedWallet, postOrder } from './helpers/bets.js';
import { browserSuite } from './helpers/browser.js';
import { E18, USDC } from './helpers/wallets.js';

const suite = browserSuite({ ...betTestConfig(), demo: false });

it('shows a parlay offer covering part of the stake for what it pays, and the fill as partial', async () => {
  const ex = suite.ex;
  const w = await suite.openFunded(100n * USDC);
  const { page, wallet } = w;
  const cat = await createSoccerLeague(ex);
  const first = await createFixtureMarket(ex, cat, { type: 52 });
  const second = await createFixtureMarket(ex, cat, { type: 52 });
  const maker = await fundedWallet(ex, 1000n * USDC);

  // The maker quotes each request as it is made (within the quote window): 35 at 70%, which takes 15 of a stake.
  await page.route(
    (url) => url.pathname === '/parlays/request',
    async (route) => {
      const response = await route.fetch();
      const parlay = (await response.json()).data.marketHash as string;
      await postOrder(ex, maker, { marketHash: parlay, totalBetSize: 35n * USDC, percentageOdds: 70n * E18, isMakerBettingOutcomeOne: false });
      await route.fulfill({ response });
    },
  );

  for (const { exchangeEventId } of [first, second]) {
    await page.goto(`${ex.url}/#/fixture/${exchangeEventId}`);
    await page.getByRole('button', { name: 'Add Alpha FC (Moneyline) to bet slip' }).click();
  }
  const slip = page.getByLabel('Bet slip', { exact: true });
  await slip.getByLabel('Parlay stake').fill('30');
  await slip.getByRole('button', { name: 'Request parlay' }).click();
  const offers = slip.getByLabel('Parlay offers');
  await offers.waitFor({ timeout: 20_000 });
  // 15 at 30% pays 50, not the 100 that 30 would.
  expect(await offers.locator('[data-pays]').innerText()).toBe('50.00 USDC for 15.00 USDC of your 30.00 USDC');

  await slip.getByRole('button', { name: /^Take at 3\.33/ }).click();
  await slip.getByText(/Parlay (partly )?filled/).waitFor({ timeout: 20_000 });
  expect(await slip.locator('[data-fill-hash] p').first().innerText()).toBe('Parlay partly filled: 15.00 USDC of 30.00 USDC at 3.33.');
  const { trades } = (await ex.get(`/trades?bettor=${wallet}`)).body.data as { trades: { stake: string }[] };
  expect(trades.map((t) => t.stake)).toEqual([(15n * USDC).toString()]);
  expect(w.errors).toEqual([]);
});
