// All or nothing: a projection that fails leaves neither rows, nor in-memory totals, nor a checkpoint behind; a
// commit refused because another connection held the database reports it as busy, so that the runner commits it again.
import { afterEach, describe, expect, it } from 'vitest';
import type Database from 'better-sqlite3';
import { USDC } from '../../../test/helpers/engine-params.js';
import { SqliteTradingStore } from './trading-store.js';
import { MARKET, lockableDatabase, testHash, tradingFixture } from '../../../test/helpers/trading-store-fixture.js';
import { StoreBusyError, type JournalEntry } from '../ports.js';

const journaled = async (store: SqliteTradingStore) => {
  const rows = [];
  for await (const page of store.replay()) rows.push(...page);
  return rows;
};

const volumeRow = (db: Database.Database) =>
  (db.prepare('SELECT volume FROM rm_volume WHERE market_hash = ?').pluck().get(MARKET.marketHash) as string | undefined) ?? null;

describe('a failed projection', () => {
  it('keeps no matched volume of its rolled-back fills in memory, so projecting them again counts them once', () => {
    const fx = tradingFixture();
    const accepted = fx.commit(fx.fillCommand(1, 30n * USDC)).changes;
    const confirm = fx.apply({ kind: 'confirmFill', at: fx.next(), fillHash: testHash('f', 1) });
    // Journaled by the writer; the projector's batch then meets a trade row that already exists after counting volume.
    const seq = fx.store.store.commit([confirm]);
    const confirmed = { seq, at: confirm.cmd.at, changes: confirm.changes };
    const duplicate = { seq: seq + 1, at: confirm.cmd.at, changes: accepted.filter((c) => c.type === 'tradeRecorded') };
    expect(() => fx.store.projector.project([[confirmed, duplicate]])).toThrow(/UNIQUE constraint failed: rm_trades.id/);
    expect(fx.store.readModels.matchedVolume().get(MARKET.marketHash)).toBeUndefined();
    expect(volumeRow(fx.db)).toBeNull();
    expect(fx.store.projector.position()).toBe(seq - 1);

    fx.store.projector.project([[confirmed]]);
    // The taker's 30 USDC at 50% matched 30 USDC of makers' stake: 60 USDC traded.
    expect(fx.store.readModels.matchedVolume().get(MARKET.marketHash)).toBe(60n * USDC);
    expect(volumeRow(fx.db)).toBe(String(60n * USDC));
    expect(fx.store.projector.position()).toBe(seq);
  });
});

describe('a database another connection holds', () => {
  const removals: (() => void)[] = [];
  afterEach(() => {
    for (const remove of removals.splice(0)) remove();
  });

  it('refuses the commit as busy and writes nothing; the same entries commit once the lock is free', async () => {
    const { db, hold, release, remove } = lockableDatabase();
    removals.push(remove);
    const store = new SqliteTradingStore(db);
    const entry: JournalEntry = { cmd: { kind: 'faucet', at: 1000, address: '0x' + 'a1'.padStart(40, '0'), amount: USDC }, changes: [] };

    hold();
    let refusal: unknown;
    try {
      store.commit([entry]);
    } catch (err) {
      refusal = err;
    }
    expect(refusal).toBeInstanceOf(StoreBusyError);
    expect((refusal as StoreBusyError).cause).toMatchObject({ code: 'SQLITE_BUSY' });
    release();
    expect(await journaled(store)).toEqual([]);

    expect(store.commit([entry])).toBe(1);
    expect((await journaled(store)).map((r) => r.seq)).toEqual([1]);
  });

  it('does not wait for the lock inside a commit, and leaves the connection waiting for it otherwise', () => {
    // SQLite's busy handler sleeps 1, 2, 5, 10, 15 ms...: a few ms of lock become up to 33 ms of commit. The runner
    // retries every millisecond instead.
    const { db, hold, release, remove } = lockableDatabase(5000);
    removals.push(remove);
    const store = new SqliteTradingStore(db);
    const entry: JournalEntry = { cmd: { kind: 'faucet', at: 1000, address: '0x' + 'a2'.padStart(40, '0'), amount: USDC }, changes: [] };
    hold();
    const started = performance.now();
    expect(() => store.commit([entry])).toThrow(StoreBusyError);
    expect(performance.now() - started).toBeLessThan(1000); // the connection would have waited 5,000 ms
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    release();
    expect(store.commit([entry])).toBe(1);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
  });
});
