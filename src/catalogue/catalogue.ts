// The market catalogue: sports, leagues, teams, fixtures, markets and live scores. Held in memory (every lookup
// is synchronous), written through to its records (the CatalogueRecords port: SQLite or PostgreSQL), changes
// announced on the bus as REST-shaped objects. A write is awaited before memory shows it, and writes run one after
// the other (each checks what the one before left). Settled markets are the exception: they never change again and
// a month of trading leaves tens of thousands of them, so they stay in the store, the most recent in a bounded cache
// (market-index.ts). An embedded store reads one when asked for; a database server answers only asynchronously, so
// whoever may ask for settled markets loads them first (`loadMarkets`, `withMarketsLoaded`), then asks as ever, or
// takes the records of a whole page for its step (`marketsFor`), which the cache's bound does not limit.
// Requests for markets are checked in market-input.ts; records are transformed as values in market-records.ts.
import type { EventBus } from '../events.js';
import { ExchangeError } from '../protocol/errors.js';
import { reportedDate, type CatalogueContents, type CatalogueRecords, type CatalogueSeed, type StoredMarket } from '../store/catalogue-records.js';
import {
  ACTIVE_FIXTURE_STATUSES,
  FixtureStatus,
  LINE_TYPES,
  PARLAY_MARKET_TYPE,
  type Fixture,
  type FixtureStatusCode,
  type League,
  type LiveScore,
  type MarketRecord,
  type MarketTypeCode,
  type ParlayLeg,
  type ParlayTerms,
  type Selection,
  type Sport,
  type Team,
} from './model.js';
import { checkParlayLegs, parlayHashOf } from './parlay-rules.js';
import { isQuarterLine, marketHashOf, outcomeLabels } from './market-identity.js';
import type { NewMarket } from './market-input.js';
import { newFixture, newMarkets, type NewFixture } from './new-records.js';
import { MarketIndex } from './market-index.js';
import { byGameTimeThenHash, settledRecord, storedOf, type Settlement } from './market-records.js';
import type { Change } from '../engine/changes.js';
import { restFixture, restLeague, restMarket, restSport, restTeam, type RestFixture, type RestMarket, type RestTeam } from './rest.js';

export type { MarketRecord, Sport, League, Team, Fixture, LiveScore, Outcome } from './model.js';
export type { NewMarket } from './market-input.js';
export type { Settlement } from './market-records.js';

/** A signed, verified parlay request (addresses checksummed, salt lower case). */
export interface NewParlay {
  bettor: string;
  salt: string;
  baseToken: string;
  requestSize: bigint;
  legs: ParlayLeg[];
  /** UNIX ms. */
  requestedAt: number;
  quoteWindowMs: number;
  fillWindowMs: number;
  /** Throws when the bettor cannot stake `requestSize`: run once the request is otherwise valid, before the market is created. */
  requireFunds?: () => void;
}

/** A live score as the operator posts it: the catalogue fills in sport, league and times. */
export type NewLiveScore = Omit<LiveScore, 'sportId' | 'leagueId' | 'createdAt' | 'updatedAt'>;

/** How many rounds `withMarketsLoaded` runs a step at most (each loads markets the one before asked for). */
const LOAD_ROUNDS = 10;

export interface CatalogueOptions {
  /** Settled markets kept in memory after a read (market-index.ts's default if absent). */
  settledCached?: number;
}

export class Catalogue {
  /** Hashes asked for and not in memory while a `withMarketsLoaded` step runs. */
  private missed: Set<string> | undefined;
  /** The tail of the writes in progress: the next starts when it settles. */
  private writes: Promise<unknown> = Promise.resolve();
  private readonly sportsById = new Map<number, Sport>();
  private readonly leaguesById = new Map<number, League>();
  private readonly teamsById = new Map<number, Team>();
  private readonly fixturesById = new Map<string, Fixture>();
  /** Markets in memory: those not settled, open parlays by leg, settled ones read lately. */
  private markets: MarketIndex;
  private readonly liveScoresByEvent = new Map<string, LiveScore>();
  /** Rendered REST objects; records are replaced on every change, so a stale entry is never hit. */
  private readonly restCache = new WeakMap<MarketRecord, RestMarket>();
  /** Markets whose report is in flight (between the engine call and marking them settled). */
  private readonly reporting = new Set<string>();

  private constructor(
    private readonly store: CatalogueRecords,
    private readonly bus: EventBus,
    private readonly chainVersion: string,
    private readonly options: CatalogueOptions,
  ) {
    this.markets = new MarketIndex(new Map(), options.settledCached);
  }

  /** The catalogue its records hold, loaded into memory. */
  static async open(store: CatalogueRecords, bus: EventBus, chainVersion: string, options: CatalogueOptions = {}): Promise<Catalogue> {
    const catalogue = new Catalogue(store, bus, chainVersion, options);
    catalogue.fill(await store.load());
    return catalogue;
  }

  /**
   * Reads the records again, replacing what memory holds: for a process that does not write them (a gateway) once
   * the writer changed them. Not for the writer itself, whose memory is the newest copy.
   */
  async reload(): Promise<void> {
    const contents = await this.store.load();
    for (const byId of [this.sportsById, this.leaguesById, this.teamsById, this.fixturesById, this.liveScoresByEvent]) byId.clear();
    this.markets = new MarketIndex(new Map(), this.options.settledCached);
    this.fill(contents);
  }

  /** The live scores as the store holds them now (a process that keeps a copy, when their revision moved). */
  replaceLiveScores(scores: readonly LiveScore[]): void {
    this.liveScoresByEvent.clear();
    for (const s of scores) this.liveScoresByEvent.set(s.exchangeEventId, s);
  }

  private fill(contents: CatalogueContents): void {
    for (const s of contents.sports) this.sportsById.set(s.sportId, s);
    for (const l of contents.leagues) this.leaguesById.set(l.leagueId, l);
    for (const t of contents.teams) this.teamsById.set(t.teamId, t);
    for (const f of contents.fixtures) this.fixturesById.set(f.exchangeEventId, f);
    for (const m of contents.markets) {
      if (contents.parlays.has(m.marketHash)) this.markets.openParlays.set(m.marketHash, contents.parlays.get(m.marketHash)!);
    }
    for (const m of contents.markets) if (m.status !== 'SETTLED') this.cacheMarket(this.recordOf(m));
    for (const s of contents.liveScores) this.liveScoresByEvent.set(s.exchangeEventId, s);
  }

  // ---- reads used per request by the trading side -------------------------------------------------

  /**
   * Any status (a settled market not read lately costs one indexed read of an embedded store; of a database server,
   * it is found only once loaded: `loadMarkets`). Hashes are lower case.
   */
  getMarket(marketHash: string): MarketRecord | undefined {
    return this.markets.open(marketHash) ?? this.settledMarket(marketHash);
  }

  /**
   * Loads the settled markets among these hashes that memory does not hold into the settled cache, so that
   * `getMarket` finds them (a database server's, which cannot be read synchronously). Resolves to how many it loaded.
   * The cache is bounded: load at most a page's markets before the synchronous step that asks for them.
   */
  async loadMarkets(marketHashes: Iterable<string>): Promise<number> {
    const missing = this.unloaded(marketHashes);
    return missing.length === 0 ? 0 : (await this.readSettled(missing)).length;
  }

  /**
   * These markets' records for one request's synchronous step (rendering a page, say), whatever the bounded cache
   * keeps meanwhile: memory's, and settled ones read from the store when memory lacks them (cached as well). Unknown
   * hashes are left out; keys are lower case.
   */
  async marketsFor(marketHashes: Iterable<string>): Promise<ReadonlyMap<string, MarketRecord>> {
    const hashes = [...marketHashes];
    const found = new Map<string, MarketRecord>();
    const missing = new Set(this.unloaded(hashes));
    for (const h of hashes) {
      const lower = h.toLowerCase();
      const m = missing.has(lower) ? undefined : this.getMarket(lower);
      if (m) found.set(lower, m);
    }
    if (missing.size > 0) for (const m of await this.readSettled([...missing])) found.set(m.marketHash, m);
    return found;
  }

  /** Reads these settled markets from the store into the settled cache; returns the records found. */
  private async readSettled(marketHashes: readonly string[]): Promise<MarketRecord[]> {
    const found = await this.store.settledAsync.markets(marketHashes);
    // A report committed meanwhile put the record in memory already: it wins (the same market, settled).
    return found.map(({ market, parlay }) => this.markets.settledCached(market.marketHash) ?? this.markets.rememberSettled(this.recordOf(market, parlay)));
  }

  /**
   * The hashes among these (lower-cased) that `getMarket` cannot answer now without `loadMarkets`: none for an
   * embedded store; a database server's settled markets not in memory, and unknown ones. A caller whose order of
   * arrival matters awaits nothing when there are none.
   */
  unloaded(marketHashes: Iterable<string>): string[] {
    if (this.store.settled) return [];
    const hashes = new Set<string>();
    for (const h of marketHashes) {
      const lower = h.toLowerCase();
      if (!this.markets.open(lower) && !this.markets.settledCached(lower)) hashes.add(lower);
    }
    return [...hashes];
  }

  /**
   * Runs a synchronous step (pure: it may run more than once) with the settled markets it asks for loaded: a run
   * that asked for markets not in memory loads them and runs again, until none it asked for was missing or loaded.
   */
  async withMarketsLoaded<T>(step: () => T): Promise<T> {
    for (let round = 1; ; round++) {
      const missed = new Set<string>();
      this.missed = missed;
      let outcome: { value: T } | { error: unknown };
      try {
        outcome = { value: step() };
      } catch (error) {
        outcome = { error };
      } finally {
        this.missed = undefined;
      }
      if (round >= LOAD_ROUNDS || missed.size === 0 || (await this.loadMarkets(missed)) === 0) {
        if ('error' in outcome) throw outcome.error;
        return outcome.value;
      }
    }
  }

  /** Whether the market exists and is not settled (from memory, which holds every such market). */
  isUnsettled(marketHash: string): boolean {
    return this.markets.open(marketHash) !== undefined;
  }

  /** Hashes of the markets `isUnsettled` answers true for. */
  unsettledHashes(): string[] {
    return this.markets.openHashes();
  }

  getMarketByIdentity(exchangeEventId: string, type: number, line?: number, selection?: Selection): MarketRecord | undefined {
    return this.getMarket(marketHashOf({ exchangeEventId, type, line, selection }));
  }

  /** The event's markets that are not settled, from memory. */
  openMarketsOfEvent(exchangeEventId: string): readonly MarketRecord[] {
    return this.markets.openOfEvent(exchangeEventId);
  }

  /** All the event's markets; the settled ones are read from the store (operator paths, not per request). */
  async marketsOfEvent(exchangeEventId: string): Promise<MarketRecord[]> {
    const stored = this.store.settled ? this.store.settled.ofEvent(exchangeEventId) : await this.store.settledAsync.ofEvent(exchangeEventId);
    const settled = stored.map((m) => this.markets.settledCached(m.marketHash) ?? this.markets.rememberSettled(this.recordOf(m)));
    // A market reported while the read was under way is in both: its settled record wins.
    const open = this.openMarketsOfEvent(exchangeEventId).filter((m) => !settled.some((s) => s.marketHash === m.marketHash));
    return [...open, ...settled];
  }

  /** Markets held in memory: those not settled, and the settled ones read lately (bounded). */
  get marketsInMemory(): { open: number; settled: number } {
    return this.markets.sizes;
  }

  /** ACTIVE markets of these leagues. */
  marketsOfLeagues(leagueIds: number[]): MarketRecord[] {
    const wanted = new Set(leagueIds);
    return this.activeMarkets().filter((m) => wanted.has(m.leagueId));
  }

  /** The fixture is in progress (status 2): fills wait the in-play betting delay. */
  isInPlay(market: MarketRecord): boolean {
    return this.fixturesById.get(market.exchangeEventId)?.status === FixtureStatus.IN_PROGRESS;
  }

  /** Not enabled for in-play betting while its fixture is live: takes no orders or fills (DECISIONS.md). */
  isClosedInPlay(market: MarketRecord): boolean {
    return !market.liveEnabled && this.isInPlay(market);
  }

  toRestMarket(market: MarketRecord): RestMarket {
    let rest = this.restCache.get(market);
    if (!rest) {
      rest = restMarket(market, this.chainVersion);
      this.restCache.set(market, rest);
    }
    return rest;
  }

  // ---- reads for the catalogue endpoints --------------------------------------------------------

  isEmpty(): boolean {
    return this.sportsById.size === 0;
  }

  /** ACTIVE markets ordered by (gameTime, marketHash): the order /markets/active pages through. */
  activeMarkets(): readonly MarketRecord[] {
    return this.markets.active();
  }

  sports(): Sport[] {
    return [...this.sportsById.values()].sort((a, b) => a.sportId - b.sportId);
  }

  leagues(): League[] {
    return [...this.leaguesById.values()].sort((a, b) => a.leagueId - b.leagueId);
  }

  teams(): Team[] {
    return [...this.teamsById.values()].sort((a, b) => a.teamId - b.teamId);
  }

  fixture(exchangeEventId: string): Fixture | undefined {
    return this.fixturesById.get(exchangeEventId);
  }

  fixtures(): Fixture[] {
    return [...this.fixturesById.values()];
  }

  isActiveFixture(f: Fixture): boolean {
    return ACTIVE_FIXTURE_STATUSES.has(f.status);
  }

  liveScore(exchangeEventId: string): LiveScore | undefined {
    return this.liveScoresByEvent.get(exchangeEventId);
  }

  teamName(teamId: number): string {
    return this.teamsById.get(teamId)?.name ?? '';
  }

  toRestFixture(f: Fixture): RestFixture {
    return restFixture(f, this.teamsById.get(f.teamOneId)!, this.teamsById.get(f.teamTwoId)!, this.leaguesById.get(f.leagueId)!);
  }

  toRestTeam(t: Team): RestTeam {
    const sportActive = [...this.leaguesById.values()].some((l) => l.sportId === t.sportId && l.active);
    return restTeam(t, this.sportsById.get(t.sportId)!, sportActive);
  }

  toRestLeague = restLeague;
  toRestSport = restSport;

  // ---- operator writes ----------------------------------------------------------------------------

  /** Writes a whole catalogue into this empty one in one transaction (the demo seed, built on a draft catalogue). */
  seed(seed: CatalogueSeed): Promise<void> {
    return this.serially(async () => {
      if (!this.isEmpty()) throw new Error('only an empty catalogue is seeded');
      await this.store.addAll(seed);
      this.fill({ ...seed, parlays: new Map() });
    });
  }

  createSport(input: { sportId?: number; label: string }): Promise<Sport> {
    return this.serially(async () => {
      const sportId = input.sportId ?? nextId(this.sportsById.keys());
      if (this.sportsById.has(sportId)) throw new ExchangeError('SPORT_EXISTS', `sportId ${sportId} exists`);
      if (this.sports().some((s) => sameName(s.label, input.label))) throw new ExchangeError('SPORT_EXISTS', `a sport "${input.label}" exists`);
      const sport: Sport = { sportId, label: input.label };
      await this.store.addSport(sport);
      this.sportsById.set(sportId, sport);
      return sport;
    });
  }

  createLeague(input: { leagueId?: number; sportId: number; label: string; active?: boolean }): Promise<League> {
    return this.serially(async () => {
      this.requireSport(input.sportId);
      const leagueId = input.leagueId ?? nextId(this.leaguesById.keys());
      if (this.leaguesById.has(leagueId)) throw new ExchangeError('LEAGUE_EXISTS', `leagueId ${leagueId} exists`);
      if (this.leagues().some((l) => l.sportId === input.sportId && sameName(l.label, input.label))) {
        throw new ExchangeError('LEAGUE_EXISTS', `sport ${input.sportId} has a league "${input.label}"`);
      }
      const league: League = { leagueId, sportId: input.sportId, label: input.label, active: input.active ?? true };
      await this.store.addLeague(league);
      this.leaguesById.set(leagueId, league);
      return league;
    });
  }

  createTeam(input: { teamId?: number; sportId: number; name: string }): Promise<Team> {
    return this.serially(async () => {
      this.requireSport(input.sportId);
      const teamId = input.teamId ?? nextId(this.teamsById.keys());
      if (this.teamsById.has(teamId)) throw new ExchangeError('TEAM_EXISTS', `teamId ${teamId} exists`);
      if (this.teams().some((t) => t.sportId === input.sportId && sameName(t.name, input.name))) {
        throw new ExchangeError('TEAM_EXISTS', `sport ${input.sportId} has a team "${input.name}"`);
      }
      const team: Team = { teamId, sportId: input.sportId, name: input.name };
      await this.store.addTeam(team);
      this.teamsById.set(teamId, team);
      return team;
    });
  }

  createFixture(input: NewFixture): Promise<Fixture> {
    return this.serially(async () => {
      const fixture = newFixture(input, this.leaguesById, this.teamsById, this.fixturesById);
      await this.store.addFixture(fixture);
      this.fixturesById.set(fixture.exchangeEventId, fixture);
      this.bus.emit('fixtures', [this.toRestFixture(fixture)]);
      return fixture;
    });
  }

  /**
   * Creates the market(s) of one request: all three binary markets for a 1X2 without a selection; for a quarter
   * line also its two leg markets, linking legs that exist already. Returns the requested markets, then the legs.
   */
  createMarkets(input: NewMarket): Promise<MarketRecord[]> {
    return this.serially(async () => {
      const { created, parent, legs } = await this.withMarketsLoaded(() => newMarkets(input, this));
      await this.store.putMarkets(created);
      for (const m of created) this.cacheMarket(this.recordOf(m));
      this.bus.emit('markets', created.map((m) => this.toRestMarket(this.markets.open(m.marketHash)!)));
      if (input.mainLine) await this.writeMainLine(parent.marketHash);
      const linked = parent.legMarketHashes?.filter((h) => !legs.some((l) => l.marketHash === h)) ?? [];
      return [...created.map((m) => m.marketHash), ...linked].map((h) => this.getMarket(h)!);
    });
  }

  /**
   * Creates the parlay market of a verified request (its legs checked by parlay-rules.ts), filed under the fixture of
   * its earliest leg, and announces it on the markets channel (with its legs) and on the parlay channel.
   */
  createParlay(input: NewParlay): Promise<MarketRecord> {
    return this.serially(async () => {
      const legs = input.legs.map((l) => ({ marketHash: l.marketHash.toLowerCase(), bettingOutcomeOne: l.bettingOutcomeOne }));
      const legMarkets = await this.withMarketsLoaded(() => checkParlayLegs(legs, this));
      if (await this.store.hasParlaySalt(input.bettor, input.salt)) {
        throw new ExchangeError('PARLAY_REQUEST_ALREADY_PROCESSED', `salt ${input.salt} was already used by ${input.bettor}`);
      }
      input.requireFunds?.();
      const earliest = [...legMarkets].sort(byGameTimeThenHash)[0]!;
      const marketHash = parlayHashOf(input.bettor, input.salt, legs);
      const quoteWindowEndsAt = input.requestedAt + input.quoteWindowMs;
      const terms: ParlayTerms = {
        bettor: input.bettor,
        baseToken: input.baseToken,
        requestSize: input.requestSize.toString(),
        legs,
        requestedAt: input.requestedAt,
        quoteWindowEndsAt,
        fillDeadline: quoteWindowEndsAt + input.fillWindowMs,
      };
      // Closed once its first game starts, like any market not enabled for in-play betting.
      const stored: StoredMarket = { marketHash, exchangeEventId: earliest.exchangeEventId, type: PARLAY_MARKET_TYPE, status: 'ACTIVE', liveEnabled: false };
      await this.store.addParlay(stored, input.salt, terms);
      this.markets.openParlays.set(marketHash, terms);
      const market = this.cacheMarket(this.recordOf(stored));
      this.bus.emit('markets', [this.toRestMarket(market)]);
      this.bus.emit('parlayMarkets', [{ marketHash, baseToken: terms.baseToken, requestSize: terms.requestSize, legs: terms.legs.map((l) => ({ ...l })) }]);
      return market;
    });
  }

  /** When an open parlay's quote window closes (UNIX ms); undefined for other markets. */
  quoteWindowEndsAt(marketHash: string): number | undefined {
    return this.markets.openParlays.get(marketHash)?.quoteWindowEndsAt;
  }

  /** A parlay whose makers are still quoting at `at` (UNIX ms): its orders are not shown yet. */
  inQuoteWindow(marketHash: string, at: number): boolean {
    const p = this.markets.openParlays.get(marketHash);
    return p !== undefined && at < p.quoteWindowEndsAt;
  }

  /** Open parlays with a leg among these markets. */
  parlaysWithLegs(legHashes: Iterable<string>): MarketRecord[] {
    return this.markets.parlaysWithLegs(legHashes);
  }

  /** Makes this market the main line of its event+type group and clears the flag on the others. */
  setMainLine(marketHash: string): Promise<MarketRecord> {
    return this.serially(() => this.writeMainLine(marketHash));
  }

  /** 409 unless the market's status may still change: reported (or being reported) markets are SETTLED for good. */
  requireUnreported(marketHash: string): MarketRecord {
    const market = this.requireMarket(marketHash);
    if (market.status === 'SETTLED' || this.reporting.has(market.marketHash)) {
      throw new ExchangeError('MARKET_ALREADY_REPORTED', `market ${market.marketHash} is reported`);
    }
    return market;
  }

  /**
   * Follows the engine's committed change records: market and fixture statuses are set only by journaled engine
   * commands, and the stored copy was written in the same transaction (store/catalogue-status.ts). This updates
   * memory and announces the changes.
   */
  applyCommitted(changes: readonly Change[]): void {
    const markets: MarketRecord[] = [];
    for (const c of changes) {
      if (c.type === 'marketStatusChanged') {
        const m = this.markets.open(c.marketHash);
        if (m && m.status !== 'SETTLED' && m.status !== c.status) markets.push(this.cacheMarket({ ...m, status: c.status }));
      } else if (c.type === 'marketReported') {
        const m = this.markets.open(c.marketHash);
        if (m && m.status !== 'SETTLED') markets.push(this.cacheMarket(settledRecord(m, c, reportedDate(c.at))));
      } else if (c.type === 'fixtureStatusChanged') {
        const current = this.fixturesById.get(c.exchangeEventId);
        if (!current || current.status === c.status) continue;
        const fixture = { ...current, status: c.status as FixtureStatusCode };
        this.fixturesById.set(fixture.exchangeEventId, fixture);
        this.bus.emit('fixtures', [this.toRestFixture(fixture)]);
      }
    }
    if (markets.length > 0) this.bus.emit('markets', markets.map((m) => this.toRestMarket(m)));
  }

  putLiveScore(input: NewLiveScore, nowIso: string): Promise<LiveScore> {
    return this.serially(() => this.writeLiveScore(input, nowIso));
  }

  private async writeLiveScore(input: NewLiveScore, nowIso: string): Promise<LiveScore> {
    const fixture = this.requireFixture(input.exchangeEventId);
    const league = this.leaguesById.get(fixture.leagueId)!;
    const score: LiveScore = {
      sportId: league.sportId,
      leagueId: league.leagueId,
      exchangeEventId: fixture.exchangeEventId,
      currentPeriod: input.currentPeriod,
      periodTime: input.periodTime,
      teamOneScore: input.teamOneScore,
      teamTwoScore: input.teamTwoScore,
      periods: input.periods,
      extra: input.extra,
      createdAt: this.liveScoresByEvent.get(fixture.exchangeEventId)?.createdAt ?? nowIso,
      updatedAt: nowIso,
    };
    await this.store.putLiveScore(score);
    this.liveScoresByEvent.set(score.exchangeEventId, score);
    this.bus.emit('liveScores', [score]);
    return score;
  }

  // ---- reporting (see reporting.ts for the flow) ----------------------------------------------------

  /** Claims markets for reporting: 409 if one is settled or already being reported. Release with endReporting. */
  beginReporting(marketHashes: string[]): void {
    for (const h of marketHashes) {
      if (this.getMarket(h)?.status === 'SETTLED' || this.reporting.has(h)) {
        throw new ExchangeError('MARKET_ALREADY_REPORTED', `market ${h} is already reported`);
      }
    }
    for (const h of marketHashes) this.reporting.add(h);
  }

  endReporting(marketHashes: string[]): void {
    for (const h of marketHashes) this.reporting.delete(h);
  }

  /**
   * Marks reported markets SETTLED with their outcome and scores, in memory and on disk. Only for data dirs written
   * before the status became a projection of the journal (start-up catches their catalogue up).
   */
  markSettled(settlements: Settlement[], reportedDate: string): Promise<MarketRecord[]> {
    return this.serially(() => this.replaceMarkets(settlements.map((s) => settledRecord(this.requireMarket(s.marketHash), s, reportedDate))));
  }

  requireMarket(marketHash: string): MarketRecord {
    const market = this.getMarket(marketHash.toLowerCase());
    if (!market) throw new ExchangeError('MARKET_NOT_FOUND', `no market ${marketHash}`);
    return market;
  }

  requireFixture(exchangeEventId: string): Fixture {
    const fixture = this.fixturesById.get(exchangeEventId);
    if (!fixture) throw new ExchangeError('FIXTURE_NOT_FOUND', `no fixture ${exchangeEventId}`);
    return fixture;
  }

  // ---- internals ------------------------------------------------------------------------------------

  /** The write of setMainLine (createMarkets makes one too, in its own turn). */
  private async writeMainLine(marketHash: string): Promise<MarketRecord> {
    await this.loadMarkets([marketHash]);
    const market = this.requireUnreported(marketHash);
    if (!LINE_TYPES.has(market.type)) throw new ExchangeError('NOT_A_LINE_MARKET', `market type ${market.type} has no main line`);
    const group = (await this.marketsOfEvent(market.exchangeEventId)).filter((m) => m.type === market.type);
    const flags = group.filter((m) => m.mainLine !== (m.marketHash === market.marketHash)).map((m) => ({ marketHash: m.marketHash, mainLine: !m.mainLine }));
    if (flags.length === 0) return market;
    await this.store.setMainLines(flags);
    // Onto the records as they are now: a status may have followed the journal meanwhile.
    for (const f of flags) {
      const current = this.getMarket(f.marketHash);
      if (current) this.cacheMarket({ ...current, mainLine: f.mainLine });
    }
    const main = this.getMarket(market.marketHash)!;
    // The markets that lost the flag too, so a client keeping markets from the channel holds one main line per group.
    const demoted = flags.filter((f) => !f.mainLine).map((f) => this.getMarket(f.marketHash));
    this.bus.emit('mainLine', [main, ...demoted].filter((m) => m !== undefined).map((m) => this.toRestMarket(m)));
    return main;
  }

  /** Runs one write after those before it settled, whatever their result. */
  private serially<T>(write: () => Promise<T>): Promise<T> {
    const run = this.writes.then(write, write);
    this.writes = run.catch(() => undefined);
    return run;
  }

  private requireSport(sportId: number): Sport {
    const sport = this.sportsById.get(sportId);
    if (!sport) throw new ExchangeError('SPORT_NOT_FOUND', `no sport ${sportId}`);
    return sport;
  }

  /** Persists changed records, swaps them into the cache and announces them on the markets channel. */
  private async replaceMarkets(records: MarketRecord[]): Promise<MarketRecord[]> {
    await this.store.putMarkets(records.map(storedOf));
    for (const m of records) this.cacheMarket(m);
    this.bus.emit('markets', records.map((m) => this.toRestMarket(m)));
    return records;
  }

  /** Puts a new or changed record in memory (market-index.ts). */
  private cacheMarket(m: MarketRecord): MarketRecord {
    return this.markets.put(m);
  }

  /**
   * A market missing from memory is settled or unknown. Its status on disk is written in the journal's transaction
   * before memory follows (applyCommitted), so a row found here that is not settled yet is in memory, found first.
   */
  private settledMarket(marketHash: string): MarketRecord | undefined {
    const cached = this.markets.settledCached(marketHash);
    if (cached) return cached;
    const settled = this.store.settled;
    if (!settled) {
      this.missed?.add(marketHash);
      return undefined;
    }
    const stored = settled.market(marketHash);
    if (!stored || stored.status !== 'SETTLED') return undefined;
    return this.markets.rememberSettled(this.recordOf(stored));
  }

  /** The full record: the stored market plus its fixture's names, league, sport and game time (a parlay: its terms). */
  private recordOf(m: StoredMarket, parlay?: ParlayTerms): MarketRecord {
    if (m.type === PARLAY_MARKET_TYPE) return this.parlayRecordOf(m, parlay);
    const fixture = this.fixturesById.get(m.exchangeEventId)!;
    const teamOneName = this.teamName(fixture.teamOneId);
    const teamTwoName = this.teamName(fixture.teamTwoId);
    return {
      ...m,
      type: m.type as MarketTypeCode,
      ...this.placeOf(fixture),
      teamOneName,
      teamTwoName,
      ...outcomeLabels(m, teamOneName, teamTwoName),
      isQuarterLineMarket: m.line !== undefined && isQuarterLine(m.line),
    };
  }

  /** Where a fixture's markets stand: its sport, league, game time and teams. */
  private placeOf(fixture: Fixture) {
    const league = this.leaguesById.get(fixture.leagueId)!;
    const sport = this.sportsById.get(league.sportId)!;
    return {
      sportId: sport.sportId,
      sportLabel: sport.label,
      leagueId: league.leagueId,
      leagueLabel: league.label,
      gameTime: fixture.gameTime,
      teamOneId: fixture.teamOneId,
      teamTwoId: fixture.teamTwoId,
    };
  }

  /** A parlay shows the sport, league and game time of the fixture it is filed under, and its legs. */
  private parlayRecordOf(m: StoredMarket, terms: ParlayTerms | undefined): MarketRecord {
    const parlay = terms ?? this.markets.openParlays.get(m.marketHash) ?? this.store.settled?.parlay(m.marketHash);
    if (!parlay) throw new Error(`parlay ${m.marketHash} has no terms in the store`);
    return {
      ...m,
      type: PARLAY_MARKET_TYPE,
      parlay,
      ...this.placeOf(this.fixturesById.get(m.exchangeEventId)!),
      teamOneName: 'Parlay',
      teamTwoName: `${parlay.legs.length} legs`,
      outcomeOneName: 'Every leg wins',
      outcomeTwoName: 'Not every leg wins',
      outcomeVoidName: 'NO_CONTEST',
      isQuarterLineMarket: false,
    };
  }
}

const sameName = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();
function nextId(ids: Iterable<number>): number {
  let max = 0;
  for (const id of ids) max = Math.max(max, id);
  return max + 1;
}
