// Account listings (a bettor's trades, consolidated entries) are a few statement shapes run very often, and each
// shape's best plan is the same whatever the bettor. PostgreSQL planned them on every run: for the consolidated page (a
// join of CTEs over tables with many indexes) planning cost more than running it (at 1M trades, 1.3-4 ms of planning
// against 0.2-1.5 ms of execution, bench/history.ts). Here each shape is a named statement prepared once per
// connection, on connections that keep its generic plan (plan_cache_mode=force_generic_plan), so it is planned once.
// Only statements led by an equality on an indexed column, whatever its value, belong here (a bettor's rows, with no
// range, list or event filter beside it): their generic plan is the plan every value gets. Shapes are bounded; past the bound a statement runs unprepared elsewhere.
import { createHash } from 'node:crypto';
import type pg from 'pg';

/** What runs one statement with its values (a pool, or prepared listings). */
export interface StatementRunner {
  query<R extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<pg.QueryResult<R>>;
}

/** A flag as SQL text (a statement's shape, not one of its values). */
export const sqlBoolean = (value: boolean): string => (value ? 'true' : 'false');

const TRADE_STATUSES = { PENDING: "'PENDING'", SUCCESS: "'SUCCESS'", FAILED: "'FAILED'" } as const;
/** A trade status as SQL text, from the fixed set only. */
export const sqlTradeStatus = (status: keyof typeof TRADE_STATUSES): string => TRADE_STATUSES[status];

/** At most this many statement shapes are prepared (each holds a plan on every connection of the pool). */
const MAX_SHAPES = 256;

export class PreparedListings implements StatementRunner {
  /** Statement text to its name, for the shapes prepared so far. */
  private readonly names = new Map<string, string>();

  /**
   * `pool`'s connections keep generic plans (openPool's `genericPlans`); `unprepared` runs what is past the bound of
   * shapes.
   */
  constructor(
    private readonly pool: pg.Pool,
    private readonly unprepared: StatementRunner,
    private readonly maxShapes = MAX_SHAPES,
  ) {}

  query<R extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<pg.QueryResult<R>> {
    let name = this.names.get(text);
    if (name === undefined) {
      if (this.names.size >= this.maxShapes) return this.unprepared.query<R>(text, values);
      name = `listing_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
      this.names.set(text, name);
    }
    return this.pool.query<R>({ name, text, values });
  }

  /** How many statement shapes are prepared. */
  get shapes(): number {
    return this.names.size;
  }
}
