// Operating the exchange on PostgreSQL as the README's "Running on PostgreSQL" says: `oddex migrate` on an empty
// database, the pool's figures on /metrics, a backup of a running exchange (pg_dump) restored into another
// database (pg_restore) that starts and equals the original, archiving the journal a snapshot covers, and settled
// markets kept in the database rather than in memory.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import pg from 'pg';
import { migrationFiles } from '../src/store/postgres/migrate.js';
import { noPostgres, postgresBinDir, postgresForSuite, postgresSuite } from './helpers/postgres.js';
import { startTestExchange, type TestExchange } from './helpers/server.js';
import { betTestConfig, createFixtureMarket, createSoccerLeague, fillAndConfirm, fundedWallet, postOrder } from './helpers/bets.js';
import { E18, USDC } from './helpers/wallets.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..');

describe.skipIf(noPostgres)(postgresSuite('operating the exchange on PostgreSQL'), () => {
  const server = postgresForSuite();
  const exchanges: TestExchange[] = [];
  afterEach(async () => {
    for (const ex of exchanges.splice(0)) await ex.destroy();
  });
  const start = async (databaseUrl: string, dataDir?: string) => {
    const ex = await startTestExchange(betTestConfig(), { databaseUrl, ...(dataDir ? { dataDir } : {}) });
    exchanges.push(ex);
    return ex;
  };
  /** One query on its own connection. */
  const query = async <R extends pg.QueryResultRow>(url: string, sql: string): Promise<R[]> => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query<R>(sql)).rows;
    } finally {
      await client.end();
    }
  };
  const tables = async (url: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")).rows.map((r) => r.name);
    } finally {
      await client.end();
    }
  };

  it('`oddex migrate` creates the schema of an empty database, then finds it up to date', async () => {
    const url = await server().createDatabase();
    const migrate = () => run(process.execPath, [join(ROOT, 'bin/oddex.js'), 'migrate'], { cwd: ROOT, env: { ...process.env, ODDEX_DATABASE_URL: url } });
    // Every schema file, in order.
    const versions = migrationFiles().map((f) => f.version);
    expect(versions.slice(0, 5)).toEqual(['001_journal', '002_snapshots', '003_writer_fence', '004_read_models', '005_catalogue']);
    expect((await migrate()).stdout).toMatch(new RegExp(`: applied ${versions.join(', ')}\n$`));
    expect(await tables(url)).toEqual(expect.arrayContaining(['journal', 'snapshots', 'writer_fence', 'rm_trades', 'rm_position', 'markets', 'api_keys']));
    expect((await migrate()).stdout).toMatch(/: up to date\n$/);
    // The journal's and snapshots' large texts are stored with lz4 (011_journal_lz4.sql): Debian's server has it.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const methods = await client.query(
      `SELECT attrelid::regclass::text || '.' || attname AS col, attcompression AS method FROM pg_attribute
        WHERE attrelid IN ('journal'::regclass, 'snapshots'::regclass) AND attname IN ('command', 'changes', 'body') ORDER BY 1`,
    );
    await client.end();
    expect(methods.rows).toEqual([
      { col: 'journal.changes', method: 'l' },
      { col: 'journal.command', method: 'l' },
      { col: 'snapshots.body', method: 'l' },
    ]);
    const ex = await start(url);
    expect((await ex.get('/health/ready')).status).toBe(200);
    // The read side, catalogue and keys share one pool, whose figures /metrics shows.
    const metrics: string = (await ex.get('/metrics')).body;
    expect(metrics).toMatch(/^oddex_database_pool_connections\{state="open"\} [1-9]\d*$/m);
    expect(metrics).toMatch(/^oddex_database_pool_connections\{state="waiting"\} 0$/m);
    // A snapshot on request is written through the journal's asynchronous sync.
    expect((await ex.admin('POST', '/admin/journal/snapshot')).status).toBe(200);
  });

  it('a start PostgreSQL refuses (an unknown user, a missing database, another writer) says so in one line naming ODDEX_DATABASE_URL, without a stack trace', async () => {
    const url = await server().createDatabase();
    const main = (databaseUrl: string) =>
      run(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
        cwd: ROOT,
        env: { ...process.env, ODDEX_DATABASE_URL: databaseUrl, ODDEX_PORT: '0', ODDEX_DATA_DIR: mkdtempSync(join(tmpdir(), 'oddex-pg-start-')), ODDEX_DEMO: 'false' },
      }).then(
        () => ({ code: 0, stderr: '' }),
        (err: { code: number; stderr: string }) => ({ code: err.code, stderr: err.stderr }),
      );
    const nobody = new URL(url);
    nobody.username = 'nobody';
    nobody.password = 'secret-pw';
    const missing = new URL(url);
    missing.pathname = '/no_such_db';
    const ex = await start(url);
    const [login, database, second] = await Promise.all([main(nobody.href), main(missing.href), main(url)]);
    expect([login.code, login.stderr.trim()]).toEqual([
      1,
      'oddex: failed to start: PostgreSQL refused the login (role "nobody" does not exist): check the user and password in ODDEX_DATABASE_URL',
    ]);
    expect([database.code, database.stderr.trim()]).toEqual([1, 'oddex: failed to start: database "no_such_db" does not exist: create it (createdb) or name another in ODDEX_DATABASE_URL']);
    expect(second.code).toBe(1);
    expect(second.stderr.trim()).toMatch(/^oddex: failed to start: another writer holds this database \(.*\): only one exchange writes a database; stop it first$/);
    for (const r of [login, database, second]) expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(login.stderr).not.toContain('secret-pw');
    expect((await ex.get('/health/ready')).status).toBe(200);
  });

  it('a pg_dump of a running exchange, restored into another database, starts and equals the original', async () => {
    const url = await server().createDatabase();
    const ex = await start(url);
    const cat = await createSoccerLeague(ex);
    const { markets } = await createFixtureMarket(ex, cat, { type: 52 });
    const market = markets[0]!.marketHash;
    const maker = await fundedWallet(ex);
    const taker = await fundedWallet(ex);
    await postOrder(ex, maker, { marketHash: market, totalBetSize: 100n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: true });
    await fillAndConfirm(ex, taker, { market, isTakerBettingOutcomeOne: false, stakeWei: 12n * USDC, desiredOdds: 60n * E18 });
    const key: string = (await ex.admin('POST', '/admin/api-keys', { address: maker.address })).body.data.apiKey;

    const dump = join(ex.dataDir, 'backup.dump');
    const bin = (name: string) => join(postgresBinDir!, name);
    await run(bin('pg_dump'), ['--format=custom', `--file=${dump}`, `--dbname=${url}`]);
    const restored = await server().createDatabase();
    await run(bin('pg_restore'), ['--no-owner', `--dbname=${restored}`, dump]);

    const copy = await start(restored);
    const readSide = async (e: TestExchange) => ({
      market: (await e.get(`/markets/find?marketHashes=${market}`)).body,
      orders: (await e.get(`/orders?maker=${maker.address}`)).body,
      trades: (await e.get(`/trades?bettor=${taker.address}`)).body,
      consolidated: (await e.get(`/trades/consolidated?bettor=${taker.address}&settled=false&page=0&perPage=10&sortAsc=true`)).body,
      balances: [(await e.get(`/balances/${maker.address}`)).body, (await e.get(`/balances/${taker.address}`)).body],
      // The key authenticates, and the token secret is the one stored: the JWT's signature is the same.
      token: (await e.get('/user/realtime-token/api-key', { 'x-api-key': key })).status,
      metadata: (await e.get('/metadata')).body,
    });
    const original = await readSide(ex);
    expect(original.trades.data.trades).toHaveLength(1);
    expect(original.token).toBe(200);
    expect(await readSide(copy)).toEqual(original);
    // The copy trades on from where the dump left it.
    await fillAndConfirm(copy, taker, { market, isTakerBettingOutcomeOne: false, stakeWei: 3n * USDC, desiredOdds: 60n * E18 });
  });

  it('archives the journal the oldest snapshot covers: its rows leave the table for a file, a restart equals before, trading goes on', async () => {
    const url = await server().createDatabase();
    let ex = await start(url);
    const cat = await createSoccerLeague(ex);
    const market = (await createFixtureMarket(ex, cat, { type: 52 })).markets[0]!.marketHash;
    const maker = await fundedWallet(ex);
    const taker = await fundedWallet(ex);
    await postOrder(ex, maker, { marketHash: market, totalBetSize: 100n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: true });
    await fillAndConfirm(ex, taker, { market, isTakerBettingOutcomeOne: false, stakeWei: 12n * USDC, desiredOdds: 60n * E18 });
    // Two snapshots at different positions: the oldest one bounds what may be archived.
    expect((await ex.admin('POST', '/admin/journal/snapshot')).status).toBe(200);
    await postOrder(ex, maker, { marketHash: market, totalBetSize: 20n * USDC, percentageOdds: 25n * E18, isMakerBettingOutcomeOne: false });
    expect((await ex.admin('POST', '/admin/journal/snapshot')).status).toBe(200);
    const [oldest] = (await query<{ seq: string }>(url, 'SELECT journal_seq AS seq FROM snapshots ORDER BY 1')).map((r) => Number(r.seq));
    const journal = () => query<{ seq: string; at_ms: string; command: string; changes: string | null }>(url, 'SELECT seq, at_ms, command, changes FROM journal ORDER BY seq');
    const before = await journal();
    expect(oldest).toBeGreaterThan(1);

    const archived = await ex.admin('POST', '/admin/journal/archive');
    expect([archived.status, archived.body.data]).toEqual([
      200,
      { from: 1, to: oldest, rows: oldest, file: join(ex.dataDir, 'journal-archive', `journal-1-${oldest}.ndjson.gz`) },
    ]);
    // The file holds exactly the rows that left the table; the table keeps the rest.
    const lines = gunzipSync(readFileSync(archived.body.data.file)).toString('utf8').trimEnd().split('\n').map((l) => JSON.parse(l));
    const asStored = (r: (typeof before)[number]) => ({ seq: Number(r.seq), at_ms: Number(r.at_ms), command: r.command, changes: r.changes });
    expect(lines).toEqual(before.filter((r) => Number(r.seq) <= oldest!).map(asStored));
    expect(await journal()).toEqual(before.filter((r) => Number(r.seq) > oldest!));
    const again = await ex.admin('POST', '/admin/journal/archive');
    expect([again.status, again.body.errorCode]).toEqual([409, 'NOTHING_TO_ARCHIVE']);

    const readSide = async (e: TestExchange) => ({
      orders: (await e.get(`/orders?maker=${maker.address}`)).body.data,
      trades: (await e.get(`/trades?bettor=${taker.address}`)).body.data,
      balances: [(await e.get(`/balances/${maker.address}`)).body.data, (await e.get(`/balances/${taker.address}`)).body.data],
    });
    const seen = await readSide(ex);
    expect(seen.orders).toHaveLength(2);
    ex = await ex.restart();
    exchanges.push(ex);
    expect(await readSide(ex)).toEqual(seen);
    await fillAndConfirm(ex, taker, { market, isTakerBettingOutcomeOne: false, stakeWei: 3n * USDC, desiredOdds: 60n * E18 });
    expect((await readSide(ex)).trades.trades).toHaveLength(2);

    // Read models behind the archived rows (restored from an older backup, say) are caught up from the archive's
    // files; without those files they cannot be: start-up refuses, naming the archive, rather than project on
    // without those rows.
    await ex.close();
    await query(url, 'UPDATE rm_position SET journal_seq = 0');
    rmSync(join(ex.dataDir, 'journal-archive'), { recursive: true });
    await expect(startTestExchange(betTestConfig(), { databaseUrl: url, dataDir: ex.dataDir })).rejects.toThrow(/archived/);
  });

  it('keeps settled markets in the database: memory stays within its cache while 300 settle, and they answer as before', async () => {
    const url = await server().createDatabase();
    const cache = 100;
    const open = (dataDir?: string) => startTestExchange({ ...betTestConfig(), catalogueSettledCache: cache }, { databaseUrl: url, ...(dataDir ? { dataDir } : {}) });
    let ex = await open();
    exchanges.push(ex);
    const cat = await createSoccerLeague(ex);
    const lines = Array.from({ length: 10 }, (_, i) => i + 0.5);
    const fixtures: { eventId: string; markets: string[] }[] = [];
    for (let f = 0; f < 30; f++) {
      const { exchangeEventId, markets } = await createFixtureMarket(ex, cat, { type: 2, line: lines[0]! });
      const more = await Promise.all(lines.slice(1).map(async (line) => (await ex.admin('POST', '/admin/markets', { exchangeEventId, type: 2, line })).body.data[0].marketHash as string));
      fixtures.push({ eventId: exchangeEventId, markets: [markets[0]!.marketHash, ...more] });
    }
    expect(ex.ctx.catalogue.marketsInMemory).toEqual({ open: 300, settled: 0 });
    // A trade on the first market, rendered after its market has long left the cache.
    const maker = await fundedWallet(ex);
    const taker = await fundedWallet(ex);
    const traded = fixtures[0]!.markets[0]!;
    await postOrder(ex, maker, { marketHash: traded, totalBetSize: 100n * USDC, percentageOdds: 40n * E18, isMakerBettingOutcomeOne: true });
    await fillAndConfirm(ex, taker, { market: traded, isTakerBettingOutcomeOne: false, stakeWei: 12n * USDC, desiredOdds: 60n * E18 });

    const reported = new Map<string, unknown>();
    let trades: unknown;
    for (const [i, f] of fixtures.entries()) {
      const settled = await ex.admin('POST', `/admin/fixtures/${f.eventId}/result`, { teamOneScore: 2, teamTwoScore: 1 });
      expect(settled.status).toBe(200);
      for (const m of settled.body.data) reported.set(m.marketHash, m);
      if (i === 0) {
        trades = {
          trades: (await ex.get(`/trades?bettor=${taker.address}`)).body,
          consolidated: (await ex.get(`/trades/consolidated?bettor=${taker.address}&settled=true&page=0&perPage=10&sortAsc=true`)).body,
        };
      }
      expect(ex.ctx.catalogue.marketsInMemory.settled).toBeLessThanOrEqual(cache);
    }
    expect(reported.size).toBe(300);
    expect(ex.ctx.catalogue.marketsInMemory).toEqual({ open: 0, settled: cache });

    /** Every settled market as /markets/find answers it, 30 at a time, and what else reads settled markets. */
    const answers = async (e: TestExchange) => {
      const found = new Map<string, unknown>();
      const hashes = [...reported.keys()];
      for (let i = 0; i < hashes.length; i += 30) {
        for (const m of (await e.get(`/markets/find?marketHashes=${hashes.slice(i, i + 30).join(',')}`)).body.data) found.set(m.marketHash, m);
      }
      const again = await e.admin('POST', `/admin/fixtures/${fixtures[0]!.eventId}/result`, { teamOneScore: 2, teamTwoScore: 1 });
      return {
        found,
        // The event's markets are read from the database: every one of them is reported already, with this score, so
        // the same result again is answered with them as reported.
        again: [again.status, again.body.data.map((m: { marketHash: string }) => m.marketHash).sort()],
        trades: {
          trades: (await e.get(`/trades?bettor=${taker.address}`)).body,
          consolidated: (await e.get(`/trades/consolidated?bettor=${taker.address}&settled=true&page=0&perPage=10&sortAsc=true`)).body,
        },
      };
    };
    const expected = { found: reported, again: [200, [...fixtures[0]!.markets].sort()], trades };
    expect((trades as { trades: { data: { trades: unknown[] } } }).trades.data.trades).toHaveLength(1);
    expect(await answers(ex)).toEqual(expected);
    expect(ex.ctx.catalogue.marketsInMemory).toEqual({ open: 0, settled: cache });

    // A restart loads none of them; they answer the same, read when asked.
    ex = await ex.restart();
    exchanges.push(ex);
    expect(ex.ctx.catalogue.marketsInMemory).toEqual({ open: 0, settled: 0 });
    expect(await answers(ex)).toEqual(expected);
    expect(ex.ctx.catalogue.marketsInMemory).toEqual({ open: 0, settled: cache });
  });
});
