// The catalogue's records kept in this process only (the CatalogueRecords port without durability): the draft the
// demo seed is built on before it is written at once, and a stand-in in tests. It answers settled markets at once,
// as an embedded database does.
import { settledQueriesOf, type CatalogueContents, type CatalogueRecords, type CatalogueSeed, type SettledMarketQueries, type SettledMarketReads, type StoredMarket } from '../store/catalogue-records.js';
import { PARLAY_MARKET_TYPE, type Fixture, type League, type LiveScore, type ParlayTerms, type Sport, type Team } from './model.js';

export class MemoryCatalogueRecords implements CatalogueRecords, SettledMarketReads {
  readonly settled: SettledMarketReads = this;
  readonly settledAsync: SettledMarketQueries = settledQueriesOf(this);
  private readonly sports = new Map<number, Sport>();
  private readonly leagues = new Map<number, League>();
  private readonly teams = new Map<number, Team>();
  private readonly fixtures = new Map<string, Fixture>();
  private readonly markets = new Map<string, StoredMarket>();
  private readonly parlays = new Map<string, ParlayTerms & { salt: string }>();
  private readonly liveScores = new Map<string, LiveScore>();

  /** Everything written, as one seed (parlays left out). */
  written(): CatalogueSeed {
    return {
      sports: [...this.sports.values()],
      leagues: [...this.leagues.values()],
      teams: [...this.teams.values()],
      fixtures: [...this.fixtures.values()],
      markets: [...this.markets.values()],
      liveScores: [...this.liveScores.values()],
    };
  }

  load(): Promise<CatalogueContents> {
    const open = (m: StoredMarket) => m.status !== 'SETTLED';
    const parlays = new Map([...this.parlays].filter(([hash]) => open(this.markets.get(hash)!)).map(([hash, { salt: _salt, ...terms }]) => [hash, terms]));
    const written = this.written();
    return Promise.resolve({ ...written, markets: written.markets.filter(open), parlays });
  }

  market(marketHash: string): StoredMarket | undefined {
    return this.markets.get(marketHash);
  }

  ofEvent(exchangeEventId: string): StoredMarket[] {
    return [...this.markets.values()].filter((m) => m.exchangeEventId === exchangeEventId && m.status === 'SETTLED' && m.type !== PARLAY_MARKET_TYPE);
  }

  parlay(marketHash: string): ParlayTerms | undefined {
    const p = this.parlays.get(marketHash);
    if (!p) return undefined;
    const { salt: _salt, ...terms } = p;
    return terms;
  }

  hasParlaySalt(bettor: string, salt: string): Promise<boolean> {
    return Promise.resolve([...this.parlays.values()].some((p) => p.bettor === bettor && p.salt === salt));
  }

  addSport(s: Sport): Promise<void> {
    return add(this.sports, s.sportId, s);
  }

  addLeague(l: League): Promise<void> {
    return add(this.leagues, l.leagueId, l);
  }

  addTeam(t: Team): Promise<void> {
    return add(this.teams, t.teamId, t);
  }

  addFixture(f: Fixture): Promise<void> {
    return add(this.fixtures, f.exchangeEventId, f);
  }

  putMarkets(markets: readonly StoredMarket[]): Promise<void> {
    for (const m of markets) this.markets.set(m.marketHash, m);
    return Promise.resolve();
  }

  setMainLines(flags: readonly { marketHash: string; mainLine: boolean }[]): Promise<void> {
    for (const f of flags) {
      const m = this.markets.get(f.marketHash);
      if (m) this.markets.set(f.marketHash, { ...m, mainLine: f.mainLine });
    }
    return Promise.resolve();
  }

  addParlay(market: StoredMarket, salt: string, terms: ParlayTerms): Promise<void> {
    this.markets.set(market.marketHash, market);
    this.parlays.set(market.marketHash, { ...terms, salt });
    return Promise.resolve();
  }

  putLiveScore(score: LiveScore): Promise<void> {
    this.liveScores.set(score.exchangeEventId, score);
    return Promise.resolve();
  }

  async addAll(seed: CatalogueSeed): Promise<void> {
    // All or nothing, as the port asks: refused before anything is written if a record exists.
    const taken =
      seed.sports.some((s) => this.sports.has(s.sportId)) ||
      seed.leagues.some((l) => this.leagues.has(l.leagueId)) ||
      seed.teams.some((t) => this.teams.has(t.teamId)) ||
      seed.fixtures.some((f) => this.fixtures.has(f.exchangeEventId));
    if (taken) throw new Error('the seed holds a record that exists');
    for (const s of seed.sports) await this.addSport(s);
    for (const l of seed.leagues) await this.addLeague(l);
    for (const t of seed.teams) await this.addTeam(t);
    for (const f of seed.fixtures) await this.addFixture(f);
    await this.putMarkets(seed.markets);
    for (const s of seed.liveScores) await this.putLiveScore(s);
  }
}

function add<K, V>(map: Map<K, V>, key: K, value: V): Promise<void> {
  if (map.has(key)) return Promise.reject(new Error(`${String(key)} exists`));
  map.set(key, value);
  return Promise.resolve();
}
