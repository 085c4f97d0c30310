// An engine over an in-memory trading store, for tests of what commits write: three makers' orders on one market,
// a funded taker, and SQLite's statement trace of each commit.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate } from '../../src/store/sqlite/db.js';
import { MIGRATIONS } from '../../src/store/sqlite/migrations.js';

import { inlineProjected } from './inline-projection.js';
import { Engine } from '../../src/engine/engine.js';
import type { Change } from '../../src/engine/changes.js';
import { defaultEngineParams, restingOrder, USDC } from './engine-params.js';
import type { Command, MarketRef } from '../../src/engine/types.js';
import type { JournalEntry } from '../../src/store/ports.js';

export const E18 = 10n ** 18n;
export const TOKEN = '0x00000000000000000000000000000000000000C1';
export const MARKET: MarketRef = { marketHash: '0x' + '4'.repeat(64), exchangeEventId: 'ev4', tradeable: true };
export const TAKER = '0x' + 'b1'.padStart(40, '0');
export const MAKERS = Array.from({ length: 3 }, (_, i) => '0x' + (0xa0 + i).toString(16).padStart(40, '0'));
export const testHash = (p: string, i: number) => '0x' + p + i.toString(16).padStart(63, '0');

/** Each maker posts one order of `makerSize` at 50% on outcome two. */
export function tradingFixture(makerSize = 40n * USDC) {
  let tracing = false;
  const statements: string[] = [];
  const db = new Database(':memory:', { verbose: (sql) => tracing && statements.push(String(sql)) });
  migrate(db, MIGRATIONS);
  const store = inlineProjected(db);
  const commitEntries = (entries: readonly JournalEntry[]) => store.commit(entries);
  const engine = new Engine(defaultEngineParams(TOKEN));
  let at = 1_700_000_000_000;
  const next = () => ++at;
  /** Applies one command to the engine only: the journal entry a commit would write. */
  const apply = (cmd: Command): JournalEntry => ({ cmd, changes: engine.apply(cmd).changes });
  /** The statements `run` makes the database run. */
  const traced = (run: () => void): string[] => {
    statements.length = 0;
    tracing = true;
    try {
      run();
    } finally {
      tracing = false;
    }
    return [...statements];
  };
  /** Applies and commits commands as one group; returns the statements its commit ran. */
  const commitGroup = (cmds: readonly Command[]): string[] => {
    const entries = cmds.map(apply);
    return traced(() => commitEntries(entries));
  };
  /** Applies and commits one command; returns its change records and the statements its commit ran. */
  const commit = (cmd: Command): { changes: readonly Change[]; statements: string[] } => {
    const entry = apply(cmd);
    return { changes: entry.changes, statements: traced(() => commitEntries([entry])) };
  };
  for (const a of [...MAKERS, TAKER]) commit({ kind: 'faucet', at, address: a, amount: 1000n * USDC });
  commit({
    kind: 'postOrders',
    at: next(),
    markets: [MARKET],
    orders: MAKERS.map((maker, i) =>
      restingOrder({ orderHash: testHash('a', i), marketHash: MARKET.marketHash, maker, token: TOKEN, size: makerSize, salt: String(i) }),
    ),
  });
  /** The taker's fill of `stake` on outcome one. */
  const fillCommand = (n: number, stake: bigint): Command => ({
    kind: 'fill',
    at: next(),
    fillHash: testHash('f', n),
    market: MARKET,
    taker: TAKER,
    baseToken: TOKEN,
    isTakerBettingOutcomeOne: true,
    stakeWei: stake,
    desiredOdds: 50n * E18,
    oddsSlippage: 0,
    fillSalt: String(n),
  });
  return { commit, commitGroup, apply, next, fillCommand, store, db };
}

/**
 * A migrated file database whose connection does not wait for locks, and a second connection that takes and gives
 * back its write lock: a busy database as the trading store meets it. `remove` closes both and deletes the dir.
 */
export function lockableDatabase(busyTimeoutMs = 0) {
  const dir = mkdtempSync(join(tmpdir(), 'oddex-lockable-'));
  const db = new Database(join(dir, 'oddex.sqlite'));
  db.pragma('journal_mode = WAL');
  db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  migrate(db, MIGRATIONS);
  const other = new Database(join(dir, 'oddex.sqlite'));
  return {
    db,
    hold: () => other.exec('BEGIN IMMEDIATE'),
    release: () => other.exec('ROLLBACK'),
    remove() {
      other.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
