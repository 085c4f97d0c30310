// The operator API, with the admin token the operator entered for this browser session.
import { apiDelete, apiGet, apiPost } from './http';
import type { AccountView, Fixture, Market } from './types';

const TOKEN_STORAGE = 'oddex.adminToken';

export const adminToken = {
  get: () => sessionStorage.getItem(TOKEN_STORAGE) ?? undefined,
  set: (token: string) => sessionStorage.setItem(TOKEN_STORAGE, token),
  clear: () => sessionStorage.removeItem(TOKEN_STORAGE),
};

const auth = () => ({ authorization: `Bearer ${adminToken.get() ?? ''}` });

export interface Team {
  id: number;
  name: string;
}

export const admin = {
  account: (address: string) => apiGet<AccountView>(`/admin/accounts/${address}`, undefined, auth()),
  liftRestriction: (address: string) => apiPost<AccountView>(`/admin/accounts/${address}/lift-restriction`, {}, auth()),
  faucet: (address: string, amount: bigint) => apiPost<unknown>('/admin/faucet', { address, amount: amount.toString() }, auth()),
  issueApiKey: (address: string) => apiPost<{ id: string; apiKey: string; address: string }>('/admin/api-keys', { address }, auth()),
  revokeApiKey: (id: string) => apiDelete<{ id: string; revoked: boolean }>(`/admin/api-keys/${encodeURIComponent(id)}`, auth()),
  teams: (sportId: number) => apiGet<Team[]>('/teams', { sportId, pageSize: 500 }),
  createFixture: (body: { leagueId: number; teamOneId: number; teamTwoId: number; gameTime: number }) => apiPost<Fixture>('/admin/fixtures', body, auth()),
  setFixtureStatus: (eventId: string, status: number) => apiPost<Fixture>(`/admin/fixtures/${eventId}/status`, { status }, auth()),
  reportResult: (eventId: string, teamOneScore: number, teamTwoScore: number) =>
    apiPost<Market[]>(`/admin/fixtures/${eventId}/result`, { teamOneScore, teamTwoScore }, auth()),
  createMarket: (body: { exchangeEventId: string; type: number; line?: number; selection?: 'teamOne' | 'draw' | 'teamTwo' }) =>
    apiPost<Market[]>('/admin/markets', body, auth()),
  setMarketStatus: (marketHash: string, status: 'ACTIVE' | 'SUSPENDED') => apiPost<Market>(`/admin/markets/${marketHash}/status`, { status }, auth()),
  setMainLine: (marketHash: string) => apiPost<Market>(`/admin/markets/${marketHash}/main-line`, {}, auth()),
  reportMarket: (marketHash: string, outcome: 0 | 1 | 2) => apiPost<Market>(`/admin/markets/${marketHash}/report`, { outcome }, auth()),
  postLiveScore: (body: { exchangeEventId: string; currentPeriod: string; periodTime: string; teamOneScore: number; teamTwoScore: number; periods: [] }) =>
    apiPost<unknown>('/admin/live-scores', body, auth()),
};
