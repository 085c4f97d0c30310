// Filtering and cursor paging of the active market list (GET /markets/active). Pure over the sorted list.
import { LINE_TYPES, type MarketRecord } from './model.js';

export interface ActiveMarketFilter {
  onlyMainLine?: boolean;
  eventId?: string;
  leagueId?: number;
  sportIds?: ReadonlySet<number>;
  /** Only markets open for in-play betting now: live-enabled and their fixture in progress. */
  liveOnly?: boolean;
  types?: ReadonlySet<number>;
  /** UNIX seconds: games starting at or after. */
  gameTime?: number;
}

/** The position after which the next page starts: the last market of the previous page. */
export interface MarketCursor {
  gameTime: number;
  marketHash: string;
}

/** Opaque to clients; base64url of the JSON pair. Stable while markets come and go. */
export const encodeCursor = (c: MarketCursor): string => Buffer.from(JSON.stringify([c.gameTime, c.marketHash])).toString('base64url');

export function decodeCursor(key: string): MarketCursor | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(key, 'base64url').toString('utf8'));
    if (!Array.isArray(value) || value.length !== 2) return undefined;
    const [gameTime, marketHash] = value as unknown[];
    if (!Number.isSafeInteger(gameTime) || typeof marketHash !== 'string' || !/^0x[0-9a-f]{64}$/.test(marketHash)) return undefined;
    return { gameTime: gameTime as number, marketHash };
  } catch {
    return undefined;
  }
}

function matches(m: MarketRecord, f: ActiveMarketFilter, isInPlay: (m: MarketRecord) => boolean): boolean {
  if (f.eventId !== undefined && m.exchangeEventId !== f.eventId) return false;
  if (f.leagueId !== undefined && m.leagueId !== f.leagueId) return false;
  if (f.sportIds && !f.sportIds.has(m.sportId)) return false;
  if (f.types && !f.types.has(m.type)) return false;
  if (f.gameTime !== undefined && m.gameTime < f.gameTime) return false;
  if (f.onlyMainLine && LINE_TYPES.has(m.type) && !m.mainLine) return false;
  if (f.liveOnly && !(m.liveEnabled && isInPlay(m))) return false;
  return true;
}

/** Index of the first market strictly after the cursor in a list sorted by (gameTime, marketHash). */
function startAfter(sorted: readonly MarketRecord[], c: MarketCursor): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const m = sorted[mid]!;
    const before = m.gameTime < c.gameTime || (m.gameTime === c.gameTime && m.marketHash <= c.marketHash);
    if (before) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function pageOfMarkets(
  sorted: readonly MarketRecord[],
  filter: ActiveMarketFilter,
  opts: { after?: MarketCursor; pageSize: number; isInPlay: (m: MarketRecord) => boolean },
): { markets: MarketRecord[]; next?: MarketCursor } {
  const out: MarketRecord[] = [];
  for (let i = opts.after ? startAfter(sorted, opts.after) : 0; i < sorted.length; i++) {
    const m = sorted[i]!;
    if (!matches(m, filter, opts.isInPlay)) continue;
    if (out.length === opts.pageSize) {
      const last = out[out.length - 1]!;
      return { markets: out, next: { gameTime: last.gameTime, marketHash: last.marketHash } };
    }
    out.push(m);
  }
  return { markets: out };
}
