// Live scores on the page, in a real browser (Debian chromium through playwright-core) against the real exchange
// with its demo catalogue: the operator (the admin API) publishes a score and puts a fixture in play; a fixture
// page (desktop) and a market page (phone) show the badge, the score and the period, and a second score arrives
// over the realtime connection without a reload. The league list on the home page shows them too.
import { expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { browserSuite, PHONE } from './helpers/browser.js';

const suite = browserSuite({ demo: true, demoLiquidity: false });

interface Fixture {
  eventId: string;
  status: number;
  participantOneName: string;
  participantTwoName: string;
}
interface Market {
  marketHash: string;
  type: number;
  liveEnabled: boolean;
}

/** A demo soccer fixture that has not started (no score yet), and one of its markets trading in play or not. */
async function notStartedFixture(liveEnabled: boolean): Promise<{ fixture: Fixture; market: Market; leagueLabel: string }> {
  const leagues = (await suite.ex.get('/leagues/active')).body.data as { leagueId: number; label: string; sportId: number }[];
  const soccer = ((await suite.ex.get('/sports')).body.data as { sportId: number; label: string }[]).find((s) => s.label === 'Soccer')!;
  const league = leagues.find((l) => l.sportId === soccer.sportId)!;
  const fixtures = (await suite.ex.get(`/fixture/active?leagueId=${league.leagueId}`)).body.data as Fixture[];
  for (const fixture of fixtures.filter((f) => f.status === 1)) {
    const markets = (await suite.ex.get(`/markets/active?eventId=${fixture.eventId}`)).body.data.markets as Market[];
    const market = markets.find((m) => m.liveEnabled === liveEnabled);
    if (market) return { fixture, market, leagueLabel: league.label };
  }
  throw new Error(`no demo fixture of ${league.label} with a market whose liveEnabled is ${liveEnabled}`);
}

const score = (eventId: string, one: number, two: number, currentPeriod: string, periodTime: string) => ({
  exchangeEventId: eventId,
  currentPeriod,
  periodTime,
  teamOneScore: one,
  teamTwoScore: two,
  periods: [{ label: currentPeriod, isFinished: false, teamOneScore: String(one), teamTwoScore: String(two) }],
});

const liveState = (page: Page) => page.getByLabel('Live state').first();

/** A mark in the page's window: it is gone after a reload. */
const markWindow = (page: Page) => page.evaluate('window.liveMark = 1');
const stillMarked = (page: Page) => page.evaluate('window.liveMark === 1');

it('the fixture and market pages show the live score, the period and the in-play badge, kept live', async () => {
  const { fixture, market, leagueLabel } = await notStartedFixture(true);
  const desktop = await suite.open();
  const phone = await suite.open(PHONE);
  await desktop.page.goto(`${suite.ex.url}/#/fixture/${fixture.eventId}`);
  await phone.page.goto(`${suite.ex.url}/#/market/${market.marketHash}`);
  await desktop.page.locator(`a[data-market-hash="${market.marketHash}"]`).waitFor();
  await phone.page.locator('[aria-label="Order book"][data-feed="live"]').waitFor();
  // Not started and no score: nothing live is shown.
  for (const p of [desktop.page, phone.page]) expect(await p.getByLabel('Live state').count()).toBe(0);
  await markWindow(desktop.page);
  await markWindow(phone.page);

  // Kick-off and a first score.
  expect((await suite.ex.admin('POST', `/admin/fixtures/${fixture.eventId}/status`, { status: 2 })).status).toBe(200);
  expect((await suite.ex.admin('POST', '/admin/live-scores', score(fixture.eventId, 1, 0, '1st Half', '12:00'))).status).toBe(200);
  for (const p of [desktop.page, phone.page]) {
    await liveState(p).locator('[data-score="1-0"]').waitFor();
    expect(await liveState(p).getAttribute('data-in-play')).toBe('true');
    expect(await liveState(p).innerText()).toMatch(/In play\s*1–0\s*1st Half 12:00/i);
  }

  // A second score arrives over the realtime connection: same pages, no reload.
  expect((await suite.ex.admin('POST', '/admin/live-scores', score(fixture.eventId, 2, 1, '2nd Half', '51:00'))).status).toBe(200);
  for (const p of [desktop.page, phone.page]) {
    await liveState(p).locator('[data-score="2-1"]').waitFor();
    expect(await liveState(p).innerText()).toMatch(/In play\s*2–1\s*2nd Half 51:00/i);
    expect(await stillMarked(p)).toBe(true);
  }
  await desktop.screenshot('live-scores-fixture');
  await phone.screenshot('live-scores-market-phone');

  // The other widths: the market page on desktop, the fixture page on a phone (both read the snapshot).
  await desktop.page.goto(`${suite.ex.url}/#/market/${market.marketHash}`);
  await phone.page.goto(`${suite.ex.url}/#/fixture/${fixture.eventId}`);
  for (const p of [desktop.page, phone.page]) await liveState(p).locator('[data-score="2-1"]').waitFor();
  await desktop.screenshot('live-scores-market');
  await phone.screenshot('live-scores-fixture-phone');

  // The home page's league list: the row of the fixture shows the badge and the score; the fixture's end takes
  // it off the list.
  await desktop.page.goto(`${suite.ex.url}/#/`);
  await desktop.page.getByRole('tab', { name: 'Soccer' }).click();
  await desktop.page.locator('summary', { hasText: leagueLabel }).click();
  const row = desktop.page.locator(`a[href="#/fixture/${fixture.eventId}"]`);
  await row.getByLabel('Live state').locator('[data-score="2-1"]').waitFor();
  expect(await row.innerText()).toMatch(/In play/i);
  await desktop.screenshot('live-scores-home');
  expect((await suite.ex.admin('POST', `/admin/fixtures/${fixture.eventId}/status`, { status: 3 })).status).toBe(200);
  await row.waitFor({ state: 'detached' });

  expect([...desktop.errors, ...phone.errors]).toEqual([]);
}, 90_000);

it('a market that does not trade in play says so while its fixture is in progress', async () => {
  const { fixture, market: closed } = await notStartedFixture(false);
  const w = await suite.open();
  await w.page.goto(`${suite.ex.url}/#/market/${closed.marketHash}`);
  await w.page.locator('[aria-label="Order book"][data-feed="live"]').waitFor();
  expect((await suite.ex.admin('POST', `/admin/fixtures/${fixture.eventId}/status`, { status: 2 })).status).toBe(200);
  await w.page.getByText('This market does not trade in play').waitFor();
  expect(await liveState(w.page).getAttribute('data-in-play')).toBe('true');
  // The bet ticket says no bet can be placed, not that a bet is matched after the in-play delay.
  const ticket = w.page.getByLabel('Bet ticket');
  expect(await ticket.locator('[data-ticket-closed]').innerText()).toBe('No bet can be placed now: the market does not trade in play.');
  expect(await ticket.locator('[data-betting-delay]').count()).toBe(0);
  expect(await ticket.getByRole('button', { name: /^Bet on / }).isDisabled()).toBe(true);
  // On the fixture's page it is marked, and offers no bet slip button (a parlay leg on it would be refused).
  await w.page.goto(`${suite.ex.url}/#/fixture/${fixture.eventId}`);
  const row = w.page.locator(`tr:has(a[data-market-hash="${closed.marketHash}"])`);
  await row.getByText('closed in play').waitFor();
  expect(await row.locator('button.slip-add').count()).toBe(0);
  expect(w.errors).toEqual([]);
}, 60_000);
