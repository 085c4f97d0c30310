// A bet on a quarter line in a real browser (Debian chromium through playwright-core). The exchange records such a
// bet as two leg trades on the legs' own markets, each naming the line in quarterLineParentMarketHash: the line's
// market page must still list the bet among "Your bets here", after a reload too. Once the operator reports the
// fixture, the account's trades show each leg's result as the exchange paid it, to the wei, and My account names the
// quarter line beside each leg's market.
import { expect, it } from 'vitest';
import { betTestConfig, createFixtureMarket, createSoccerLeague, fillAndConfirm, fundedWallet, postOrder } from './helpers/bets.js';
import { browserSuite, type WatchedPage } from './helpers/browser.js';
import { E18, USDC } from './helpers/wallets.js';

const suite = browserSuite({ ...betTestConfig(), demo: false });
let w: WatchedPage | undefined;
let placed: { wallet: string; fillHash: string; exchangeEventId: string } | undefined;
let catalogue: Awaited<ReturnType<typeof createSoccerLeague>> | undefined;
const league = async () => (catalogue ??= await createSoccerLeague(suite.ex));

it('lists a bet on a quarter line under "Your bets here" on the line page, before and after a reload', async () => {
  const ex = suite.ex;
  const opened = await suite.openFunded(100n * USDC);
  w = opened;
  const { page, wallet } = opened;

  // Over 2.25: the parent and its legs, Over 2 and Over 2.5.
  const { markets, exchangeEventId } = await createFixtureMarket(ex, await league(), { type: 2, line: 2.25 });
  const line = markets[0]!.marketHash;
  const maker = await fundedWallet(ex, 1000n * USDC);
  await postOrder(ex, maker, { marketHash: line, totalBetSize: 50n * USDC, percentageOdds: 4375n * E18 / 100n, isMakerBettingOutcomeOne: false });

  await page.goto(`${ex.url}/#/market/${line}`);
  const ticket = page.getByLabel('Bet ticket');
  await expect.poll(() => ticket.locator('.facts').innerText(), { timeout: 20_000 }).not.toMatch(/no offer/);
  await ticket.getByLabel('Stake').fill('3.333333');
  await ticket.getByRole('button', { name: /^Bet on / }).click();
  await ticket.getByText(/Filled: 3\.333333 USDC/).waitFor({ timeout: 30_000 });
  const fillHash = (await ticket.locator('[data-fill-hash]').getAttribute('data-fill-hash'))!;
  await ticket.locator('.status.SUCCESS').waitFor({ timeout: 30_000 });

  // The exchange's record: two leg trades of this fill, on markets other than the line's.
  const { trades } = (await ex.get(`/trades?bettor=${wallet}`)).body.data as { trades: { fillHash: string; marketHash: string; stake: string; quarterLineParentMarketHash?: string }[] };
  const legs = trades.filter((t) => t.fillHash === fillHash);
  expect(legs.map((t) => t.quarterLineParentMarketHash)).toEqual([line, line]);
  expect(legs.every((t) => t.marketHash !== line)).toBe(true);
  const stakes = legs.map((t) => `${(BigInt(t.stake) / USDC).toString()}.${(BigInt(t.stake) % USDC).toString().padStart(6, '0')} USDC`).sort();

  const mine = page.getByLabel('Your bets here');
  const listed = async () => (await mine.locator(`[data-my-bet="${fillHash}"]`).allInnerTexts()).map((s) => s.split(' on ')[0]).sort();
  await expect.poll(listed, { timeout: 20_000 }).toEqual(stakes);
  await page.reload();
  await expect.poll(listed, { timeout: 20_000 }).toEqual(stakes);
  expect(await mine.innerText()).toMatch(/on Over 2\.25 at/);
  expect(w.errors).toEqual([]);
  placed = { wallet, fillHash, exchangeEventId };
});

it("shows each settled leg's result as the exchange paid it, to the wei, and the quarter line beside each leg's market", async () => {
  const ex = suite.ex;
  const { page } = w!;
  const { wallet, fillHash, exchangeEventId } = placed!;
  // 3-0: both legs (Over 2 and Over 2.5) win. The bet's maker stake, 3.333333 x 43.75 / 56.25 = 2.592592, is split
  // 1.296296 to each leg, so the leg staking 1.666666 is paid 2.962962, where 1.666666 / 56.25% rounds to 2.962961.
  const res = await ex.admin('POST', `/admin/fixtures/${exchangeEventId}/result`, { teamOneScore: 3, teamTwoScore: 0 });
  expect(res.status).toBe(200);
  const settled = async () => ((await ex.get(`/trades?bettor=${wallet}`)).body.data.trades as { fillHash: string; settled: boolean; netReturn: string }[]).filter((t) => t.fillHash === fillHash);
  await expect.poll(async () => (await settled()).every((t) => t.settled), { timeout: 20_000 }).toBe(true);
  const paid = (await settled()).map((t) => `settled +${t.netReturn} USDC`).sort();
  expect(paid).toEqual(['settled +1.296296 USDC', 'settled +1.296296 USDC']);

  await page.goto(`${ex.url}/#/account`);
  const shown = async () => (await page.getByLabel('Trades', { exact: true }).locator(`tr[data-fill-hash="${fillHash}"] .status.settled`).allInnerTexts()).sort();
  await expect.poll(shown, { timeout: 20_000 }).toEqual(paid);

  // Beside each leg's market, the quarter line the bet was placed on, linked to its page: on the trades (the side
  // bet on), the positions and the statement (the line's two outcomes).
  const line = ((await ex.get(`/trades?bettor=${wallet}`)).body.data.trades as { fillHash: string; marketHash: string; quarterLineParentMarketHash: string }[]).filter((t) => t.fillHash === fillHash);
  const parent = line[0]!.quarterLineParentMarketHash;
  const bets = async () => (await page.getByLabel('Trades', { exact: true }).locator(`tr[data-fill-hash="${fillHash}"] [data-label="Bet"]`).allInnerTexts()).sort();
  await expect.poll(bets, { timeout: 20_000 }).toEqual(['bet on Over 2 · leg of quarter line Over 2.25', 'bet on Over 2.5 · leg of quarter line Over 2.25']);
  for (const leg of line.map((t) => t.marketHash)) {
    const beside = page.getByLabel('Positions', { exact: true }).locator(`[data-position="${leg}"] [data-quarter-line="${parent}"]`);
    await expect.poll(async () => (await beside.innerText()).trim(), { timeout: 20_000 }).toBe('· leg of quarter line Over 2.25 / Under 2.25');
    expect(await beside.getByRole('link').getAttribute('href')).toBe(`#/market/${parent}`);
  }
  const statementLines = page.getByLabel('Statement', { exact: true }).locator(`[data-quarter-line="${parent}"]`);
  await expect.poll(() => statementLines.count(), { timeout: 20_000 }).toBeGreaterThan(0);
  await w!.screenshot('account-quarter-line');
  expect(w!.errors.filter((e) => !e.includes('/cashout/quote'))).toEqual([]);
});

it('lists the fills of a maker order on a quarter line under "Your fills as maker" on the line page', async () => {
  const ex = suite.ex;
  const w2 = await suite.openFunded(100n * USDC);
  const { page } = w2;
  const { markets } = await createFixtureMarket(ex, await league(), { type: 2, line: 2.75 });
  const line = markets[0]!.marketHash;

  // The page's wallet posts 20 on Under 2.75 at 50%; a bettor takes 10 of it on Over 2.75.
  await page.goto(`${ex.url}/#/market/${line}`);
  const maker = page.getByLabel('Maker', { exact: true });
  await maker.getByRole('group', { name: 'Maker outcome' }).getByRole('button', { name: 'Under 2.75' }).click();
  await maker.getByLabel('Maker size').fill('20');
  await maker.getByRole('button', { name: 'Post order' }).click();
  await maker.getByText(/Order posted/).waitFor();
  const bettor = await fundedWallet(ex, 100n * USDC);
  const fillHash = await fillAndConfirm(ex, bettor, { market: line, stakeWei: 10n * USDC, desiredOdds: 50n * E18, oddsSlippage: 0, isTakerBettingOutcomeOne: true });

  const fills = async () => (await maker.locator(`[data-my-fill="${fillHash}"]`).allInnerTexts()).map((s) => s.split(' on ')[0]);
  await expect.poll(fills, { timeout: 20_000 }).toEqual(['5.00 USDC', '5.00 USDC']);
  await page.reload();
  await expect.poll(fills, { timeout: 20_000 }).toEqual(['5.00 USDC', '5.00 USDC']);
  expect(w2.errors).toEqual([]);
});
