// The consolidated listing paged in SQL (rm_consolidated) gives exactly what grouping the matching trades in memory
// gives: same entries, same order (ties in creation order), same counts, for every SQL sort field, both directions,
// the filters and several pages, over a random history with quarter-line bets, pending fills, refunds and settled
// markets.
import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { Engine } from '../engine/engine.js';
import { DomainError } from '../engine/errors.js';
import { defaultEngineParams, USDC } from '../../test/helpers/engine-params.js';
import type { Command, MarketRef } from '../engine/types.js';
import { migrate } from '../store/sqlite/db.js';
import { MIGRATIONS } from '../store/sqlite/migrations.js';
import { inlineProjected } from '../../test/helpers/inline-projection.js';
import { sortableAmount } from '../store/sqlite/consolidated-entries.js';
import { ENTRY_SORT_COLUMNS } from '../store/consolidated-figures.js';
import { listConsolidated, listConsolidatedInMemory, type ConsolidatedContext, type ConsolidatedFilter } from './consolidated.js';
import { asyncQueries } from '../store/async-queries.js';
import type { StoredSortField } from '../store/ports.js';

const E18 = 10n ** 18n;
const ADDRS = [1, 2, 3, 4].map((i) => '0x' + i.toString(16).padStart(40, '0'));
const hash = (prefix: string, i: number) => '0x' + prefix + i.toString(16).padStart(63, '0');
const MARKETS: MarketRef[] = [
  { marketHash: hash('a', 1), exchangeEventId: 'e1', tradeable: true },
  { marketHash: hash('a', 2), exchangeEventId: 'e2', tradeable: true, legs: [hash('a', 3), hash('a', 4)] },
  { marketHash: hash('a', 5), exchangeEventId: 'e2', tradeable: true },
];

/** A small deterministic generator, so a failure reproduces. */
function random(seed: number) {
  let s = seed;
  return (n: number) => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return Math.floor(s / 65536) % n; // the high bits: the low ones of this generator repeat with a short period
  };
}

describe('consolidated entries paged in SQL', () => {
  it('sorts amounts as text exactly like the numbers', () => {
    const xs = [-(10n ** 30n), -5n, -1n, 0n, 1n, 9n, 10n, 10n ** 25n, 10n ** 39n - 1n];
    const sorted = [...xs].map(sortableAmount).sort();
    expect(sorted).toEqual(xs.map(sortableAmount));
  });

  it('lists the same entries as grouping the trades in memory', async () => {
    const db = new Database(':memory:');
    migrate(db, MIGRATIONS);
    const store = inlineProjected(db);
    const engine = new Engine(defaultEngineParams(ADDRS[0]!));
    const next = random(7);
    let at = 1_000_000;
    const apply = (cmd: Command) => {
      try {
        const r = engine.apply(cmd);
        store.commit([{ cmd, changes: r.changes }]);
        return r;
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        return undefined;
      }
    };
    for (const address of ADDRS) apply({ kind: 'faucet', at, address, amount: 100_000n * USDC });
    for (let i = 0; i < 200; i++) {
      at += 1000 + next(3) * 500;
      const market = MARKETS[next(MARKETS.length)]!;
      const maker = ADDRS[next(4)]!;
      const one = next(2) === 0;
      apply({
        kind: 'postOrders',
        at,
        markets: MARKETS,
        orders: [
          {
            orderHash: hash('b', i),
            marketHash: market.marketHash,
            maker,
            baseToken: ADDRS[0]!,
            executor: ADDRS[0]!,
            totalBetSize: BigInt(10 + next(50)) * USDC,
            percentageOdds: BigInt(30 + next(20)) * E18,
            expiry: 2_000_000_000,
            apiExpiry: 2_000_000_000,
            salt: String(i),
            isMakerBettingOutcomeOne: one,
            signature: '0x',
          },
        ],
      });
      const taker = ADDRS[next(4)]!;
      const fillHash = hash('c', i);
      const filled = apply({
        kind: 'fill',
        at,
        fillHash,
        market,
        taker,
        baseToken: ADDRS[0]!,
        isTakerBettingOutcomeOne: !one,
        stakeWei: BigInt(1 + next(30)) * USDC + BigInt(next(7)),
        desiredOdds: 60n * E18,
        oddsSlippage: 50,
        fillSalt: String(i),
      });
      // Most fills execute, some stay pending.
      if (filled && next(10) < 8) apply({ kind: 'confirmFill', at, fillHash });
      if (i === 150) apply({ kind: 'reportMarkets', at, reports: [{ marketHash: hash('a', 3), outcome: 1 }] });
      if (i === 199) apply({ kind: 'reportMarkets', at, reports: [{ marketHash: hash('a', 1), outcome: 2 }, { marketHash: hash('a', 4), outcome: 0 }, { marketHash: hash('a', 2), outcome: 1 }] });
    }
    const rm = asyncQueries(store.readModels);
    const cc: ConsolidatedContext = { decimals: 6, chainVersion: 'v', market: () => undefined };
    const filters: ConsolidatedFilter[] = [];
    for (const settled of [true, false]) {
      filters.push({ settled }, { settled, bettor: ADDRS[1]!.toUpperCase().replace('0X', '0x') }, { settled, bettor: ADDRS[2]!, maker: true });
      filters.push({ settled, marketHash: hash('a', 2) }, { settled, exchangeEventId: 'e2', hideQuarterLineParents: true });
      filters.push({ settled, hideQuarterLineLegs: true, tradeStatus: 'SUCCESS' });
      // Totals a bettor's listing answers from rm_consolidated_counts.
      filters.push({ settled, bettor: ADDRS[3]!, hideQuarterLineParents: true }, { settled, bettor: ADDRS[0]!, tradeStatus: 'SUCCESS', hideQuarterLineLegs: true });
    }
    let compared = 0;
    let refunded = 0;
    for (const f of filters) {
      // Every sort field on the plain listings; a few on the filtered ones (the filters do not depend on the sort).
      const sorts = Object.keys(f).length === 1 ? (Object.keys(ENTRY_SORT_COLUMNS) as StoredSortField[]) : (['betTime', 'netReturn'] as const);
      for (const sortBy of sorts) {
        for (const ascending of [true, false]) {
          for (const page of [{ page: 0, perPage: 100 }, { page: 3, perPage: 13 }]) {
            const sql = await listConsolidated(rm, cc, f, { sortBy, ascending }, page);
            const memory = await listConsolidatedInMemory(rm, cc, f, { sortBy, ascending }, page);
            // Byte for byte, as the reply is written: same fields in the same order.
            expect(JSON.stringify(sql)).toBe(JSON.stringify(memory));
            compared += sql.trades.length;
            refunded += sql.trades.filter((t) => t.marketHasRefunds === true).length;
          }
        }
      }
    }
    // The history really had settled, unsettled, failed and quarter-line entries to compare.
    expect(compared).toBeGreaterThan(1000);
    expect(refunded).toBeGreaterThan(0);
    const all = await listConsolidated(rm, cc, { settled: true }, { sortBy: 'betTime', ascending: true }, { page: 0, perPage: 100 });
    expect(all.count).toBeGreaterThan(100);
    expect(all.trades.some((t) => t.isQuarterLineParent === true)).toBe(true);
    expect((await listConsolidated(rm, cc, { settled: false }, { sortBy: 'betTime', ascending: true }, { page: 0, perPage: 100 })).count).toBeGreaterThan(50);
    db.close();
  });
});
