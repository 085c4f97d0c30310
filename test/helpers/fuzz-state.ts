// Everything a refused request must leave untouched, read through the API, from the engine and from SQLite,
// so a test can assert "no state changed" with one toEqual.
import { createHash } from 'node:crypto';
import type { TestExchange } from './server.js';

export interface Watched {
  /** Makers whose open orders are listed. */
  makers: readonly string[];
  /** Addresses whose balances are read. */
  addresses: readonly string[];
}

/** Row count and a SHA-256 over every row of every table: any write shows up. */
function databaseFingerprint(ex: TestExchange): Record<string, { rows: number; sha256: string }> {
  const db = ex.ctx.db!;
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[];
  const out: Record<string, { rows: number; sha256: string }> = {};
  for (const { name } of tables) {
    const hash = createHash('sha256');
    let rows = 0;
    for (const row of db.prepare(`SELECT * FROM "${name}"`).iterate()) {
      hash.update(JSON.stringify(row, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)));
      rows++;
    }
    out[name] = { rows, sha256: hash.digest('hex') };
  }
  return out;
}

function engineCounts(ex: TestExchange) {
  return ex.ctx.trading.engine.stats();
}

async function activeMarketCount(ex: TestExchange): Promise<number> {
  let count = 0;
  let key = '';
  for (;;) {
    const res = await ex.get(`/markets/active?pageSize=100${key ? `&paginationKey=${encodeURIComponent(key)}` : ''}`);
    if (res.status !== 200) throw new Error(`/markets/active: ${res.status}`);
    count += res.body.data.markets.length;
    key = res.body.data.nextKey;
    if (!key) return count;
  }
}

const countJournal = (ex: TestExchange) => (ex.ctx.db!.prepare('SELECT COUNT(*) AS n FROM journal').get() as { n: number }).n;

export async function stateSnapshot(ex: TestExchange, watched: Watched) {
  const orders: Record<string, unknown> = {};
  for (const maker of watched.makers) orders[maker] = (await ex.get(`/orders?maker=${maker}&perPage=1000`)).body;
  const balances: Record<string, unknown> = {};
  for (const address of watched.addresses) balances[address] = (await ex.get(`/balances/${address}`)).body;
  const trades = (await ex.get('/trades?startDate=0&pageSize=300')).body;
  return {
    orders,
    balances,
    trades,
    activeMarkets: await activeMarketCount(ex),
    engine: engineCounts(ex),
    journalRows: countJournal(ex),
    database: databaseFingerprint(ex),
  };
}

export type StateSnapshot = Awaited<ReturnType<typeof stateSnapshot>>;
