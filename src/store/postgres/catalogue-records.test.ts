// The catalogue's, API keys' and settings' ports on both stores: the same writes read back the same from SQLite and
// from a real PostgreSQL (a throw-away cluster, test/helpers/postgres.ts); a write the server does not take rejects
// and leaves memory as it was; keys and the token secret survive a reopen.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { noPostgres, postgresForSuite, postgresSuite } from '../../../test/helpers/postgres.js';
import { Catalogue } from '../../catalogue/catalogue.js';
import { SqliteCatalogueRecords } from '../../catalogue/store.js';
import { ApiKeys, SqliteApiKeyRecords } from '../../admin/api-keys.js';
import { RealtimeTokens, SqliteSettings } from '../../realtime/tokens.js';
import { EventBus } from '../../events.js';
import { FixtureStatus, MarketType } from '../../catalogue/model.js';
import { openDatabase, type Db } from '../sqlite/db.js';
import type { CatalogueRecords } from '../catalogue-records.js';
import type { ApiKeyRecords } from '../api-key-records.js';
import type { Settings } from '../settings.js';
import { openPool } from './pool.js';
import { PostgresCatalogueRecords } from './catalogue-records.js';
import { PostgresApiKeyRecords } from './api-key-records.js';
import { PostgresSettings } from './settings.js';
import { PostgresTradingStore } from './trading-store.js';
import { SqliteTradingStore } from '../sqlite/trading-store.js';
import { flowCommand } from '../../../test/helpers/order-flow.js';
import type { Change } from '../../engine/changes.js';

const BETTOR = '0x' + 'ab'.repeat(20);
const TOKEN = '0x' + 'cd'.repeat(20);
const GAME_TIME = 1_900_000_000;
const OWNER = '0x00000000000000000000000000000000000000a1';
const OTHER = '0x00000000000000000000000000000000000000b2';

/** One operator's session of writes: every kind of catalogue write, some several times. Returns the market hashes. */
async function writeCatalogue(c: Catalogue): Promise<string[]> {
  const soccer = await c.createSport({ label: 'Soccer' });
  await c.createSport({ sportId: 7, label: 'Tennis' });
  const league = await c.createLeague({ sportId: soccer.sportId, label: 'Premier', active: true });
  await c.createLeague({ leagueId: 90, sportId: 7, label: 'Tour', active: false });
  const teams = [];
  for (const name of ['Ayr', 'Bury', 'Cove', 'Deal']) teams.push(await c.createTeam({ sportId: soccer.sportId, name }));
  const one = await c.createFixture({ leagueId: league.leagueId, teamOneId: teams[0]!.teamId, teamTwoId: teams[1]!.teamId, gameTime: GAME_TIME });
  const two = await c.createFixture({
    exchangeEventId: 'E2',
    leagueId: league.leagueId,
    teamOneId: teams[2]!.teamId,
    teamTwoId: teams[3]!.teamId,
    gameTime: GAME_TIME + 3600,
    status: FixtureStatus.ABOUT_TO_START,
  });
  const created = [
    ...(await c.createMarkets({ exchangeEventId: one.exchangeEventId, type: MarketType.ONE_X_TWO, liveEnabled: true })),
    ...(await c.createMarkets({ exchangeEventId: one.exchangeEventId, type: MarketType.TOTALS, line: 2.25, mainLine: true })),
    ...(await c.createMarkets({ exchangeEventId: one.exchangeEventId, type: MarketType.SPREAD, line: -0.5 })),
    ...(await c.createMarkets({ exchangeEventId: two.exchangeEventId, type: MarketType.MONEYLINE })),
    ...(await c.createMarkets({ exchangeEventId: two.exchangeEventId, type: MarketType.TOTALS, line: 3.5 })),
  ];
  const totalTwo = created.at(-1)!;
  await c.setMainLine(totalTwo.marketHash);
  const spread = created.find((m) => m.type === MarketType.SPREAD)!;
  const moneyline = created.find((m) => m.type === MarketType.MONEYLINE)!;
  const parlay = await c.createParlay({
    bettor: BETTOR,
    salt: '0x01',
    baseToken: TOKEN,
    requestSize: 10n ** 18n,
    legs: [
      { marketHash: spread.marketHash, bettingOutcomeOne: true },
      { marketHash: moneyline.marketHash, bettingOutcomeOne: false },
    ],
    requestedAt: 1_800_000_000_000,
    quoteWindowMs: 2000,
    fillWindowMs: 30_000,
  });
  const score = { exchangeEventId: one.exchangeEventId, currentPeriod: '1H', periodTime: '12:00', periods: [], extra: '[]' };
  await c.putLiveScore({ ...score, teamOneScore: 0, teamTwoScore: 0 }, '2030-01-01T00:00:00.000Z');
  await c.putLiveScore({ ...score, teamOneScore: 1, teamTwoScore: 0, periods: [{ label: '1H', isFinished: false, teamOneScore: '1', teamTwoScore: '0' }] }, '2030-01-01T00:12:00.000Z');
  await c.markSettled([{ marketHash: spread.marketHash, outcome: 1, teamOneScore: 2, teamTwoScore: 1 }], '2030-01-01T02:00:00.000Z');
  await c.markSettled([{ marketHash: moneyline.marketHash, outcome: 1 }, { marketHash: parlay.marketHash, outcome: 2 }], '2030-01-01T03:00:00.000Z');
  return [...created, parlay].map((m) => m.marketHash);
}

/** Everything a reader of the catalogue can see of these markets and events. */
async function view(c: Catalogue, hashes: readonly string[]) {
  // A database server's settled markets are read once loaded (the catalogue keeps them in a bounded cache).
  await c.loadMarkets(hashes);
  const events = [...new Set(hashes.map((h) => c.getMarket(h)!.exchangeEventId))].sort();
  const byHash = (a: { marketHash: string }, b: { marketHash: string }) => (a.marketHash < b.marketHash ? -1 : 1);
  return {
    sports: c.sports(),
    leagues: c.leagues(),
    teams: c.teams(),
    fixtures: c.fixtures(),
    markets: hashes.map((h) => c.getMarket(h)),
    ofEvents: await Promise.all(events.map(async (e) => [...(await c.marketsOfEvent(e))].sort(byHash))),
    active: c.activeMarkets(),
    parlaysOfLegs: c.parlaysWithLegs(hashes),
    liveScores: events.map((e) => c.liveScore(e)),
  };
}

const openCatalogue = (records: CatalogueRecords) => Catalogue.open(records, new EventBus(), 'v-test');

describe.skipIf(noPostgres)(postgresSuite('the catalogue, API keys and settings on SQLite and PostgreSQL'), () => {
  const server = postgresForSuite();
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  function sqliteDb(): Db {
    const dir = mkdtempSync(join(tmpdir(), 'oddex-records-'));
    const db = openDatabase(dir);
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }), () => db.close());
    return db;
  }
  async function pgPool(url?: string): Promise<pg.Pool> {
    const pool = openPool(url ?? (await server().createDatabase()));
    cleanups.push(() => pool.end());
    return pool;
  }

  it('reads back the same catalogue from both stores, written and after a reopen', async () => {
    const db = sqliteDb();
    const pool = await pgPool();
    const onSqlite = await openCatalogue(new SqliteCatalogueRecords(db));
    const onPostgres = await openCatalogue(await PostgresCatalogueRecords.open(pool));
    const hashes = await writeCatalogue(onSqlite);
    expect(await writeCatalogue(onPostgres)).toEqual(hashes);

    const written = await view(onSqlite, hashes);
    expect(written.markets.filter((m) => m?.status === 'SETTLED')).toHaveLength(3);
    expect(await view(onPostgres, hashes)).toEqual(written);
    const reopenedSqlite = await openCatalogue(new SqliteCatalogueRecords(db));
    const reopenedPostgres = await openCatalogue(await PostgresCatalogueRecords.open(pool));
    expect(await view(reopenedSqlite, hashes)).toEqual(written);
    expect(await view(reopenedPostgres, hashes)).toEqual(written);
    // The salt of a parlay is spent on both, across the reopen.
    const again = { bettor: BETTOR, salt: '0x01', baseToken: TOKEN, requestSize: 1n, requestedAt: 0, quoteWindowMs: 1, fillWindowMs: 1 };
    const legs = [hashes[0]!, hashes.find((h) => reopenedPostgres.getMarket(h)!.exchangeEventId === 'E2' && reopenedPostgres.getMarket(h)!.status === 'ACTIVE')!];
    for (const c of [reopenedSqlite, reopenedPostgres]) {
      await expect(c.createParlay({ ...again, legs: legs.map((marketHash) => ({ marketHash, bettingOutcomeOne: true })) })).rejects.toMatchObject({
        errorCode: 'PARLAY_REQUEST_ALREADY_PROCESSED',
      });
    }
    // A whole catalogue seeded at once (the demo) reads back the same too.
    const seeded = [await openCatalogue(new SqliteCatalogueRecords(sqliteDb())), await openCatalogue(await PostgresCatalogueRecords.open(await pgPool()))];
    const open = hashes.filter((h) => written.markets.find((m) => m?.marketHash === h)?.status !== 'SETTLED' && !reopenedSqlite.getMarket(h)!.parlay);
    const seed = {
      sports: onSqlite.sports(),
      leagues: onSqlite.leagues(),
      teams: onSqlite.teams(),
      fixtures: onSqlite.fixtures(),
      markets: open.map((h) => storedOfView(onSqlite, h)),
      liveScores: written.liveScores.flatMap((s) => s ?? []),
    };
    for (const c of seeded) await c.seed(seed);
    const seededView = await view(seeded[0]!, open);
    expect(seededView.markets).toEqual(open.map((h) => onSqlite.getMarket(h)));
    expect(await view(seeded[1]!, open)).toEqual(seededView);
    expect(await view(await openCatalogue(await PostgresCatalogueRecords.open(pool)), hashes)).toEqual(written);
  });

  it('rejects a write the server does not take and leaves memory as it was; writes again once it is back', async () => {
    const pool = await pgPool();
    const catalogue = await openCatalogue(await PostgresCatalogueRecords.open(pool));
    const [marketHash] = await writeCatalogue(catalogue);
    const before = await view(catalogue, [marketHash!]);
    await server().halt();
    try {
      await expect(catalogue.createSport({ label: 'Hockey' })).rejects.toThrow();
      await expect(catalogue.createMarkets({ exchangeEventId: 'E2', type: MarketType.SPREAD, line: 1.5 })).rejects.toThrow();
      await expect(catalogue.putLiveScore({ exchangeEventId: 'E2', currentPeriod: '1H', periodTime: '1', teamOneScore: 0, teamTwoScore: 0, periods: [], extra: '[]' }, '2030-01-01T00:00:00.000Z')).rejects.toThrow();
      const totalTwo = catalogue.openMarketsOfEvent('E2').find((m) => m.type === MarketType.TOTALS)!;
      await expect(catalogue.createMarkets({ exchangeEventId: 'E2', type: MarketType.TOTALS, line: 4.5, mainLine: true })).rejects.toThrow();
      // What memory answers without the server (settled markets of an event are read from it: checked once it is back).
      expect(catalogue.getMarket(marketHash!)).toEqual(before.markets[0]);
      expect(catalogue.activeMarkets()).toEqual(before.active);
      expect(catalogue.sports().map((s) => s.label)).not.toContain('Hockey');
      expect(catalogue.getMarketByIdentity('E2', MarketType.SPREAD, 1.5)).toBeUndefined();
      expect(catalogue.liveScore('E2')).toBeUndefined();
      expect(catalogue.getMarket(totalTwo.marketHash)!.mainLine).toBe(true);
    } finally {
      await server().start();
    }
    expect(await view(catalogue, [marketHash!])).toEqual(before);
    // The pool reconnects: the next write goes through, and the database holds exactly what memory shows.
    await catalogue.createSport({ label: 'Hockey' });
    const reopened = await openCatalogue(await PostgresCatalogueRecords.open(pool));
    expect(reopened.sports()).toEqual(catalogue.sports());
    expect(reopened.getMarketByIdentity('E2', MarketType.SPREAD, 1.5)).toBeUndefined();
  });

  it("writes the statuses the journal's change records set in the journal's transaction, on both stores", async () => {
    const db = sqliteDb();
    const url = await server().createDatabase();
    const pool = await pgPool(url);
    const hashes = await writeCatalogue(await openCatalogue(new SqliteCatalogueRecords(db)));
    await writeCatalogue(await openCatalogue(await PostgresCatalogueRecords.open(pool)));
    const [suspended, reported] = hashes.filter((h) => !hashes.slice(-1).includes(h)).slice(0, 2);
    const changes: Change[] = [
      { type: 'marketStatusChanged', marketHash: suspended!, status: 'SUSPENDED', at: 1 },
      { type: 'marketReported', marketHash: reported!, outcome: 2, at: Date.UTC(2030, 0, 2), teamOneScore: 0, teamTwoScore: 3 },
      { type: 'fixtureStatusChanged', exchangeEventId: 'E2', status: FixtureStatus.IN_PROGRESS, at: 1 },
    ];
    const entries = [{ cmd: flowCommand(0, 1), changes: [] }, { cmd: flowCommand(1, 2), changes }];
    const sqliteJournal = new SqliteTradingStore(db);
    sqliteJournal.commit(entries);
    await sqliteJournal.sync();
    const pgJournal = await PostgresTradingStore.open({ connectionString: url });
    cleanups.push(() => pgJournal.close());
    pgJournal.commit(entries);
    await pgJournal.sync();

    const fromSqlite = await openCatalogue(new SqliteCatalogueRecords(db));
    const fromPostgres = await openCatalogue(await PostgresCatalogueRecords.open(pool));
    expect(fromPostgres.getMarket(suspended!)!.status).toBe('SUSPENDED');
    // A settled market stays in the database until loaded (memory keeps the markets whose status may change).
    expect(fromPostgres.getMarket(reported!)).toBeUndefined();
    expect(await fromPostgres.loadMarkets([reported!, suspended!])).toBe(1);
    expect(fromPostgres.getMarket(reported!)).toMatchObject({ status: 'SETTLED', outcome: 2, teamOneScore: 0, teamTwoScore: 3, reportedDate: '2030-01-02T00:00:00.000Z' });
    expect(fromPostgres.fixture('E2')!.status).toBe(FixtureStatus.IN_PROGRESS);
    expect(await view(fromPostgres, hashes)).toEqual(await view(fromSqlite, hashes));
  });

  it('keeps API keys created and revoked across a reopen, on both stores', async () => {
    const stores: [string, () => Promise<ApiKeyRecords>][] = [];
    const db = sqliteDb();
    const pool = await pgPool();
    stores.push(['sqlite', () => Promise.resolve(new SqliteApiKeyRecords(db))], ['postgres', () => PostgresApiKeyRecords.open(pool)]);
    for (const [name, records] of stores) {
      const keys = await ApiKeys.open(await records());
      const a = await keys.create(OWNER, '2030-01-01T00:00:00.000Z');
      const b = await keys.create(OWNER, '2030-01-01T00:00:00.000Z');
      const c = await keys.create(OTHER, '2030-01-01T00:00:01.000Z');
      expect(await keys.revoke(a.id, '2030-01-02T00:00:00.000Z'), name).toBe(true);
      expect(await keys.revoke(a.id, '2030-01-02T00:00:00.000Z'), name).toBe(false);
      // A wallet revokes only its own keys.
      expect(await keys.revoke(c.id, '2030-01-02T00:00:00.000Z', OWNER), name).toBe(false);
      expect(keys.keyOf(c.apiKey), name).toEqual({ id: c.id, address: c.address });

      const reopened = await ApiKeys.open(await records());
      expect(reopened.keyOf(a.apiKey), name).toBeUndefined();
      expect(reopened.isLive(a.id), name).toBe(false);
      expect(reopened.keyOf(b.apiKey), name).toEqual({ id: b.id, address: b.address });
      expect(reopened.isLive(c.id), name).toBe(true);
      expect(reopened.liveOf(OWNER), name).toEqual([{ id: b.id, createdAt: '2030-01-01T00:00:00.000Z' }]);
      expect(reopened.liveOf(OWNER), name).toEqual(keys.liveOf(OWNER));
      await expect(reopened.create(OWNER, 'x', (live) => {
        if (live.length >= 1) throw new Error('limit');
      })).rejects.toThrow('limit');
    }
  });

  it('keeps one token secret across a reopen, on both stores, and one for processes racing to make it', async () => {
    const db = sqliteDb();
    const pool = await pgPool();
    const otherPool = await pgPool(pool.options.connectionString);
    const stores: [string, () => Promise<Settings>][] = [
      ['sqlite', () => Promise.resolve(new SqliteSettings(db))],
      ['postgres', () => PostgresSettings.open(pool)],
    ];
    for (const [name, settings] of stores) {
      const tokens = RealtimeTokens.ofSettings(await settings(), 600, Date.now, () => true);
      const token = await tokens.issue(OWNER, 'key-1');
      const reopened = RealtimeTokens.ofSettings(await settings(), 600, Date.now, () => true);
      expect(await reopened.verify(token), name).toMatchObject({ ok: true, address: OWNER, keyId: 'key-1' });
    }
    const racing = await Promise.all([PostgresSettings.open(pool), PostgresSettings.open(otherPool)]);
    const values = await Promise.all(racing.flatMap((s, i) => [s.getOrPut('race', `a${i}`), s.getOrPut('race', `b${i}`)]));
    expect(new Set(values).size).toBe(1);
  });
});

/** The stored part of a record, as a seed carries it. */
function storedOfView(c: Catalogue, marketHash: string) {
  const m = c.getMarket(marketHash)!;
  const { marketHash: hash, exchangeEventId, type, status, liveEnabled } = m;
  return {
    marketHash: hash,
    exchangeEventId,
    type,
    status,
    liveEnabled,
    ...(m.line !== undefined ? { line: m.line } : {}),
    ...(m.selection !== undefined ? { selection: m.selection } : {}),
    ...(m.mainLine !== undefined ? { mainLine: m.mainLine } : {}),
    ...(m.legMarketHashes !== undefined ? { legMarketHashes: m.legMarketHashes } : {}),
  };
}
