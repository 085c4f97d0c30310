import { describe, expect, it } from 'vitest';
import { CoalescedLookup } from './coalesced-lookup.js';

/** A lookup whose queries the test answers by hand, recording the keys of each. */
function manualLookup(known: ReadonlySet<string>) {
  const queries: { keys: readonly string[]; answer: () => void; fail: (err: Error) => void }[] = [];
  const lookup = new CoalescedLookup<string>(
    (keys) =>
      new Promise((resolve, reject) => {
        queries.push({ keys, answer: () => resolve((k) => known.has(k)), fail: reject });
      }),
  );
  return { lookup, queries };
}

describe('CoalescedLookup', () => {
  it('sends an ask at once when no query is out, and the asks made meanwhile together in the next query', async () => {
    const { lookup, queries } = manualLookup(new Set(['a', 'c']));
    const first = lookup.find(['a']);
    expect(queries.map((q) => q.keys)).toEqual([['a']]);
    const second = lookup.find(['b', 'c']);
    const third = lookup.find(['c', 'd']);
    expect(queries).toHaveLength(1);
    queries[0]!.answer();
    expect((await first)('a')).toBe(true);
    await Promise.resolve();
    expect(queries.map((q) => q.keys)).toEqual([['a'], ['b', 'c', 'd']]);
    queries[1]!.answer();
    const [s, t] = await Promise.all([second, third]);
    expect(['b', 'c'].map(s)).toEqual([false, true]);
    expect(['c', 'd'].map(t)).toEqual([true, false]);
  });

  it('rejects only the asks of a failed query, and answers later ones', async () => {
    const { lookup, queries } = manualLookup(new Set(['x']));
    const failed = lookup.find(['x']);
    const later = lookup.find(['x']);
    queries[0]!.fail(new Error('connection lost'));
    await expect(failed).rejects.toThrow('connection lost');
    await Promise.resolve();
    expect(queries).toHaveLength(2);
    queries[1]!.answer();
    expect((await later)('x')).toBe(true);
  });
});
