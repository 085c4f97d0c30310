// Refund totals of the read side: kept per bettor, market and token as refunds are projected, and filled once, in
// exact bigint arithmetic, for a data dir whose refunds predate the totals table.
import Database from 'better-sqlite3';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { migrate } from './db.js';
import { MIGRATIONS } from './migrations.js';
import { TradingReadModels } from './read-models.js';
import { refundGroupsSql } from './refund-reads.js';
import type { Change, RefundPaid, TradeFacts } from '../../engine/changes.js';
import { refundGroups } from '../../render/refund-groups.js';

const MARKET = '0x' + 'aa'.repeat(32);
const TOKEN = '0x' + 'Bb'.repeat(20);
const BETTOR = '0x' + 'Cc'.repeat(20);
// Two amounts whose sum exceeds a signed 64-bit integer: an 18-decimal token's refunds of ~10 tokens each.
const BIG = 9_000_000_000_000_000_000n;
const refund = (id: number, amount: bigint, marketHash = MARKET): RefundPaid => ({
  id, marketHash, baseToken: TOKEN, bettor: BETTOR, maker: false, fillOrderHash: '0x' + id.toString(16).padStart(64, '0'), amount, createdAt: id,
});

describe('refund totals', () => {
  it('adds each projected refund to its group total and answers whether an earlier refund exists', () => {
    const db = new Database(':memory:');
    migrate(db, MIGRATIONS);
    const rm = new TradingReadModels(db);
    rm.apply([{ type: 'refundPaid', refund: refund(1, BIG) }, { type: 'refundPaid', refund: refund(2, BIG + 1n) }]);
    rm.apply([{ type: 'refundPaid', refund: refund(3, 5n, '0x' + 'dd'.repeat(32)) }]);
    expect(rm.refunds.refundTotal(BETTOR.toLowerCase(), MARKET, TOKEN.toLowerCase())).toBe(2n * BIG + 1n);
    expect(rm.refunds.refundTotal(BETTOR, '0x' + 'dd'.repeat(32), TOKEN)).toBe(5n);
    expect(rm.refunds.refundTotal(BETTOR, '0x' + 'ee'.repeat(32), TOKEN)).toBe(0n);
    expect([1, 2, 3].map((id) => rm.refunds.hasRefundBefore(MARKET, BETTOR, id))).toEqual([false, true, true]);
  });

  it('fills the totals of refunds written before the totals table existed, exactly', () => {
    const db = new Database(':memory:');
    migrate(db, MIGRATIONS.filter((m) => m.version < 7));
    const insert = db.prepare('INSERT INTO rm_refunds VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    for (const r of [refund(1, BIG), refund(2, BIG + 7n)]) insert.run(r.id, r.marketHash, r.baseToken, r.bettor, 0, r.fillOrderHash, r.amount.toString(), r.createdAt);
    migrate(db, MIGRATIONS);
    expect(new TradingReadModels(db).refunds.refundTotal(BETTOR, MARKET, TOKEN)).toBe(2n * BIG + 7n);
    // A second start does not add them again.
    expect(new TradingReadModels(db).refunds.refundTotal(BETTOR, MARKET, TOKEN)).toBe(2n * BIG + 7n);
  });
});

describe('refund group pages', () => {
  it('equal grouping and paging all of the bettor\'s refunds in memory, for every filter and direction', () => {
    const db = new Database(':memory:');
    migrate(db, MIGRATIONS);
    const rm = new TradingReadModels(db);
    const markets = ['0x' + '01'.repeat(32), '0x' + '02'.repeat(32), '0x' + '03'.repeat(32), '0x' + '04'.repeat(32)];
    const tokens = [TOKEN, '0x' + '12'.repeat(20)];
    const other = '0x' + '99'.repeat(20);
    let seed = 7;
    // Park-Miller: deterministic, and its high bits are well spread for small ranges.
    const next = (n: number) => ((seed = (seed * 48271) % 2147483647), Math.floor((seed / 2147483647) * n));
    const events: RefundPaid[] = [];
    for (let id = 1; id <= 120; id++) {
      // Times mostly rise, with ties and a clock that sometimes steps back.
      const createdAt = 1000 + id * 10 - next(4) * 60;
      events.push({
        id, marketHash: markets[next(4)]!, baseToken: tokens[next(2)]!, bettor: next(5) === 0 ? other : BETTOR, maker: next(2) === 0,
        fillOrderHash: '0x' + (id % 7).toString(16).padStart(64, '0'), amount: BigInt(1 + next(1000)), createdAt,
      });
    }
    rm.apply(events.map((refund) => ({ type: 'refundPaid' as const, refund })));
    const filters = [
      { bettor: BETTOR.toLowerCase() },
      { bettor: BETTOR, maker: true },
      { bettor: BETTOR, maker: false, marketHash: markets[1]!.toUpperCase().replace('0X', '0x') },
      { bettor: BETTOR, baseToken: tokens[1]!.toLowerCase() },
      { bettor: BETTOR, fillHash: events[3]!.fillOrderHash },
    ];
    for (const f of filters) {
      for (const ascending of [true, false]) {
        const all = refundGroups(events, f, 6, ascending);
        for (const perPage of [1, 3, 100]) {
          for (let page = 0; page * perPage <= all.length; page++) {
            const { refunds, groups } = rm.refunds.refundGroupsPage(f, ascending, { page, perPage });
            expect(groups).toBe(all.length);
            expect(refundGroups(refunds, f, 6, ascending)).toEqual(all.slice(page * perPage, (page + 1) * perPage));
          }
        }
      }
    }
  });

  it('reads a page of refund groups with the page computed once, each group then found through the bettor index', () => {
    // Joined with the bettor's refunds as the outer loop, SQLite ran the page (a window and a sort over all of the
    // bettor's refunds) again for each of them: a heavy bettor's refunds page took seconds, blocking the server.
    const db = new Database(':memory:');
    migrate(db, MIGRATIONS);
    for (const dir of ['ASC', 'DESC'] as const) {
      const plan = db.prepare(`EXPLAIN QUERY PLAN ${refundGroupsSql(dir)}`).all({ bettor: BETTOR, market: null, token: null, fill: null, maker: null, limit: 10, offset: 0 }) as { parent: number; detail: string }[];
      const outer = plan.filter((r) => r.parent === 0).map((r) => r.detail);
      expect(outer.slice(0, 3)).toEqual(['MATERIALIZE page', 'SCAN page', 'SEARCH r USING INDEX rm_refunds_by_bettor (bettor=? AND market_hash=?)']);
    }
  });
});

describe('listing totals (migration 11)', () => {
  const [A, B] = ['0x' + 'a1'.repeat(20), '0x' + 'B2'.repeat(20)];
  const fill = (i: number) => '0x' + i.toString(16).padStart(64, '0');
  /** Trade `id` of fill `f`: the maker and the taker of each fill trade once. */
  const facts = new Map<number, TradeFacts>();
  const recorded = (id: number, f: number, bettor: string, maker: boolean, marketHash = MARKET): Change => {
    const trade: TradeFacts = {
      id: String(id), fillHash: fill(f), orderHash: fill(100 + f), marketHash, exchangeEventId: 'e1', baseToken: TOKEN, bettor,
      counterparty: bettor === A ? B : A, maker, bettingOutcomeOne: maker, stake: 10n, counterStake: 10n, odds: 5n * 10n ** 19n,
      betTime: id * 1000, affiliate: TOKEN,
    };
    facts.set(id, trade);
    return { type: 'tradeRecorded', trade };
  };
  /** Fill `f` executed, as the engine records it: the fill, then each of its trades (`ids`) with the fill's status. */
  const executed = (f: number, s: 'SUCCESS' | 'FAILED', ids: number[]): Change[] => {
    const at = ids[0]! * 1000 + 1;
    return [
      { type: 'fillExecuted', fillHash: fill(f), status: s, at },
      ...ids.map((id): Change => ({ type: 'tradeStatusChanged', tradeId: String(id), status: s, at, trade: facts.get(id)! })),
    ];
  };
  const settle = (id: number): Change => ({ type: 'tradeSettled', tradeId: String(id), outcome: 1, payout: 20n, credit: 20n, fee: 0n, settleDate: 9_000_000 });

  /** Every total the listings answer from the counts equals counting the rows themselves. */
  function expectTotalsMatchRows(db: Database.Database, rm: TradingReadModels): void {
    for (const bettor of [A.toUpperCase().replace('0X', '0x'), B.toLowerCase()]) {
      for (const settled of [undefined, true, false]) {
        for (const tradeStatus of [undefined, 'PENDING', 'SUCCESS', 'FAILED'] as const) {
          for (const maker of [undefined, true, false]) {
            const rows = rm.tradesOf(bettor).filter(
              (t) => (settled === undefined || t.settled === settled) && (tradeStatus === undefined || t.status === tradeStatus) && (maker === undefined || t.maker === maker),
            );
            expect(rm.tradesPage({ bettor, settled, tradeStatus, maker, baseToken: TOKEN.toLowerCase() }, Infinity, 1).count).toBe(rows.length);
          }
        }
        if (settled === undefined) continue;
        const entries = db.prepare('SELECT COUNT(*) FROM rm_consolidated WHERE bettor = ? AND settled = ?').pluck().get(bettor, settled ? 1 : 0);
        expect(rm.entries.page({ bettor, settled }, 'betTime', true, 0, 1).count).toBe(entries);
        // Everyone's listing sums the counts of every bettor.
        const everyone = db.prepare('SELECT COUNT(*) FROM rm_consolidated WHERE settled = ? AND maker = 1').pluck().get(settled ? 1 : 0);
        expect(rm.entries.page({ settled, maker: true }, 'betTime', true, 0, 1).count).toBe(everyone);
      }
    }
  }

  it('are filled from the rows of an older data dir, then kept as trades are recorded, executed and settled', () => {
    const db = new Database(':memory:');
    migrate(db, MIGRATIONS.filter((m) => m.version < 11));
    // Today's read side writes the trade revisions of migration 12: the older rows are written with that column,
    // which is dropped again before migrating.
    db.exec('ALTER TABLE rm_trades ADD COLUMN rev INTEGER NOT NULL DEFAULT 0');
    // So does it write the listing totals (migration 13): the tables are there for it, and dropped again too.
    db.exec(`CREATE TABLE rm_trade_counts (bettor TEXT NOT NULL COLLATE NOCASE, settled INTEGER NOT NULL, status TEXT NOT NULL,
      maker INTEGER NOT NULL, base_token TEXT NOT NULL COLLATE NOCASE, affiliate TEXT NOT NULL COLLATE NOCASE, n INTEGER NOT NULL,
      PRIMARY KEY (bettor, settled, status, maker, base_token, affiliate)) WITHOUT ROWID;
      CREATE TABLE rm_consolidated_counts (bettor TEXT NOT NULL COLLATE NOCASE, settled INTEGER NOT NULL, status TEXT NOT NULL,
      maker INTEGER NOT NULL, kind TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (bettor, settled, status, maker, kind)) WITHOUT ROWID`);
    // And the order persistence of migration 14, the cancel reason of 16 and the funds statement of 17.
    db.exec(`ALTER TABLE rm_orders ADD COLUMN persistence TEXT NOT NULL DEFAULT 'LAPSE'`);
    // And the price history of migration 16.
    db.exec(MIGRATIONS.find((m) => m.version === 16)!.sql);
    // And the fees of migration 18.
    db.exec(`ALTER TABLE rm_trades ADD COLUMN fee TEXT; CREATE TABLE rm_fees (id INTEGER PRIMARY KEY, market_hash TEXT NOT NULL,
      bettor TEXT NOT NULL, fee TEXT NOT NULL, fee_account TEXT NOT NULL, affiliate TEXT NOT NULL, affiliate_fee TEXT NOT NULL,
      charged_at INTEGER NOT NULL)`);
    db.exec('ALTER TABLE rm_orders ADD COLUMN cancel_reason TEXT');
    db.exec(`CREATE TABLE rm_statement (id INTEGER PRIMARY KEY, address TEXT NOT NULL COLLATE NOCASE, kind TEXT NOT NULL, amount TEXT NOT NULL,
      balance TEXT NOT NULL, market_hash TEXT, trade_id TEXT, refund_id INTEGER, at INTEGER NOT NULL);
      CREATE TABLE rm_statement_balances (address TEXT PRIMARY KEY COLLATE NOCASE, balance TEXT NOT NULL)`);
    // And the cash outs of migration 23.
    db.exec(MIGRATIONS.find((m) => m.version === 23)!.sql);
    // And the balances of migration 24.
    db.exec(MIGRATIONS.find((m) => m.version === 24)!.sql);
    // And the restrictions of migration 25.
    db.exec(MIGRATIONS.find((m) => m.version === 25)!.sql);
    const before = new TradingReadModels(db);
    before.apply([recorded(1, 1, A, true), recorded(2, 1, B, false), recorded(3, 2, A, false), recorded(4, 2, B, true), recorded(5, 3, A, true), recorded(6, 3, B, false)]);
    before.apply([...executed(1, 'SUCCESS', [1, 2]), ...executed(2, 'FAILED', [3, 4]), settle(1), settle(2)]);
    db.exec('ALTER TABLE rm_trades DROP COLUMN rev');
    db.exec('DROP TABLE rm_trade_counts; DROP TABLE rm_consolidated_counts');
    db.exec('ALTER TABLE rm_orders DROP COLUMN persistence');
    db.exec('DROP INDEX rm_orders_active_by_odds; DROP TABLE rm_candles');
    db.exec('ALTER TABLE rm_trades DROP COLUMN fee; DROP TABLE rm_fees');
    db.exec('ALTER TABLE rm_orders DROP COLUMN cancel_reason');
    db.exec('DROP TABLE rm_statement; DROP TABLE rm_statement_balances');
    db.exec('DROP TABLE rm_cashouts; ALTER TABLE rm_fills DROP COLUMN cash_out_amount; ALTER TABLE rm_fills DROP COLUMN cash_out_fee');
    db.exec('DROP TABLE rm_balances; DROP TABLE rm_restrictions');
    migrate(db, MIGRATIONS);
    const rm = new TradingReadModels(db);
    expect(rm.tradesPage({ bettor: A }, Infinity, 1).count).toBe(3);
    expect(rm.tradesPage({ bettor: A, settled: true }, Infinity, 1).count).toBe(1);
    expect(rm.entries.page({ bettor: B, settled: false }, 'betTime', true, 0, 1).count).toBe(1);
    expectTotalsMatchRows(db, rm);
    rm.apply([...executed(3, 'SUCCESS', [5, 6]), recorded(7, 4, A, false), recorded(8, 4, B, true)]);
    rm.apply([settle(5), settle(6), ...executed(4, 'SUCCESS', [7, 8])]);
    // Recorded and failed in one commit.
    rm.apply([recorded(9, 5, A, true), recorded(10, 5, B, false), ...executed(5, 'FAILED', [9, 10])]);
    expect(rm.tradesPage({ bettor: A, tradeStatus: 'FAILED' }, Infinity, 1).count).toBe(2);
    // Recorded and settled in one commit.
    rm.apply([recorded(11, 6, A, true), settle(11)]);
    expect(rm.tradesPage({ bettor: A, settled: true, tradeStatus: 'PENDING' }, Infinity, 1).count).toBe(1);
    expect(rm.tradesPage({ bettor: A, settled: false, tradeStatus: 'PENDING' }, Infinity, 1).count).toBe(0);
    expect(rm.tradesPage({ bettor: A, settled: true, tradeStatus: 'SUCCESS' }, Infinity, 1).count).toBe(2);
    expect(rm.entries.page({ bettor: A, settled: true }, 'betTime', true, 0, 1).count).toBe(2);
    expectTotalsMatchRows(db, rm);
    // The settled page reads the (bettor, settled, id) index in order: no scan of the other state, no sort.
    const plan = db.prepare('EXPLAIN QUERY PLAN SELECT id FROM rm_trades WHERE bettor = ? AND settled = ? AND id < ? ORDER BY id DESC LIMIT 5').all(A, 1, 9) as { detail: string }[];
    expect(plan.map((r) => r.detail)).toEqual(['SEARCH rm_trades USING COVERING INDEX rm_trades_by_bettor_settled (bettor=? AND settled=? AND id<?)']);
  });
});

describe('page lookups', () => {
  it('answer as the lookups per trade do, for the page and for pairs outside it, and so do the listings', () => {
    const db = new Database(':memory:');
    migrate(db, MIGRATIONS);
    const rm = new TradingReadModels(db);
    const other = '0x' + 'dd'.repeat(32);
    const trade = (id: number, bettor: string, marketHash: string): Change => ({
      type: 'tradeRecorded',
      trade: {
        id: String(id), fillHash: '0x' + id.toString(16).padStart(64, '0'), orderHash: '0x' + 'ab'.repeat(32), marketHash, exchangeEventId: 'e1',
        baseToken: TOKEN, bettor, counterparty: TOKEN, maker: false, bettingOutcomeOne: true, stake: 1n, counterStake: 1n, odds: 1n, betTime: id, affiliate: TOKEN,
      },
    });
    rm.apply([trade(1, BETTOR, MARKET), trade(2, BETTOR, other), trade(3, TOKEN, MARKET)]);
    rm.apply([{ type: 'refundPaid', refund: refund(1, 5n) }]);
    rm.apply([{ type: 'fillAccepted', fillHash: '0x' + (1).toString(16).padStart(64, '0'), fillSalt: '1', taker: BETTOR, marketHash: MARKET, totalTakerStake: 1n, acceptedAt: 1, matches: [] }]);
    rm.apply([{ type: 'fillAttempted', fillHash: '0x' + (1).toString(16).padStart(64, '0'), txHash: '0x' + 'ee'.repeat(32), at: 7 }]);
    const trades = rm.tradesOf();
    const seen = rm.refunds.refundsSeen(trades);
    const onChain = rm.fillsOnChain(trades.map((t) => t.fillHash));
    const pairs = [[MARKET, BETTOR], [MARKET, BETTOR.toLowerCase()], [other, BETTOR], [MARKET, TOKEN], [MARKET, '0x' + '77'.repeat(20)]] as const;
    expect(pairs.map(([m, b]) => seen(m, b))).toEqual(pairs.map(([m, b]) => rm.refunds.hasRefunds(m, b)));
    expect(pairs.map(([m, b]) => seen(m, b))).toEqual([true, true, false, false, false]);
    const fills = [...trades.map((t) => t.fillHash), '0x' + '99'.repeat(32)];
    expect(fills.map(onChain)).toEqual(fills.map((f) => rm.fillOnChain(f)));
    expect(onChain(fills[0]!)).toEqual({ attempts: ['0x' + 'ee'.repeat(32)], lastAttemptAt: 7 });
    // Listings read the same answers in the statement that reads their trades.
    const listings = [rm.tradesPage({ marketHashes: [MARKET, other] }, Infinity, 10), rm.tradesOfOrders(['0x' + 'ab'.repeat(32)])];
    for (const listed of listings) {
      expect(listed.trades.map((t) => t.id).sort()).toEqual(['1', '2', '3']);
      expect(pairs.map(([m, b]) => listed.hasRefunds(m, b))).toEqual([true, true, false, false, false]);
      expect(fills.map(listed.fillOnChain)).toEqual(fills.map((f) => rm.fillOnChain(f)));
    }
  });

  it("read a consolidated page with each entry's trades of its bettor only and its refund flag, whatever the address case", () => {
    const db = new Database(':memory:');
    migrate(db, MIGRATIONS);
    const rm = new TradingReadModels(db);
    const fill = (n: number) => '0x' + n.toString(16).padStart(64, '0');
    const [QUARTER, LOW, HIGH, OTHER_MARKET] = ['0x' + 'a2'.repeat(32), '0x' + 'a3'.repeat(32), '0x' + 'a4'.repeat(32), '0x' + 'a5'.repeat(32)];
    const OTHER = '0x' + 'dd'.repeat(20);
    const recorded = new Map<number, TradeFacts>();
    const trade = (id: number, fillHash: string, bettor: string, marketHash = MARKET, parent?: string): Change => {
      const t: TradeFacts = {
        id: String(id), fillHash, orderHash: '0x' + 'ab'.repeat(32), marketHash, ...(parent ? { quarterLineParentMarketHash: parent } : {}),
        exchangeEventId: 'e1', baseToken: TOKEN, bettor, counterparty: TOKEN, maker: bettor !== BETTOR, bettingOutcomeOne: true,
        stake: BigInt(id), counterStake: 1n, odds: 1n, betTime: id * 1000, affiliate: TOKEN,
      };
      recorded.set(id, t);
      return { type: 'tradeRecorded', trade: t };
    };
    const executed = (f: number, ids: number[]): Change[] => [
      { type: 'fillExecuted', fillHash: fill(f), status: 'SUCCESS', at: 1 },
      ...ids.map((id): Change => ({ type: 'tradeStatusChanged', tradeId: String(id), status: 'SUCCESS', at: 1, trade: recorded.get(id)! })),
    ];
    // Fill 1: two trades of BETTOR and one of OTHER; fill 2: a quarter-line bet of both (legs LOW, HIGH); fill 3:
    // BETTOR alone on another market, where BETTOR was refunded; fill 4 stays pending (not listed).
    rm.apply([trade(1, fill(1), BETTOR), trade(2, fill(1), OTHER), trade(3, fill(1), BETTOR)]);
    rm.apply([trade(4, fill(2), BETTOR, LOW, QUARTER), trade(5, fill(2), OTHER, LOW, QUARTER), trade(6, fill(2), BETTOR, HIGH, QUARTER), trade(7, fill(2), OTHER, HIGH, QUARTER)]);
    rm.apply([trade(8, fill(3), BETTOR, OTHER_MARKET), trade(9, fill(4), BETTOR)]);
    rm.apply([...executed(1, [1, 2, 3]), ...executed(2, [4, 5, 6, 7]), ...executed(3, [8])]);
    rm.apply([{ type: 'refundPaid', refund: { ...refund(1, 5n, OTHER_MARKET), bettor: BETTOR.toLowerCase() } }]);
    const shape = (entries: ReturnType<typeof rm.entries.page>['entries']) =>
      entries.map((e) => [e.kind, e.marketHash, e.trades.map((t) => t.id), e.refunded]);
    const page = rm.entries.page({ bettor: BETTOR.toUpperCase().replace('0X', '0x'), settled: false }, 'betTime', true, 0, 10);
    expect(page.count).toBe(5);
    expect(shape(page.entries)).toEqual([
      ['plain', MARKET, ['1', '3'], false],
      ['parent', QUARTER, ['4', '6'], false],
      ['leg', LOW, ['4'], false],
      ['leg', HIGH, ['6'], false],
      ['plain', OTHER_MARKET, ['8'], true],
    ]);
    expect(page.entries[0]!.trades).toEqual(rm.tradesOfFill(fill(1)).filter((t) => t.bettor === BETTOR));
    // Newest first, second page of two.
    expect(shape(rm.entries.page({ bettor: BETTOR, settled: false }, 'betTime', false, 2, 2).entries)).toEqual([
      ['leg', LOW, ['4'], false],
      ['parent', QUARTER, ['4', '6'], false],
    ]);
    expect(shape(rm.entries.page({ bettor: OTHER, settled: false }, 'totalStake', true, 0, 10).entries)).toEqual([
      ['plain', MARKET, ['2'], false],
      ['leg', LOW, ['5'], false],
      ['leg', HIGH, ['7'], false],
      ['parent', QUARTER, ['5', '7'], false],
    ]);
  });
});

describe('trade versions', () => {
  const FILL = '0x' + 'f1'.repeat(32);
  const tradeOfFill = (id: number, bettor: string, fillHash = FILL): Change => ({
    type: 'tradeRecorded',
    trade: {
      id: String(id), fillHash, orderHash: '0x' + 'ab'.repeat(32), marketHash: MARKET, exchangeEventId: 'e1',
      baseToken: TOKEN, bettor, counterparty: TOKEN, maker: false, bettingOutcomeOne: true, stake: 2n, counterStake: 2n, odds: 1n, betTime: id, affiliate: TOKEN,
    },
  });

  it("change with every change to the trade's row or to its fill's chain record, and with nothing else", () => {
    const db = new Database(':memory:');
    migrate(db, MIGRATIONS);
    const rm = new TradingReadModels(db);
    rm.apply([tradeOfFill(1, BETTOR)]);
    const version = () => rm.tradeVersionsPage({ bettor: BETTOR }, Infinity, 10).versions[0]!;
    const seen = [version()];
    const step = (changes: Change[]) => {
      rm.apply(changes);
      expect(seen).not.toContain(version());
      seen.push(version());
    };
    const unchangedBy = (changes: Change[]) => {
      rm.apply(changes);
      expect(version()).toBe(seen.at(-1));
    };
    // Another bettor's trade and refunds leave it; so does a refund of its own bettor (listings compare the refund
    // flag on each use).
    unchangedBy([tradeOfFill(2, TOKEN, '0x' + 'f2'.repeat(32)), { type: 'refundPaid', refund: refund(9, 1n) }]);
    // A fill is accepted before its trades are recorded; its record with no attempt renders as no record does.
    unchangedBy([{ type: 'fillAccepted', fillHash: FILL, fillSalt: '1', taker: BETTOR, marketHash: MARKET, totalTakerStake: 2n, acceptedAt: 1, matches: [] }]);
    step([{ type: 'fillAttempted', fillHash: FILL, txHash: '0x' + 'e1'.repeat(32), at: 7 }]);
    step([{ type: 'fillAttempted', fillHash: FILL, txHash: '0x' + 'e2'.repeat(32), at: 7 }]);
    step([{ type: 'fillExecuted', fillHash: FILL, status: 'SUCCESS', at: 7, txHash: '0x' + 'e2'.repeat(32) }]);
    step([{ type: 'tradeSettled', tradeId: '1', outcome: 1, payout: 4n, credit: 3n, fee: 0n, settleDate: 7 }]);
    step([{ type: 'positionPaidOnChain', marketHash: MARKET, bettor: BETTOR, txHash: '0x' + 'e3'.repeat(32), at: 7 }]);
    // A listing's rows carry the same version as its page of versions.
    expect(rm.listedTrades([1]).versions).toEqual([seen.at(-1)]);
    expect(rm.tradesPage({ bettor: BETTOR }, Infinity, 10).versions).toEqual([seen.at(-1)]);
  });

  it('are incremented by every UPDATE of rm_trades the read side makes', () => {
    const dir = fileURLToPath(new URL('.', import.meta.url));
    const sources = readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && f !== 'migrations.ts');
    const updates = sources.flatMap((f) => [...readFileSync(join(dir, f), 'utf8').matchAll(/UPDATE rm_trades SET ([\s\S]*?) WHERE/g)].map((m) => m[1]!));
    expect(updates.length).toBeGreaterThanOrEqual(4);
    for (const assignments of updates) expect(assignments.trim()).toMatch(/\brev = rev \+ 1$/);
  });
});
