// Fixtures and live scores kept live: each publication of fixtures:global and fixtures:live_scores carries whole
// records (REST objects), so the page applies them over a REST snapshot instead of reading again.
import { useEffect, useRef, useState } from 'react';
import type { OddexRealtime } from '@oddex/sdk';
import { exchange } from '../api/exchange';
import type { Fixture, LiveScore } from '../api/types';
import { follow } from './connection';

export interface LiveRecords<T> {
  /** By id; undefined until the first snapshot is in. */
  records: Map<string, T> | undefined;
  error: unknown;
}

/**
 * Records of a global channel kept by id, as the typed client keeps an order book: once subscribed (and again
 * whenever publications may have been missed) read the REST snapshot, apply the publications that arrived while it
 * was read in their order, then each publication as it comes. `idOf` gives undefined for records the page does not
 * show (the channels are global). `key` names what is followed; undefined follows nothing yet.
 */
function useLiveRecords<T>(
  realtime: OddexRealtime,
  channel: string,
  key: string | undefined,
  read: () => Promise<T[]>,
  idOf: (record: T) => string | undefined,
): LiveRecords<T> {
  const [state, setState] = useState<{ key?: string; records?: Map<string, T>; error?: unknown }>({});
  // Read at snapshot and publication time: they may close over anything `key` describes.
  const latest = useRef({ read, idOf });
  useEffect(() => {
    latest.current = { read, idOf };
  });
  useEffect(() => {
    if (key === undefined) return;
    let records = new Map<string, T>();
    let loaded = false;
    let held: T[][] | undefined; // publications that arrive while a snapshot is read
    let reads = 0;
    let stopped = false;
    const apply = (items: T[]) => {
      for (const r of items) {
        const id = latest.current.idOf(r);
        if (id !== undefined) records.set(id, r);
      }
    };
    const show = (error?: unknown) => {
      if (!stopped) setState({ key, records: loaded ? new Map(records) : undefined, error });
    };
    const snapshot = () => {
      const read = ++reads;
      const pending: T[][] = (held = []);
      latest.current.read().then(
        (list) => {
          if (stopped || read !== reads) return;
          records = new Map();
          apply(list);
          pending.forEach(apply);
          held = undefined;
          loaded = true;
          show();
        },
        (error: unknown) => {
          if (stopped || read !== reads) return;
          pending.forEach(apply);
          held = undefined;
          show(error);
        },
      );
    };
    const leave = follow<T | T[]>(realtime, channel, {
      onPublication(data) {
        const items = Array.isArray(data) ? data : [data];
        if (held) held.push(items);
        else {
          apply(items);
          if (loaded) show();
        }
      },
      onSubscribed(ctx) {
        if (!ctx.recovered) snapshot();
      },
    });
    return () => {
      stopped = true;
      leave();
    };
  }, [realtime, channel, key]);
  return state.key === key ? { records: state.records, error: state.error } : { records: undefined, error: undefined };
}

/** Statuses GET /fixture/active lists (spec section 3); a fixture published with another one has left the list. */
const ACTIVE_STATUSES: ReadonlySet<number> = new Set([1, 2, 6, 7, 8, 9]);
/** Fixture status 2, in progress (src/catalogue/model.ts): the one that puts a fixture in play. */
export const IN_PLAY = 2;

/** A league's active fixtures by event id, with their status kept live. */
export function useLeagueFixtures(realtime: OddexRealtime, leagueId: number | undefined): LiveRecords<Fixture> {
  return useLiveRecords<Fixture>(
    realtime,
    'fixtures:global',
    leagueId === undefined ? undefined : String(leagueId),
    () => exchange.fixtures(leagueId!),
    (f) => (f.leagueId === leagueId ? f.eventId : undefined),
  );
}

export const isActiveFixture = (f: Fixture) => ACTIVE_STATUSES.has(f.status);

/** Live scores of these fixtures by event id (a fixture without one is absent). */
export function useLiveScores(realtime: OddexRealtime, eventIds: readonly string[]): Map<string, LiveScore> {
  const shown = new Set(eventIds);
  const scores = useLiveRecords<LiveScore>(
    realtime,
    'fixtures:live_scores',
    eventIds.length > 0 ? [...shown].sort().join(',') : undefined,
    () => exchange.liveScores([...shown]),
    (s) => (shown.has(s.exchangeEventId) ? s.exchangeEventId : undefined),
  );
  return scores.records ?? NONE;
}
const NONE: Map<string, LiveScore> = new Map();
