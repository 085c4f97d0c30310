// What a fill costs the disk: the database pages its commits write to the WAL, per table and index, on a file
// database with a few hundred fills of history spread over many bettors (test/helpers/fill-workload.ts). Each changed
// page is a 4 KiB WAL frame to checksum and write, then to copy back at the checkpoint: these counts fail if a fill
// starts writing to another table or index, or writes many more pages than now (bench/fill-commit.ts measures the
// same over a long history).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, openTradingConnection, type Db } from './db.js';
import { inlineProjected, projectedEntries } from '../../../test/helpers/inline-projection.js';

import { FillWorkload } from '../../../test/helpers/fill-workload.js';
import { checkpointAll, totalPages, walPagesByTree } from './wal-pages.js';
import { Engine } from '../../engine/engine.js';
import { defaultEngineParams } from '../../../test/helpers/engine-params.js';
import type { JournalEntry } from '../ports.js';

const TOKEN = '0x00000000000000000000000000000000000000C1';
const GROUP = 16;
const HISTORY_GROUPS = 25;
/** Pages that show up whenever a commit grows the file or frees a page, whatever it wrote. */
const FILE_PAGES = new Set(['sqlite_schema', '(free)']);

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

function exchangeWithHistory(): { db: Db; store: ReturnType<typeof inlineProjected>; workload: FillWorkload; next: number } {
  const dir = mkdtempSync(join(tmpdir(), 'oddex-fill-pages-'));
  dirs.push(dir);
  openDatabase(dir).close();
  const db = openTradingConnection(dir);
  db.pragma('wal_autocheckpoint = 0');
  const store = inlineProjected(db);
  const workload = new FillWorkload(new Engine(defaultEngineParams(TOKEN)), TOKEN);
  store.commit(workload.funding());
  let next = 0;
  for (let g = 0; g < HISTORY_GROUPS; g++, next += GROUP) {
    store.commit(workload.orders(next, GROUP));
    store.commit(workload.fills(next, GROUP));
    store.commit(workload.confirmations(next, GROUP));
  }
  checkpointAll(db);
  return { db, store, workload, next };
}

/** The trees a commit wrote, without the file's own pages. */
const trees = (byTree: ReadonlyMap<string, number>) => [...byTree.keys()].filter((t) => !FILE_PAGES.has(t)).sort();

describe('pages written per fill', () => {
  it('writes each commit of a fill’s life to its own tables and indexes only, in a bounded number of pages', () => {
    const { db, store, workload, next } = exchangeWithHistory();
    try {
      // The writer's commit and the projector's transaction, each measured on its own.
      const measure = (entries: readonly JournalEntry[]) => {
        const last = store.store.commit(entries);
        const writer = walPagesByTree(db);
        store.projector.project([projectedEntries(entries, last)]);
        return { writer, projector: walPagesByTree(db) };
      };
      const orderPages = measure(workload.orders(next, GROUP));
      const fillPages = measure(workload.fills(next, GROUP));
      const confirmationPages = measure(workload.confirmations(next, GROUP));
      // The writer appends journal rows (each command with its change records) and nothing else.
      for (const m of [orderPages, fillPages, confirmationPages]) expect(trees(m.writer)).toEqual(['journal']);
      const orders = orderPages.projector;
      const fills = fillPages.projector;
      const confirmations = confirmationPages.projector;

      // Price history: a book change of a market traded today writes its candles' best odds (rm_candles), and the
      // best odds are read through the index of active orders by side and odds (rm_orders_active_by_odds).
      expect(trees(orders)).toEqual([
        'rm_balances',
        'rm_candles',
        'rm_orders',
        'rm_orders_active_by_odds',
        'rm_orders_by_maker',
        'rm_orders_open_by_maker',
        'rm_orders_open_by_market',
        'rm_position',
        'sqlite_autoindex_rm_orders_1',
      ]);
      expect(trees(fills)).toEqual([
        'rm_balances',
        'rm_candles',
        'rm_fills',
        'rm_orders',
        'rm_orders_active_by_odds',
        'rm_orders_open_by_maker',
        'rm_orders_open_by_market',
        'rm_position',
        'rm_trade_counts',
        'rm_trades',
        'rm_trades_by_bet_time',
        'rm_trades_by_bettor',
        'rm_trades_by_bettor_settled',
        'rm_trades_by_event',
        'rm_trades_by_fill',
        'rm_trades_by_market',
        'rm_trades_by_order',
        'sqlite_autoindex_rm_fills_1',
        'sqlite_autoindex_rm_fills_2',
      ]);
      expect(trees(confirmations)).toEqual([
        'rm_balances',
        'rm_consolidated',
        'rm_consolidated_by_bettor',
        'rm_consolidated_by_event',
        'rm_consolidated_by_market',
        'rm_consolidated_by_time',
        'rm_consolidated_counts',
        'rm_consolidated_key',
        'rm_fills',
        'rm_orders',
        'rm_orders_open_by_maker',
        'rm_orders_open_by_market',
        'rm_position',
        'rm_statement',
        'rm_statement_balances',
        'rm_statement_by_address',
        'rm_trade_counts',
        'rm_trades',
        'rm_volume',
      ]);
      // Measured on this history (the same at every run: the workload is fixed): the writer 0.625, 1.125 and 1.125
      // pages per fill (journal rows with their change records), the projector 1.5, 8.5 and 9.19 (7.94 before the
      // consolidated entries' indexes by market and by event, which keep GET /trades/consolidated?marketHash= from
      // reading every entry of the exchange; 9.5 while consolidated entries were kept in their key's order; 1.375, 8.375 and 9.375 before the open-order indexes of
      // GET /orders). Before the projector, the journal's own transaction wrote all of it: 1.69, 8.63 and 9.44. The bounds leave a tenth for
      // SQLite's page layout, not for another index.
      const perFill = (byTree: ReadonlyMap<string, number>) => totalPages(byTree) / GROUP;
      expect(perFill(orderPages.writer)).toBeLessThanOrEqual(0.7);
      expect(perFill(fillPages.writer)).toBeLessThanOrEqual(1.25);
      expect(perFill(confirmationPages.writer)).toBeLessThanOrEqual(1.25);
      expect(perFill(orders)).toBeLessThanOrEqual(1.65);
      expect(perFill(fills)).toBeLessThanOrEqual(9.4);
      expect(perFill(confirmations)).toBeLessThanOrEqual(10.1);
    } finally {
      db.close();
    }
  });
});
