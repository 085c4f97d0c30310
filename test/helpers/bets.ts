// Black-box betting steps for trade-history tests: a catalogue made through the admin API, funded wallets,
// viem-signed orders and fills, and waiting for on-chain confirmation.
import { expect } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PrivateKeyAccount } from 'viem';
import { defaultConfig } from '../../src/config.js';
import type { TestExchange } from './server.js';
import { USDC, newWallet, signedFill, signedOrder, type FillInput } from './wallets.js';

/** Fast confirmations, no betting delay, no rate limits. */
export const betTestConfig = () => ({
  chainConfirmationDelayMs: 50,
  bettingDelay: { preGameMs: 0, inPlayMs: 0, inPlayBySportMs: {}, inPlayByLeagueMs: {} },
  rateLimits: { ...defaultConfig().rateLimits, enabled: false },
});

export async function waitFor<T>(probe: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 5000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (done(v) || Date.now() > end) return v;
    await sleep(20);
  }
}

async function adminOk(ex: TestExchange, path: string, body: unknown) {
  const res = await ex.admin('POST', path, body);
  expect([path, res.status]).toEqual([path, 200]);
  return res.body.data;
}

export interface TestCatalogue {
  leagueId: number;
  teamOneId: number;
  teamTwoId: number;
}

/** A soccer league with two teams, "Alpha FC" (team one) and "Beta FC". */
export async function createSoccerLeague(ex: TestExchange): Promise<TestCatalogue> {
  const sport = await adminOk(ex, '/admin/sports', { label: 'Soccer' });
  const league = await adminOk(ex, '/admin/leagues', { sportId: sport.sportId, label: 'Test League' });
  const one = await adminOk(ex, '/admin/teams', { sportId: sport.sportId, name: 'Alpha FC' });
  const two = await adminOk(ex, '/admin/teams', { sportId: sport.sportId, name: 'Beta FC' });
  return { leagueId: league.leagueId, teamOneId: one.id, teamTwoId: two.id };
}

/** A fixture an hour from now with one market; returns the created market objects (a quarter line: parent, then legs). */
export async function createFixtureMarket(ex: TestExchange, cat: TestCatalogue, market: { type: number; line?: number; liveEnabled?: boolean }) {
  const fixture = await adminOk(ex, '/admin/fixtures', {
    leagueId: cat.leagueId,
    teamOneId: cat.teamOneId,
    teamTwoId: cat.teamTwoId,
    gameTime: Math.floor(Date.now() / 1000) + 3600,
  });
  const markets: { marketHash: string; exchangeEventId: string; line?: number; gameTime: number }[] = await adminOk(ex, '/admin/markets', {
    exchangeEventId: fixture.eventId,
    ...market,
  });
  return { exchangeEventId: fixture.eventId as string, markets };
}

export const fund = (ex: TestExchange, w: PrivateKeyAccount, amount: bigint) =>
  adminOk(ex, '/admin/faucet', { address: w.address, amount: amount.toString() });

/** A new wallet holding `amount` of the base token. */
export async function fundedWallet(ex: TestExchange, amount = 1000n * USDC): Promise<PrivateKeyAccount> {
  const w = newWallet();
  await fund(ex, w, amount);
  return w;
}

export const balanceOf = async (ex: TestExchange, w: PrivateKeyAccount) => (await ex.get(`/balances/${w.address}`)).body.data;

/** Posts one maker order; returns its hash. */
export async function postOrder(
  ex: TestExchange,
  maker: PrivateKeyAccount,
  o: { marketHash: string; totalBetSize: bigint; percentageOdds: bigint; isMakerBettingOutcomeOne: boolean; persistence?: 'LAPSE' | 'PERSIST' },
): Promise<string> {
  const order = await signedOrder(maker, ex.ctx.config, o);
  const res = await ex.post('/orders/new', { orders: [{ ...order.body, ...(o.persistence ? { persistence: o.persistence } : {}) }] });
  expect(res.body.data?.statuses?.[order.hash]).toBe('OK');
  return order.hash;
}

/** Fills as a taker and waits for the chain to confirm it; returns the fillHash. */
export async function fillAndConfirm(
  ex: TestExchange,
  taker: PrivateKeyAccount,
  f: FillInput,
): Promise<string> {
  const res = await ex.post('/orders/fill/v2', await signedFill(taker, ex.ctx.config, f));
  expect([res.status, res.body.data?.totalFilled]).toEqual([200, f.stakeWei.toString()]);
  const fillHash: string = res.body.data.fillHash;
  const confirmed = await waitFor(
    () => ex.get(`/trades?bettor=${taker.address}&pageSize=300`),
    (r) => r.body.data.trades.filter((t: { fillHash: string; tradeStatus: string }) => t.fillHash === fillHash).every((t: { tradeStatus: string }) => t.tradeStatus === 'SUCCESS'),
  );
  expect(confirmed.body.data.trades.some((t: { fillHash: string }) => t.fillHash === fillHash)).toBe(true);
  return fillHash;
}

/** Wei from a human-unit string of the 6-decimal token ("-3.333334" -> -3333334n). */
export function humanToWei(s: string): bigint {
  const negative = s.startsWith('-');
  const [whole, frac = ''] = s.replace('-', '').split('.');
  const wei = BigInt(whole!) * USDC + BigInt(frac.padEnd(6, '0'));
  return negative ? -wei : wei;
}
