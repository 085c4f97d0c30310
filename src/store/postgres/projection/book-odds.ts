// The best maker odds of a market's sides at a moment, read from rm_orders as the projector has written them so
// far: the lowest odds of an ACTIVE, unexpired order with more than dust left (what the engine calls its best
// odds). The candles note them (price-history.ts). Many markets are read in one query.
import { hasFillableSpace } from '../../../engine/order-space.js';
import type { Queryable } from '../trade-state.js';

/** A market whose best odds are due at `at` (ms). */
export interface OddsAsk {
  market: string;
  at: number;
}

/** Best maker odds on outcome one and on outcome two (decimal text), or null for an empty side. */
export type BestOdds = readonly [string | null, string | null];

/** Candidates read per side at first: the best unexpired one nearly always has space. */
const FIRST_READ = 16;

interface SideRow {
  ask: number;
  one: boolean;
  total_bet_size: string;
  fill_amount: string;
  pending_fill_amount: string;
  percentage_odds: string;
}

const SIDE = `SELECT total_bet_size, fill_amount, pending_fill_amount, percentage_odds FROM rm_orders o
  WHERE o.market_hash = a.market AND o.maker_outcome_one = q.one AND o.status = 'ACTIVE'
    AND o.api_expiry * 1000 > a.at AND o.expiry * 1000 > a.at AND o.total_bet_size - o.fill_amount - o.pending_fill_amount > 0
  ORDER BY o.percentage_odds`;

const takeable = (r: SideRow) =>
  hasFillableSpace({
    totalBetSize: BigInt(r.total_bet_size),
    fillAmount: BigInt(r.fill_amount),
    pendingFillAmount: BigInt(r.pending_fill_amount),
    percentageOdds: BigInt(r.percentage_odds),
  });

async function readSides(db: Queryable, asks: readonly OddsAsk[], sides: readonly [number, boolean][], limit: number | null): Promise<SideRow[]> {
  const { rows } = await db.query<SideRow>(
    `SELECT q.ask, q.one, c.* FROM unnest($1::int[], $2::boolean[]) AS q(ask, one)
       JOIN unnest($3::text[], $4::bigint[]) WITH ORDINALITY AS a(market, at, n) ON a.n = q.ask + 1
       CROSS JOIN LATERAL (${SIDE} LIMIT $5) c
     ORDER BY q.ask, q.one, c.percentage_odds`,
    [sides.map((s) => s[0]), sides.map((s) => s[1]), asks.map((a) => a.market), asks.map((a) => a.at), limit],
  );
  return rows;
}

/** The best maker odds of each asked market at its time. */
export async function bestMakerOdds(db: Queryable, asks: readonly OddsAsk[]): Promise<BestOdds[]> {
  const found: (string | null)[][] = asks.map(() => [null, null]);
  const allSides: [number, boolean][] = asks.flatMap((_, i): [number, boolean][] => [[i, true], [i, false]]);
  const firstRows = await readSides(db, asks, allSides, FIRST_READ);
  const seen = new Map<string, number>();
  const settledSides = new Set<string>();
  for (const r of firstRows) {
    const key = `${r.ask}|${r.one}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
    if (settledSides.has(key) || !takeable(r)) continue;
    settledSides.add(key);
    found[r.ask]![r.one ? 0 : 1] = r.percentage_odds;
  }
  // A side whose first candidates were all dust: the rest of it, in order.
  const rest = allSides.filter(([ask, one]) => !settledSides.has(`${ask}|${one}`) && seen.get(`${ask}|${one}`) === FIRST_READ);
  if (rest.length > 0) {
    for (const r of await readSides(db, asks, rest, null)) {
      const key = `${r.ask}|${r.one}`;
      if (settledSides.has(key) || !takeable(r)) continue;
      settledSides.add(key);
      found[r.ask]![r.one ? 0 : 1] = r.percentage_odds;
    }
  }
  return found.map((f) => [f[0] ?? null, f[1] ?? null] as const);
}
