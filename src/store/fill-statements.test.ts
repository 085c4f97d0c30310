// What a fill costs the database: the statements its commit and its confirmation's commit run, counted through
// SQLite's statement trace. A fill writes its rows once and reads none back; its trades take the confirmed status in
// one statement whatever their number. These counts fail if per-fill work grows again.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate } from './db.js';
import { MIGRATIONS } from './migrations.js';
import { SqliteTradingStore } from './trading-store.js';
import { Engine } from '../engine/engine.js';
import { defaultEngineParams, USDC } from '../engine/test-params.js';
import type { Command, MarketRef } from '../engine/types.js';

const E18 = 10n ** 18n;
const TOKEN = '0x00000000000000000000000000000000000000C1';
const MARKET: MarketRef = { marketHash: '0x' + '4'.repeat(64), exchangeEventId: 'ev4', tradeable: true };
const TAKER = '0x' + 'b1'.padStart(40, '0');
const makers = Array.from({ length: 3 }, (_, i) => '0x' + (0xa0 + i).toString(16).padStart(40, '0'));
const hash = (p: string, i: number) => '0x' + p + i.toString(16).padStart(63, '0');

/** Statement kinds: the verb and the table ("UPDATE rm_trades"), counted. */
function kinds(statements: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const sql of statements) {
    const m = /^\s*(INSERT OR REPLACE INTO|INSERT INTO|UPDATE|DELETE FROM|SELECT .*? FROM|BEGIN|COMMIT)\s*(\w*)/is.exec(sql);
    const verb = m ? m[1]!.split(/\s+/)[0]!.toUpperCase() : sql.slice(0, 20);
    const key = m && m[2] ? `${verb} ${m[2]}` : verb;
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}

function exchange() {
  let tracing = false;
  const statements: string[] = [];
  const db = new Database(':memory:', { verbose: (sql) => tracing && statements.push(String(sql)) });
  migrate(db, MIGRATIONS);
  const store = new SqliteTradingStore(db);
  const engine = new Engine(defaultEngineParams(TOKEN));
  let at = 1_700_000_000_000;
  /** Applies and commits one command; returns the statements its commit ran. */
  const commit = (cmd: Command): string[] => {
    const applied = engine.apply(cmd);
    statements.length = 0;
    tracing = true;
    store.commit([{ cmd, changes: applied.changes }]);
    tracing = false;
    return [...statements];
  };
  for (const a of [...makers, TAKER]) commit({ kind: 'faucet', at, address: a, amount: 1000n * USDC });
  commit({
    kind: 'postOrders',
    at: ++at,
    markets: [MARKET],
    orders: makers.map((maker, i) => ({
      orderHash: hash('a', i),
      marketHash: MARKET.marketHash,
      maker,
      baseToken: TOKEN,
      executor: TOKEN,
      totalBetSize: 40n * USDC,
      percentageOdds: 50n * E18,
      expiry: 2_000_000_000,
      apiExpiry: 2_000_000_000,
      salt: String(i),
      isMakerBettingOutcomeOne: false,
      signature: '0x',
    })),
  });
  /** A fill of `stake` and its confirmation: the statements of each commit, and its trades. */
  const fill = (n: number, stake: bigint) => {
    const fillHash = hash('f', n);
    const accepted = commit({
      kind: 'fill',
      at: ++at,
      fillHash,
      market: MARKET,
      taker: TAKER,
      baseToken: TOKEN,
      isTakerBettingOutcomeOne: true,
      stakeWei: stake,
      desiredOdds: 50n * E18,
      oddsSlippage: 0,
      fillSalt: String(n),
    });
    const confirmed = commit({ kind: 'confirmFill', at: ++at, fillHash });
    return { accepted, confirmed, trades: store.readModels.tradesOfFill(fillHash) };
  };
  return { fill, store };
}

describe('statements per fill', () => {
  it('writes a one-order fill and its confirmation without reading back, in a fixed number of statements', () => {
    const ex = exchange();
    const { accepted, confirmed, trades } = ex.fill(1, 10n * USDC);
    expect(trades.map((t) => [t.bettor, t.stake, t.status])).toEqual([
      [makers[0], 10n * USDC, 'SUCCESS'],
      [TAKER, 10n * USDC, 'SUCCESS'],
    ]);
    expect(kinds(accepted)).toEqual({
      BEGIN: 1,
      'INSERT journal': 1,
      'INSERT rm_fills': 1,
      'INSERT rm_trades': 2,
      'UPDATE rm_orders': 1,
      'UPDATE rm_position': 1,
      COMMIT: 1,
    });
    expect(kinds(confirmed)).toEqual({
      BEGIN: 1,
      'INSERT journal': 1,
      'UPDATE rm_fills': 1,
      'UPDATE rm_trades': 1,
      'INSERT rm_volume': 1,
      'UPDATE rm_orders': 1,
      'INSERT rm_consolidated': 2,
      'UPDATE rm_position': 1,
      COMMIT: 1,
    });
  });

  it('updates a fill’s trades in one statement however many orders it matched, and reads nothing back', () => {
    const ex = exchange();
    // 100 USDC at 50% takes 40 USDC from each of the first two orders (40 USDC each) and 20 from the third: six trades.
    const { accepted, confirmed, trades } = ex.fill(2, 100n * USDC);
    expect(trades).toHaveLength(6);
    expect(trades.every((t) => t.status === 'SUCCESS' && t.updatedAt === trades[0]!.updatedAt)).toBe(true);
    expect(kinds(accepted)).toEqual({
      BEGIN: 1,
      'INSERT journal': 1,
      'INSERT rm_fills': 1,
      'INSERT rm_trades': 6,
      'UPDATE rm_orders': 3,
      'UPDATE rm_position': 1,
      COMMIT: 1,
    });
    const confirm = kinds(confirmed);
    expect(confirm['UPDATE rm_trades']).toBe(1);
    expect(Object.keys(confirm).filter((k) => k.startsWith('SELECT'))).toEqual([]);
    // One consolidated entry per bettor of the fill: three makers and the taker.
    expect(confirm['INSERT rm_consolidated']).toBe(4);
    expect(ex.store.readModels.matchedVolume().get(MARKET.marketHash)).toBe(200n * USDC);
  });
});
