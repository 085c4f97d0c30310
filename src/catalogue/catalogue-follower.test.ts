// A gateway's catalogue follows the writer's: a definitions revision that moves reads the whole catalogue again, a
// live-score revision that moves reads only the live scores, and the statuses journaled meanwhile are applied on top.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Change } from '../engine/changes.js';
import type { CatalogueRevisions } from '../store/catalogue-records.js';
import type { LiveScore } from './model.js';
import { followCatalogue } from './catalogue-follower.js';

const score = (exchangeEventId: string) => ({ exchangeEventId }) as unknown as LiveScore;

function setUp() {
  const source = {
    revisions: { definitions: 1, liveScores: 1 } as CatalogueRevisions,
    scores: [score('e1')],
    end: 10,
    catalogueRevisions: async () => ({ ...source.revisions }),
    liveScores: async () => [...source.scores],
    journalEnd: async () => source.end,
    statusesAfter: async (after: number) => ({ through: Math.max(after, source.end), changes: [] as Change[] }),
  };
  const calls: string[] = [];
  const catalogue = {
    reload: async () => void calls.push('reload'),
    replaceLiveScores: (s: readonly LiveScore[]) => void calls.push(`scores ${s.map((x) => x.exchangeEventId).join(',')}`),
    applyCommitted: () => void calls.push('statuses'),
  };
  const stop = followCatalogue(catalogue, source, { position: 10, revisions: { definitions: 1, liveScores: 1 } }, (err) => {
    throw err;
  });
  return { source, calls, stop };
}

afterEach(() => vi.useRealTimers());

describe('followCatalogue', () => {
  it('reads only the live scores when only their revision moves, and the whole catalogue when definitions move', async () => {
    vi.useFakeTimers();
    const { source, calls, stop } = setUp();
    await vi.advanceTimersByTimeAsync(250);
    expect(calls).toEqual([]);
    source.revisions.liveScores = 2;
    source.scores = [score('e1'), score('e2')];
    await vi.advanceTimersByTimeAsync(250);
    expect(calls).toEqual(['scores e1,e2']);
    await vi.advanceTimersByTimeAsync(250);
    expect(calls).toEqual(['scores e1,e2']);
    source.revisions = { definitions: 2, liveScores: 3 };
    await vi.advanceTimersByTimeAsync(250);
    expect(calls).toEqual(['scores e1,e2', 'reload']);
    await vi.advanceTimersByTimeAsync(250);
    expect(calls).toEqual(['scores e1,e2', 'reload']);
    stop();
  });
});
