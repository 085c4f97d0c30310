// In-process cost of the two history reads, piece by piece, on a data dir bench/history.ts built: the parts of
// GET /trades?bettor= (total, page, rendering, JSON; and the ids and revisions a listing reads when it keeps the page's
// items rendered) and of GET /trades/consolidated?settled=true (SQL page with
// the entries' trades, rendering), timed over many repetitions, plus the page query's plan.
//
//   npx tsx bench/history.ts build 100000 100000 /tmp/dir   # once: leaves the data dir behind
//   npx tsx bench/trade-reads.ts /tmp/dir [bettor]
import { openDatabase } from '../src/store/sqlite/db.js';
import { ReadModelProjector } from '../src/store/sqlite/projector.js';
import { tradeToRest, type TradeRenderContext } from '../src/render/orders-and-trades.js';
import { listConsolidated, type ConsolidatedContext } from '../src/render/consolidated.js';
import { fmt, percentiles } from './lib.js';
import { asyncQueries } from '../src/store/async-queries.js';

const dir = process.argv[2];
if (!dir) throw new Error('usage: trade-reads.ts <dataDir> [bettor]');
// The busiest taker of bench/history.ts.
const bettor = process.argv[3] ?? '0xb' + '0'.repeat(39);

const db = openDatabase(dir);
const rm = new ReadModelProjector(db).readModels;
const render: TradeRenderContext = {
  decimals: 6,
  chainVersion: 'v2',
  marketType: () => undefined,
  hasRefunds: (m, b) => rm.refunds.hasRefunds(m, b),
  fillOnChain: (f) => rm.fillOnChain(f),
};
const consolidated: ConsolidatedContext = { decimals: 6, chainVersion: 'v2', market: () => undefined };
const port = asyncQueries(rm);

async function time(label: string, fn: () => unknown, n = 300): Promise<void> {
  for (let i = 0; i < 20; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    samples.push(performance.now() - t);
  }
  const p = percentiles(samples);
  console.log(`  ${label.padEnd(44)} p50 ${fmt(p.p50)}  p99 ${fmt(p.p99)}`);
}

const filter = { bettor };
const page = rm.tradesPage(filter, Infinity, 100);
console.log(`bettor ${bettor}: ${page.count} trades`);
console.log('GET /trades?bettor= pieces:');
await time('COUNT(*) of the bettor\'s trades (before)', () => db.prepare('SELECT COUNT(*) FROM rm_trades WHERE bettor = ?').pluck().get(bettor));
await time('total from rm_trade_counts', () => db.prepare('SELECT SUM(n) FROM rm_trade_counts WHERE bettor = ?').pluck().get(bettor));
await time('101-row page', () => db.prepare('SELECT * FROM rm_trades WHERE bettor = ? AND id < ? ORDER BY id DESC LIMIT ?').all(bettor, Number.MAX_SAFE_INTEGER, 101));
await time('tradesPage (total, 101 rows, lookups)', () => rm.tradesPage(filter, Infinity, 100));
await time('tradesPage, settled=true', () => rm.tradesPage({ bettor, settled: true }, Infinity, 100));
// What GET /trades reads when it keeps the page's items rendered (a bettor polling the same page).
await time('tradeVersionsPage (total, ids and revisions)', () => rm.tradeVersionsPage(filter, Infinity, 100));
const pageRender = (listed: typeof page): TradeRenderContext => ({ ...render, hasRefunds: listed.hasRefunds, fillOnChain: listed.fillOnChain });
await time('render 100 trades, two lookups per trade', () => page.trades.map((t) => tradeToRest(t, render)));
await time('render 100 trades, lookups read in page', () => {
  const rc = pageRender(page);
  return page.trades.map((t) => tradeToRest(t, rc));
});
const rendered = { status: 'success', data: { trades: page.trades.map((t) => tradeToRest(t, render)), nextKey: 'x', pageSize: 100, count: page.count } };
await time('JSON.stringify of the reply', () => JSON.stringify(rendered));
await time('all of it', () => {
  const p = rm.tradesPage(filter, Infinity, 100);
  const rc = pageRender(p);
  return JSON.stringify(p.trades.map((t) => tradeToRest(t, rc)));
});

console.log('GET /trades/consolidated?settled=true pieces:');
await time('entries.page (count + 50 entries with trades)', () => rm.entries.page({ bettor, settled: true }, 'betTime', false, 0, 50));
await time('listConsolidated, 50 entries', () => listConsolidated(port, consolidated, { bettor, settled: true }, { sortBy: 'betTime', ascending: false }, { page: 0, perPage: 50 }));
await time('listConsolidated, unsettled', () => listConsolidated(port, consolidated, { bettor, settled: false }, { sortBy: 'betTime', ascending: false }, { page: 0, perPage: 50 }));

console.log('plans:');
for (const [label, sql, args] of [
  ['page by bettor', 'SELECT * FROM rm_trades WHERE bettor = ? AND id < ? ORDER BY id DESC LIMIT ?', [bettor, Number.MAX_SAFE_INTEGER, 101]],
  ['page by bettor, settled', 'SELECT * FROM rm_trades WHERE bettor = ? AND settled = ? AND id < ? ORDER BY id DESC LIMIT ?', [bettor, 1, Number.MAX_SAFE_INTEGER, 101]],
] as const) {
  const plan = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[];
  console.log(`  ${label}: ${plan.map((r) => r.detail).join('; ')}`);
}
db.close();
