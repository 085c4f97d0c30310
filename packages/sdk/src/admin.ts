// OddexAdmin: the operator API (/admin/*, bearer admin token): faucet, API keys, catalogue, results, accounts.
import { HttpTransport, type FetchLike, type RetryPolicy } from './http.js';
import { parseBalance } from './parse.js';
import type { AccountView, Balance, Fixture, League, Market, Outcome, Sport, Team } from './types.js';

export interface OddexAdminOptions {
  url: string;
  adminToken: string;
  fetch?: FetchLike;
  retry?: Partial<RetryPolicy>;
}

export interface NewFixture {
  leagueId: number;
  teamOneId: number;
  teamTwoId: number;
  /** UNIX seconds. */
  gameTime: number;
  exchangeEventId?: string;
  status?: number;
}

export interface NewMarket {
  exchangeEventId: string;
  type: number;
  line?: number;
  selection?: 'teamOne' | 'draw' | 'teamTwo';
  liveEnabled?: boolean;
  mainLine?: boolean;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const parseAccount = (a: any): AccountView => ({ ...a, ...parseBalance(a) });

export class OddexAdmin {
  readonly http: HttpTransport;
  private readonly auth: Record<string, string>;

  constructor(opts: OddexAdminOptions) {
    this.http = new HttpTransport({
      baseUrl: opts.url,
      ...(opts.fetch ? { fetch: opts.fetch } : {}),
      ...(opts.retry ? { retry: opts.retry } : {}),
    });
    this.auth = { authorization: `Bearer ${opts.adminToken}` };
  }

  private post<T>(path: string, body: unknown): Promise<T> {
    return this.http.request<T>('POST', path, { body, headers: this.auth });
  }

  /** Mints test funds on the local ledger; returns the new balance. */
  async faucet(address: string, amount: bigint): Promise<Balance> {
    return parseBalance(await this.post('/admin/faucet', { address, amount: amount.toString() }));
  }

  async transfer(from: string, to: string, amount: bigint): Promise<{ from: Balance; to: Balance }> {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const r = await this.post<any>('/admin/chain/transfer', { from, to, amount: amount.toString() });
    return { from: parseBalance(r.from), to: parseBalance(r.to) };
  }

  createApiKey(address: string): Promise<{ id: string; apiKey: string; address: string }> {
    return this.post('/admin/api-keys', { address });
  }

  revokeApiKey(id: string): Promise<{ id: string; revoked: boolean }> {
    return this.http.request('DELETE', `/admin/api-keys/${encodeURIComponent(id)}`, { headers: this.auth });
  }

  async account(address: string): Promise<AccountView> {
    return parseAccount(await this.http.request('GET', `/admin/accounts/${address}`, { headers: this.auth }));
  }

  async liftRestriction(address: string): Promise<AccountView> {
    return parseAccount(await this.post(`/admin/accounts/${address}/lift-restriction`, {}));
  }

  createSport(sport: { label: string; sportId?: number }): Promise<Sport> {
    return this.post('/admin/sports', sport);
  }

  createLeague(league: { sportId: number; label: string; leagueId?: number; active?: boolean }): Promise<League> {
    return this.post('/admin/leagues', league);
  }

  createTeam(team: { sportId: number; name: string; teamId?: number }): Promise<Team> {
    return this.post('/admin/teams', team);
  }

  createFixture(fixture: NewFixture): Promise<Fixture> {
    return this.post('/admin/fixtures', fixture);
  }

  setFixtureStatus(exchangeEventId: string, status: number): Promise<Fixture> {
    return this.post(`/admin/fixtures/${encodeURIComponent(exchangeEventId)}/status`, { status });
  }

  /** Settles every market of a fixture by its type's rule. */
  reportFixtureResult(exchangeEventId: string, teamOneScore: number, teamTwoScore: number): Promise<Market[]> {
    return this.post(`/admin/fixtures/${encodeURIComponent(exchangeEventId)}/result`, { teamOneScore, teamTwoScore });
  }

  /** Creates a market (a quarter line returns the parent and its two legs). */
  createMarkets(market: NewMarket): Promise<Market[]> {
    return this.post('/admin/markets', market);
  }

  setMarketStatus(marketHash: string, status: 'ACTIVE' | 'SUSPENDED'): Promise<Market> {
    return this.post(`/admin/markets/${marketHash}/status`, { status });
  }

  /** Reports one market's outcome (0 void, 1, 2): open orders are cancelled, trades settle. */
  reportMarket(marketHash: string, outcome: Outcome, scores: { teamOneScore?: number; teamTwoScore?: number } = {}): Promise<Market[]> {
    return this.post(`/admin/markets/${marketHash}/report`, { outcome, ...scores });
  }
}
