// The PostgreSQL read models against the SQLite ones, on a real PostgreSQL (a throw-away cluster): the same journal
// entries of an engine workload, projected into both in the same random batches, answer every query of the port
// alike; a batch that fails (a statement refused, its backend killed) leaves the read models and the checkpoint as
// they were, and projecting again from the checkpoint gives the same read models.
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { noPostgres, postgresForSuite, postgresSuite } from '../../../test/helpers/postgres.js';
import { migrate as migrateSqlite } from '../sqlite/db.js';
import { MIGRATIONS } from '../sqlite/migrations.js';
import { ReadModelProjector } from '../sqlite/projector.js';
import type { TradingReadModels } from '../sqlite/read-models.js';
import { STORED_SORT_FIELDS, CANDLE_INTERVALS, type CandleInterval, type ListedTrades, type ProjectedEntry, type ReadModels, type TradeFilter } from '../ports.js';
import type { Trade } from '../../engine/types.js';
import type { Change } from '../../engine/changes.js';
import { PostgresProjector } from './projector.js';
import { openPool } from './pool.js';
import { PreparedListings } from './prepared-listings.js';
import { ADDRS, AFFILIATE, MARKETS, SETTLE_MARKETS, engineWorkload, random, randomBatches } from './read-models.workload.js';

/** An address as a client might send it: the same letters in upper case. */
const shout = (a: string) => '0x' + a.slice(2).toUpperCase();
const MARKET_HASHES = [...new Set([...MARKETS.map((m) => m.marketHash), ...SETTLE_MARKETS])];

/** What a listing answers, its lookups asked for every trade it lists. */
const listing = (l: ListedTrades) => ({
  trades: l.trades,
  versions: l.versions,
  refunded: l.trades.map((t) => l.hasRefunds(t.marketHash, t.bettor)),
  fills: l.trades.map((t) => l.fillOnChain(t.fillHash)),
});

/** Every query of the port, asked of both read models with the same arguments, answers alike. */
async function expectSameAnswers(sql: TradingReadModels, pgm: ReadModels, entries: readonly ProjectedEntry[]): Promise<void> {
  const trades = sql.tradesOf();
  expect(await pgm.tradesOf()).toEqual(trades);
  const fills = [...new Set(trades.map((t) => t.fillHash))];
  const orderHashes = [...new Set(trades.map((t) => t.orderHash))];
  const bettors = [...ADDRS, AFFILIATE, shout(ADDRS[1]!), '0x' + '77'.repeat(20)];

  // Per trade and per fill: a sample spread over the history (a large workload has thousands).
  const sample = <T,>(xs: readonly T[]) => xs.filter((_, i) => i % Math.ceil(xs.length / 150) === 0);
  for (const t of sample(trades)) expect(await pgm.trade(t.id)).toEqual(sql.trade(t.id));
  expect(await pgm.trade('999999')).toBeUndefined();
  for (const f of sample(fills)) {
    expect(await pgm.tradesOfFill(f)).toEqual(sql.tradesOfFill(f));
    expect(await pgm.fillOnChain(f)).toEqual(sql.fillOnChain(f));
  }
  const fillLookup = await pgm.fillsOnChain(fills);
  const sqlFillLookup = sql.fillsOnChain(fills);
  for (const f of fills) expect(fillLookup(f)).toEqual(sqlFillLookup(f));
  expect(listing(await pgm.tradesOfOrders(orderHashes.slice(0, 7)))).toEqual(listing(sql.tradesOfOrders(orderHashes.slice(0, 7))));
  const someIds = [...trades.map((t) => Number(t.id)).filter((_, i) => i % 3 === 0).reverse(), 987654];
  expect(listing(await pgm.listedTrades(someIds))).toEqual(listing(sql.listedTrades(someIds)));
  expect(await pgm.matchedVolume()).toEqual(sql.matchedVolume());

  for (const b of bettors) {
    expect(await pgm.tradesOf(b)).toEqual(sql.tradesOf(b));
    for (const settled of [true, false]) expect(await pgm.tradesOf(b, { settled })).toEqual(sql.tradesOf(b, { settled }));
    for (const m of MARKET_HASHES) expect(await pgm.tradesOfBettorIn(b, m)).toEqual(sql.tradesOfBettorIn(b, m));
    expect(await pgm.orders.openOrdersOf(b)).toEqual(sql.orders.openOrdersOf(b));
    expect(await pgm.balances.balanceOf(b)).toEqual(sql.balances.balanceOf(b));
    expect(await pgm.refunds.refundsOf(b)).toEqual(sql.refunds.refundsOf(b));
    for (const m of MARKET_HASHES) {
      expect(await pgm.refunds.hasRefunds(m, b)).toBe(sql.refunds.hasRefunds(m, b));
      expect(await pgm.refunds.refundsOfIn(b, m)).toEqual(sql.refunds.refundsOfIn(b, m));
      expect(await pgm.refunds.refundTotal(b, m, shout(ADDRS[0]!))).toBe(sql.refunds.refundTotal(b, m, shout(ADDRS[0]!)));
      for (const id of [1, 5, 20]) expect(await pgm.refunds.hasRefundBefore(m, b, id)).toBe(sql.refunds.hasRefundBefore(m, b, id));
      expect(await pgm.tradesPaidIn(m, b, '0x' + '9'.padStart(64, '0'))).toEqual(sql.tradesPaidIn(m, b, '0x' + '9'.padStart(64, '0')));
    }
    for (const maker of [undefined, true, false]) {
      for (const marketHash of [undefined, SETTLE_MARKETS[0]!]) {
        for (const ascending of [true, false]) {
          for (const page of [{ page: 0, perPage: 2 }, { page: 1, perPage: 2 }, { page: 0, perPage: 50 }]) {
            const q = { bettor: b, maker, marketHash, baseToken: shout(ADDRS[0]!) };
            const mine = await pgm.refunds.refundGroupsPage(q, ascending, page);
            const theirs = sql.refunds.refundGroupsPage(q, ascending, page);
            // SQLite lists a page's refunds in no stated order: compared as sets.
            expect(mine.groups).toBe(theirs.groups);
            expect([...mine.refunds].sort((x, y) => x.id - y.id)).toEqual([...theirs.refunds].sort((x, y) => x.id - y.id));
          }
        }
      }
    }
    for (const ascending of [true, false]) {
      for (const page of [{ page: 0, perPage: 3 }, { page: 2, perPage: 3 }, { page: 0, perPage: 1000 }]) {
        expect(await pgm.statement.page(b, ascending, page)).toEqual(sql.statement.page(b, ascending, page));
      }
    }
    for (const page of [{ page: 0, perPage: 1 }, { page: 1, perPage: 1 }, { page: 0, perPage: 10 }]) {
      expect(await pgm.positions.page(b, page)).toEqual(sql.positions.page(b, page));
    }
  }
  const seen = await pgm.refunds.refundsSeen(trades);
  const sqlSeen = sql.refunds.refundsSeen(trades);
  for (const t of trades) expect(seen(t.marketHash, t.bettor)).toBe(sqlSeen(t.marketHash, t.bettor));
  expect(await pgm.refunds.refundsUnpaidOnChain()).toEqual(sql.refunds.refundsUnpaidOnChain());

  for (const m of MARKET_HASHES) {
    expect(await pgm.orders.openOrdersIn(m)).toEqual(sql.orders.openOrdersIn(m));
    for (const interval of Object.keys(CANDLE_INTERVALS) as CandleInterval[]) {
      for (const [from, to, limit] of [[0, 4e9, 1000], [1_700_000_000, 1_700_100_000, 3]] as const) {
        expect(await pgm.history.candles(m, interval, from, to, limit)).toEqual(sql.history.candles(m, interval, from, to, limit));
      }
    }
  }
  const orderChanges = entries.flatMap((e) => e.changes.flatMap((c) => (c.type === 'orderAdded' ? [c.order.orderHash] : [])));
  for (const h of sample(orderChanges)) expect(await pgm.orders.order(h)).toEqual(sql.orders.order(h));
  const asked = [...orderChanges.slice(0, 20), '0x' + 'ee'.repeat(32)];
  expect(await pgm.orders.postedOrders(asked)).toEqual(sql.orders.postedOrders(asked));

  for (const c of sample(entries.flatMap((e) => e.changes).filter((x) => ['fillAccepted', 'positionSettled', 'tradeSettled'].includes(x.type)))) {
    if (c.type === 'fillAccepted') {
      expect(await pgm.fillUsed(c.fillSalt, '0x00')).toBe(sql.fillUsed(c.fillSalt, '0x00'));
      expect(await pgm.fillUsed('none', c.fillHash)).toBe(sql.fillUsed('none', c.fillHash));
    }
    if (c.type === 'positionSettled' || c.type === 'tradeSettled') {
      const market = c.type === 'positionSettled' ? c.marketHash : (sql.trade(c.tradeId)?.marketHash ?? '');
      expect(await pgm.tradesSettledIn(market, c.settleDate)).toEqual(sql.tradesSettledIn(market, c.settleDate));
    }
  }
  expect(await pgm.fillUsed('none', '0x00')).toBe(false);
  // Asked at once, as concurrent fills and posts ask the writer's guards: each answer is its own key's.
  const accepted = entries.flatMap((e) => e.changes.flatMap((c) => (c.type === 'fillAccepted' ? [c] : []))).slice(0, 30);
  const fillAsks: [string, string][] = accepted.flatMap((c, i) => [[c.fillSalt, '0x00'], ['none' + i, c.fillHash], ['none' + i, '0x0' + i]]);
  expect(await Promise.all(fillAsks.map(([salt, hash]) => pgm.fillUsed(salt, hash)))).toEqual(fillAsks.map(([salt, hash]) => sql.fillUsed(salt, hash)));
  const orderAsks = orderChanges.slice(0, 40).map((h, i) => [h, '0x' + i.toString(16).padStart(64, 'f')]);
  expect(await Promise.all(orderAsks.map((a) => pgm.orders.postedOrders(a)))).toEqual(orderAsks.map((a) => sql.orders.postedOrders(a)));
  expect(await pgm.reportsBehindCatalogue(() => true)).toEqual(sql.reportsBehindCatalogue(() => true));
  expect(await pgm.reportsBehindCatalogue((m) => m === SETTLE_MARKETS[0])).toEqual(sql.reportsBehindCatalogue((m) => m === SETTLE_MARKETS[0]));
  // Only the markets `among` names are read: the same reports as filtering every one.
  const among = [SETTLE_MARKETS[0]!, SETTLE_MARKETS[2]!, '0x' + 'ab'.repeat(32)];
  const amongAll = sql.reportsBehindCatalogue((m) => among.includes(m));
  expect(amongAll.length).toBeGreaterThan(0);
  expect(sql.reportsBehindCatalogue(() => true, among)).toEqual(amongAll);
  expect(await pgm.reportsBehindCatalogue(() => true, among)).toEqual(amongAll);
  expect(await pgm.reportsBehindCatalogue(() => true, [])).toEqual([]);
  const unpaid = (u: { marketHash: string; bettors: string[] }[]) => u.map((m) => ({ ...m, bettors: [...m.bettors].sort() })).sort((a, b) => (a.marketHash < b.marketHash ? -1 : 1));
  expect(unpaid(await pgm.positionsUnpaidOnChain())).toEqual(unpaid(sql.positionsUnpaidOnChain()));
  expect(await pgm.fees.feeRevenue(0, Infinity)).toEqual(sql.fees.feeRevenue(0, Infinity));
  const mid = entries[Math.floor(entries.length / 2)]?.at ?? 0;
  expect(await pgm.fees.feeRevenue(mid, mid + 3 * 86_400_000)).toEqual(sql.fees.feeRevenue(mid, mid + 3 * 86_400_000));

  await expectSameTradePages(sql, pgm, trades);
  await expectSameConsolidatedPages(sql, pgm);
}

/** GET /trades under many filters, paged through to the end, with counts. */
async function expectSameTradePages(sql: TradingReadModels, pgm: ReadModels, trades: readonly Trade[]): Promise<void> {
  const times = trades.map((t) => t.betTime);
  const filters: TradeFilter[] = [
    {},
    { bettor: shout(ADDRS[1]!) },
    { bettor: ADDRS[2]!, settled: true },
    { bettor: ADDRS[0]!, settled: false, maker: true, tradeStatus: 'SUCCESS' },
    { bettor: ADDRS[3]!, baseToken: shout(ADDRS[0]!), affiliate: shout(AFFILIATE), tradeStatus: 'PENDING' },
    { settled: false, tradeStatus: 'FAILED' },
    { marketHashes: [MARKETS[1]!.marketHash] },
    { marketHashes: [SETTLE_MARKETS[0]!, SETTLE_MARKETS[2]!], bettor: ADDRS[1]! },
    { exchangeEventId: 'e2' },
    { startMs: times[Math.floor(times.length / 3)] ?? 0, endMs: times[Math.floor((2 * times.length) / 3)] ?? 0 },
    { maker: false, affiliate: AFFILIATE },
  ];
  for (const f of filters) {
    for (const pageSize of [1, 7, 500]) {
      let below = Infinity;
      for (let pages = 0; pages < 40; pages++) {
        const mine = await pgm.tradesPage(f, below, pageSize);
        const theirs = sql.tradesPage(f, below, pageSize);
        expect({ ...listing(mine), count: mine.count, more: mine.more }).toEqual({ ...listing(theirs), count: theirs.count, more: theirs.more });
        // The page's refund flags, read with it on both stores: each trade's hasRefunds.
        const { refunded, ...versions } = await pgm.tradeVersionsPage(f, below, pageSize);
        const { refunded: sqlRefunded, ...sqlVersions } = sql.tradeVersionsPage(f, below, pageSize);
        expect(versions).toEqual(sqlVersions);
        const flags = theirs.trades.map((t) => sql.refunds.hasRefunds(t.marketHash, t.bettor));
        expect(refunded).toEqual(flags);
        expect(sqlRefunded).toEqual(flags);
        if (!theirs.more) break;
        below = Number(theirs.trades.at(-1)!.id);
      }
    }
  }
}

/** GET /trades/consolidated for every stored sort field, both directions, a few filters and offsets. */
async function expectSameConsolidatedPages(sql: TradingReadModels, pgm: ReadModels): Promise<void> {
  const queries = [
    { settled: true },
    { settled: false },
    { settled: true, bettor: shout(ADDRS[1]!) },
    { settled: false, bettor: ADDRS[2]!, maker: true },
    { settled: true, bettor: ADDRS[0]!, tradeStatus: 'SUCCESS' as const, hideQuarterLineParents: true },
    { settled: false, bettor: ADDRS[3]!, hideQuarterLineLegs: true },
    { settled: true, marketHash: MARKETS[1]!.marketHash },
    { settled: false, exchangeEventId: 'e1' },
  ];
  for (const q of queries) {
    for (const sortBy of STORED_SORT_FIELDS) {
      for (const ascending of [true, false]) {
        for (const [offset, limit] of [[0, 5], [3, 4], [0, 1000]] as const) {
          // The page's cash outs, read with it here (SQLite's listing asks fillsOnChain): each fill's cashOut.
          const { cashOutOf, ...page } = await pgm.entries.page(q, sortBy, ascending, offset, limit);
          expect(page).toEqual(sql.entries.page(q, sortBy, ascending, offset, limit));
          for (const fillHash of new Set(page.entries.flatMap((e) => e.trades.map((t) => t.fillHash)))) {
            expect(cashOutOf?.(fillHash)).toEqual(sql.fillOnChain(fillHash)?.cashOut);
          }
        }
      }
    }
  }
}

/** Read-model rows of every table, for comparing a database before and after a failed batch. */
async function tableRows(c: pg.Client): Promise<Record<string, unknown[]>> {
  const { rows } = await c.query<{ tablename: string }>("SELECT tablename FROM pg_tables WHERE tablename LIKE 'rm\\_%' ORDER BY tablename");
  const out: Record<string, unknown[]> = {};
  for (const { tablename } of rows) out[tablename] = (await c.query(`SELECT * FROM ${tablename} ORDER BY 1, 2`)).rows;
  return out;
}

describe.skipIf(noPostgres)(postgresSuite('the PostgreSQL read models'), () => {
  const server = postgresForSuite();
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => {});
  });

  async function open(): Promise<{ pool: pg.Pool; projector: PostgresProjector; admin: pg.Client }> {
    const url = await server().createDatabase();
    const pool = new pg.Pool({ connectionString: url, max: 4 });
    pool.on('error', () => {});
    cleanups.push(() => pool.end());
    const admin = new pg.Client({ connectionString: url });
    admin.on('error', () => {});
    await admin.connect();
    cleanups.push(() => admin.end());
    // A bettor's listings run prepared with generic plans, as in the exchange (storage-backends.ts).
    const listingPool = openPool(url, 2, { genericPlans: true });
    cleanups.push(() => listingPool.end());
    return { pool, projector: await PostgresProjector.open(pool, new PreparedListings(listingPool, pool)), admin };
  }

  function sqliteProjector(): ReadModelProjector {
    const db = new Database(':memory:');
    migrateSqlite(db, MIGRATIONS);
    cleanups.push(async () => db.close());
    return new ReadModelProjector(db);
  }

  it.each([
    [1, false],
    [2, false],
    [3, true],
  ])('answers every query as the SQLite read models do, projected in random batches (seed %i, wallets on chain: %s)', async (seed, onChain) => {
    const entries = engineWorkload(seed, 700, { onChain });
    const types = new Set(entries.flatMap((e) => e.changes.map((c) => c.type)));
    for (const t of ['fillExecuted', 'fillAttempted', 'tradeSettled', 'positionSettled', 'refundPaid', 'positionPaidOnChain', 'refundPaidOnChain']) {
      expect(types).toContain(t);
    }
    const { projector } = await open();
    const sqlite = sqliteProjector();
    const batches = randomBatches(entries, seed, 40);
    for (const [i, groups] of batches.entries()) {
      sqlite.project(groups);
      await projector.project(groups);
      // Half way, the answers agree already (what a later batch changes is then changed, not only inserted).
      if (i === Math.floor(batches.length / 2)) await expectSameAnswers(sqlite.readModels, projector.readModels, entries.slice(0, groups.at(-1)!.at(-1)!.seq));
    }
    expect(await projector.position()).toBe(entries.length);
    await expectSameAnswers(sqlite.readModels, projector.readModels, entries);
    // The answers compared hold something: settled, open (and failed) trades, consolidated entries, candles, statements.
    const rm = projector.readModels;
    const trades = await rm.tradesOf();
    const states = new Set(trades.map((t) => `${t.status}/${t.settled}`));
    for (const state of ['SUCCESS/true', 'SUCCESS/false', ...(onChain ? ['FAILED/false'] : [])]) expect(states).toContain(state);
    expect((await rm.entries.page({ settled: true }, 'betTime', false, 0, 10)).entries.length).toBeGreaterThan(0);
    expect((await rm.entries.page({ settled: false }, 'betTime', false, 0, 10)).entries.length).toBeGreaterThan(0);
    expect((await rm.history.candles(MARKETS[0]!.marketHash, '1m', 0, 4e9, 10)).length).toBeGreaterThan(0);
    expect((await rm.statement.page(ADDRS[1]!, true, { page: 0, perPage: 10 })).count).toBeGreaterThan(10);
    expect((await rm.positions.page(ADDRS[2]!, { page: 0, perPage: 10 })).count).toBeGreaterThan(0);
  }, 120_000);

  it('takes turns with another projector of the same database, and leaves out entries the checkpoint covers', async () => {
    const entries = engineWorkload(6, 500);
    const { pool, projector: first } = await open();
    const second = new PostgresProjector(pool);
    const sqlite = sqliteProjector();
    const rnd = random(6);
    const batches = randomBatches(entries, 6, 30);
    for (const [i, groups] of batches.entries()) {
      sqlite.project(groups);
      // Batches handed to either projector, some to both at once, some again later (already covered: nothing to do).
      const which = rnd(3);
      await Promise.all([which !== 1 ? first.project(groups) : undefined, which !== 0 ? second.project(groups) : undefined]);
      if (i > 0 && rnd(4) === 0) await (rnd(2) === 0 ? first : second).project([...batches[i - 1]!, ...groups]);
      expect(await first.position()).toBe(groups.at(-1)!.at(-1)!.seq);
    }
    await expectSameAnswers(sqlite.readModels, first.readModels, entries);
  }, 120_000);

  it('keeps wei exact beyond 64 bits and compares addresses without case, as SQLite does', async () => {
    const BIG = 2n ** 70n + 12_345n;
    const market = SETTLE_MARKETS[1]!;
    const mixed = '0x' + 'aBcD'.repeat(10);
    const token = '0x' + 'Bb'.repeat(20);
    const refund = (id: number, bettor: string, amount: bigint, baseToken = token): Change => ({
      type: 'refundPaid',
      refund: { id, marketHash: market, baseToken, bettor, maker: id % 2 === 0, fillOrderHash: '0x' + id.toString(16).padStart(64, '0'), amount, createdAt: 1_700_000_000_000 + id },
    });
    const balance = (address: string, b: bigint): Change => ({ type: 'balanceChanged', address, balance: b, escrowed: BIG * 3n, openExposure: 1n, pendingTakerStake: BIG });
    const fee = (bettor: string, amount: bigint, at: number): Change => ({
      type: 'feeCharged', marketHash: market, bettor, fee: amount, feeAccount: AFFILIATE, affiliate: shout(AFFILIATE), affiliateFee: amount / 3n, at,
    });
    const entries: ProjectedEntry[] = [
      [refund(1, mixed, BIG), balance(mixed, BIG)],
      [refund(2, mixed.toLowerCase(), BIG + 1n, token.toLowerCase()), balance(mixed.toLowerCase(), 3n * BIG), fee(mixed, BIG, 1_700_000_000_000)],
      [refund(3, shout(mixed), 7n), balance(shout(mixed), 2n ** 200n), fee(mixed, 2n ** 100n, 1_700_000_000_500)],
      [balance(mixed, 5n), fee(shout(mixed), BIG, 1_700_090_000_000)],
    ].map((changes, i) => ({ seq: i + 1, at: 1_700_000_000_000 + i * 1000, changes }));
    const { projector } = await open();
    const sqlite = sqliteProjector();
    // The first two commands in one batch (one address in two cases in it), the others one by one.
    for (const groups of [[entries.slice(0, 2)], [entries.slice(2, 3)], [entries.slice(3)]]) {
      sqlite.project(groups);
      await projector.project(groups);
    }
    const [sql, rm] = [sqlite.readModels, projector.readModels];
    for (const who of [mixed, mixed.toLowerCase(), shout(mixed)]) {
      for (const t of [token, token.toLowerCase(), shout(token)]) expect(await rm.refunds.refundTotal(who, market, t)).toBe(sql.refunds.refundTotal(who, market, t));
      expect(await rm.refunds.refundTotal(who, market, token)).toBe(2n * BIG + 8n);
      expect(await rm.balances.balanceOf(who)).toEqual(sql.balances.balanceOf(who));
      expect(await rm.statement.page(who, true, { page: 0, perPage: 100 })).toEqual(sql.statement.page(who, true, { page: 0, perPage: 100 }));
      expect(await rm.refunds.refundsOf(who)).toEqual(sql.refunds.refundsOf(who));
    }
    expect((await rm.balances.balanceOf(mixed)).escrowed).toBe(BIG * 3n);
    expect(await rm.fees.feeRevenue(0, Infinity)).toEqual(sql.fees.feeRevenue(0, Infinity));
    expect((await rm.fees.feeRevenue(0, Infinity))[0]!.fees).toBe(BIG + 2n ** 100n);
  });

  it('projects a large batch in one transaction with a few round trips, not one per command', async () => {
    // Commands 10 ms apart: the batch spans a minute, so the candles read the book a few times only.
    const entries = engineWorkload(4, 6000, { stepMs: 10 });
    expect(entries.length).toBeGreaterThan(2500);
    const { pool, projector } = await open();
    const sqlite = sqliteProjector();
    sqlite.project([entries]);
    let queries = 0;
    const connect = pool.connect.bind(pool);
    // Counts the statements the projector's client runs.
    pool.connect = (async () => {
      const client = await connect();
      const query = client.query.bind(client);
      client.query = ((...args: Parameters<typeof query>) => {
        queries++;
        return query(...args);
      }) as typeof client.query;
      return client;
    }) as typeof pool.connect;
    await projector.project([entries]);
    pool.connect = connect;
    // Reads, writes and the best odds when a minute and the group end: tens of statements, not one per command.
    expect(queries).toBeLessThan(40);
    expect(await projector.position()).toBe(entries.length);
    await expectSameAnswers(sqlite.readModels, projector.readModels, entries);
  }, 120_000);

  it('leaves rows and checkpoint as they were when a batch fails, and projects it again from the checkpoint', async () => {
    const entries = engineWorkload(5, 700);
    const opened = await open();
    const { admin } = opened;
    let projector = opened.projector;
    const sqlite = sqliteProjector();
    const batches = randomBatches(entries, 5, 60);
    const rnd = random(11);
    for (const [i, groups] of batches.entries()) {
      const fate = i === 0 ? -1 : rnd(4);
      if (fate === 0 || fate === 1) {
        const before = await tableRows(admin);
        const position = await projector.position();
        if (fate === 0) {
          // A statement refused at the end of the batch (the checkpoint's update).
          await admin.query('ALTER TABLE rm_position ADD CONSTRAINT refuse CHECK (journal_seq < 0) NOT VALID');
          await expect(projector.project(groups)).rejects.toThrow(/refuse/);
          await admin.query('ALTER TABLE rm_position DROP CONSTRAINT refuse');
        } else {
          // The backend killed while the batch waits for a table another transaction holds.
          await admin.query('BEGIN');
          await admin.query('LOCK TABLE rm_trade_counts IN ACCESS EXCLUSIVE MODE');
          const projecting = projector.project(groups);
          const failed = expect(projecting).rejects.toThrow();
          for (let tries = 0; ; tries++) {
            const { rows } = await admin.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid()");
            if (rows[0]) {
              await admin.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
              break;
            }
            if (tries > 200) throw new Error('the batch never waited for the lock');
            await new Promise((r) => setTimeout(r, 20));
          }
          await failed;
          await admin.query('ROLLBACK');
        }
        expect(await projector.position()).toBe(position);
        expect(await tableRows(admin)).toEqual(before);
        // Sometimes a projector started afresh (nothing in memory) goes on from the checkpoint.
        if (rnd(2) === 0) projector = new PostgresProjector(opened.pool);
      }
      sqlite.project(groups);
      await projector.project(groups);
    }
    expect(await projector.position()).toBe(entries.length);
    await expectSameAnswers(sqlite.readModels, projector.readModels, entries);
  }, 120_000);
});
