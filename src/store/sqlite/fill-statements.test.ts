// What a fill costs the database: the statements its commit and its confirmation's commit run, counted through
// SQLite's statement trace. A fill writes its rows once and reads none back; its trades take the confirmed status in
// one statement whatever their number. These counts fail if per-fill work grows again.
import { describe, expect, it } from 'vitest';
import { USDC } from '../../../test/helpers/engine-params.js';
import { MAKERS, MARKET, TAKER, testHash, tradingFixture } from '../../../test/helpers/trading-store-fixture.js';

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

/** The writer's commit of the journal rows, then the projector's transaction of the read models. */
const TRANSACTIONS = { BEGIN: 2, COMMIT: 2 };

/** Each commit turns the connection's wait for a lock off and back on (trading-store.ts): per commit, not per fill. */
const LOCK_WAIT_TOGGLES = { 'PRAGMA busy_timeout ': 2 };

/**
 * Price history (price-history.ts): a commit that changes the book of a market traded today reads the best odds of
 * each side once (one indexed read each); candles are written once per commit, one row per interval.
 */
const BEST_ODDS = { 'SELECT rm_orders': 2 };
/**
 * The market's first fill: its four candles (1m, 5m, 1h, 1d) are new, so each series is pruned past its retention;
 * the newest candle of each series not read yet in this process is read once (the day's was, when the orders came).
 */
const FIRST_CANDLES = { ...BEST_ODDS, 'SELECT rm_candles': 3, 'DELETE rm_candles': 4, 'INSERT rm_candles': 4 };

function exchange() {
  const fx = tradingFixture();
  /** A fill of `stake` and its confirmation: the statements of each commit, and its trades. */
  const fill = (n: number, stake: bigint) => {
    const accepted = fx.commit(fx.fillCommand(n, stake)).statements;
    const confirmed = fx.commit({ kind: 'confirmFill', at: fx.next(), fillHash: testHash('f', n) }).statements;
    return { accepted, confirmed, trades: fx.store.readModels.tradesOfFill(testHash('f', n)) };
  };
  return { fill, store: fx.store };
}

describe('statements per fill', () => {
  it('writes a one-order fill and its confirmation without reading back, in a fixed number of statements', () => {
    const ex = exchange();
    const { accepted, confirmed, trades } = ex.fill(1, 10n * USDC);
    expect(trades.map((t) => [t.bettor, t.stake, t.status])).toEqual([
      [MAKERS[0], 10n * USDC, 'SUCCESS'],
      [TAKER, 10n * USDC, 'SUCCESS'],
    ]);
    expect(kinds(accepted)).toEqual({
      ...TRANSACTIONS,
      'INSERT journal': 1,
      'INSERT rm_fills': 1,
      'INSERT rm_trades': 2,
      // The listing totals of the maker's and the taker's trades.
      'INSERT rm_trade_counts': 2,
      // The maker's and the taker's balance records (exposure and pending stakes moved).
      'INSERT rm_balances': 2,
      'UPDATE rm_orders': 1,
      'UPDATE rm_position': 1,
      ...FIRST_CANDLES,
      ...LOCK_WAIT_TOGGLES,
    });
    expect(kinds(confirmed)).toEqual({
      ...TRANSACTIONS,
      'INSERT journal': 1,
      'UPDATE rm_fills': 1,
      'UPDATE rm_trades': 1,
      // Each bettor's totals: one trade fewer PENDING, one more SUCCESS.
      'INSERT rm_trade_counts': 4,
      'INSERT rm_volume': 1,
      'UPDATE rm_orders': 1,
      'INSERT rm_consolidated': 2,
      'INSERT rm_consolidated_counts': 2,
      // The maker's and the taker's stake on their funds statements, and the balance each leaves.
      'INSERT rm_statement': 2,
      'INSERT rm_statement_balances': 2,
      'INSERT rm_balances': 2,
      'UPDATE rm_position': 1,
      ...BEST_ODDS,
      ...LOCK_WAIT_TOGGLES,
    });
  });

  it('writes a later fill’s candles in place: one row per interval, no candle read back', () => {
    const ex = exchange();
    ex.fill(1, 10n * USDC);
    const { accepted } = ex.fill(2, 10n * USDC);
    const candles = Object.entries(kinds(accepted)).filter(([k]) => k.includes('rm_candles') || k.startsWith('SELECT'));
    expect(Object.fromEntries(candles)).toEqual({ ...BEST_ODDS, 'UPDATE rm_candles': 4 });
  });

  it('updates a fill’s trades in one statement however many orders it matched, and reads nothing back', () => {
    const ex = exchange();
    // 100 USDC at 50% takes 40 USDC from each of the first two orders (40 USDC each) and 20 from the third: six trades.
    const { accepted, confirmed, trades } = ex.fill(2, 100n * USDC);
    expect(trades).toHaveLength(6);
    expect(trades.every((t) => t.status === 'SUCCESS' && t.updatedAt === trades[0]!.updatedAt)).toBe(true);
    expect(kinds(accepted)).toEqual({
      ...TRANSACTIONS,
      'INSERT journal': 1,
      'INSERT rm_fills': 1,
      'INSERT rm_trades': 6,
      // Four bettors: the three makers, and the taker's three trades under one total.
      'INSERT rm_trade_counts': 4,
      // Their four balance records, one each however many of its trades the fill holds.
      'INSERT rm_balances': 4,
      'UPDATE rm_orders': 3,
      'UPDATE rm_position': 1,
      ...FIRST_CANDLES,
      ...LOCK_WAIT_TOGGLES,
    });
    const confirm = kinds(confirmed);
    expect(confirm['UPDATE rm_trades']).toBe(1);
    expect(confirm['INSERT rm_trade_counts']).toBe(8);
    expect(Object.keys(confirm).filter((k) => k.startsWith('SELECT'))).toEqual(['SELECT rm_orders']);
    expect(confirm['SELECT rm_orders']).toBe(BEST_ODDS['SELECT rm_orders']);
    // One consolidated entry per bettor of the fill: three makers and the taker.
    expect(confirm['INSERT rm_consolidated']).toBe(4);
    expect(ex.store.readModels.matchedVolume().get(MARKET.marketHash)).toBe(200n * USDC);
  });
});
