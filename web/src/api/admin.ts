// The operator API through the typed client's OddexAdmin, with the admin token the operator entered for this
// browser session. Main lines and live scores, which OddexAdmin has no method for, go through its transport.
import { OddexAdmin, type AccountView, type Market } from '@oddex/sdk';

const TOKEN_STORAGE = 'oddex.adminToken';

export const adminToken = {
  get: () => sessionStorage.getItem(TOKEN_STORAGE) ?? undefined,
  set: (token: string) => sessionStorage.setItem(TOKEN_STORAGE, token),
  clear: () => sessionStorage.removeItem(TOKEN_STORAGE),
};

export type { AccountView };

/** GET /admin/fees: fee revenue per UTC day and market (wei strings). */
export interface FeeRevenue {
  feeAccount: string;
  from: string;
  to: string;
  days: { day: string; marketHash: string; fees: string; affiliateFees: string; feeAccountFees: string; charges: number }[];
  totals: { fees: string; affiliateFees: string; feeAccountFees: string };
}

const client = () => new OddexAdmin({ url: location.origin, adminToken: adminToken.get() ?? '' });
const authorized = () => ({ authorization: `Bearer ${adminToken.get() ?? ''}` });

export const admin = {
  account: (address: string) => client().account(address),
  liftRestriction: (address: string) => client().liftRestriction(address),
  faucet: (address: string, amount: bigint) => client().faucet(address, amount),
  issueApiKey: (address: string) => client().createApiKey(address),
  revokeApiKey: (id: string) => client().revokeApiKey(id),
  createFixture: (body: { leagueId: number; teamOneId: number; teamTwoId: number; gameTime: number }) => client().createFixture(body),
  setFixtureStatus: (eventId: string, status: number) => client().setFixtureStatus(eventId, status),
  reportResult: (eventId: string, teamOneScore: number, teamTwoScore: number) => client().reportFixtureResult(eventId, teamOneScore, teamTwoScore),
  createMarket: (body: { exchangeEventId: string; type: number; line?: number; selection?: 'teamOne' | 'draw' | 'teamTwo' }) => client().createMarkets(body),
  setMarketStatus: (marketHash: string, status: 'ACTIVE' | 'SUSPENDED') => client().setMarketStatus(marketHash, status),
  reportMarket: (marketHash: string, outcome: 0 | 1 | 2) => client().reportMarket(marketHash, outcome),
  setMainLine: (marketHash: string) =>
    client().http.request<Market>('POST', `/admin/markets/${marketHash}/main-line`, { body: {}, headers: authorized() }),
  fees: () => client().http.request<FeeRevenue>('GET', '/admin/fees', { headers: authorized() }),
  postLiveScore: (body: { exchangeEventId: string; currentPeriod: string; periodTime: string; teamOneScore: number; teamTwoScore: number; periods: [] }) =>
    client().http.request<unknown>('POST', '/admin/live-scores', { body, headers: authorized() }),
};
