import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decodeCursor, encodeCursor, pageOfMarkets } from './market-query.js';
import type { MarketRecord } from './model.js';

const market = (gameTime: number, n: number, extra: Partial<MarketRecord> = {}) =>
  ({ marketHash: '0x' + n.toString(16).padStart(64, '0'), gameTime, type: 52, leagueId: 1, sportId: 1, exchangeEventId: 'L1', liveEnabled: false, ...extra }) as MarketRecord;

describe('active market paging', () => {
  it('round-trips cursors and refuses anything else', () => {
    const c = { gameTime: 1_780_000_000, marketHash: '0x' + 'a'.repeat(64) };
    expect(decodeCursor(encodeCursor(c))).toEqual(c);
    for (const bad of ['', 'garbage', Buffer.from('[1]').toString('base64url'), Buffer.from('[1.5,"0x' + 'a'.repeat(64) + '"]').toString('base64url'), Buffer.from('{"a":1}').toString('base64url')]) {
      expect(decodeCursor(bad)).toBeUndefined();
    }
  });

  it('any page size visits every matching market once, in order', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(20), { maxLength: 60 }), fc.integer({ min: 1, max: 9 }), fc.boolean(), (times, pageSize, evenOnly) => {
        const sorted = times.map((t, i) => market(t, i, { leagueId: i % 2 })).sort((a, b) => a.gameTime - b.gameTime || (a.marketHash < b.marketHash ? -1 : 1));
        const filter = evenOnly ? { leagueId: 0 } : {};
        const seen: MarketRecord[] = [];
        let after;
        for (;;) {
          const page = pageOfMarkets(sorted, filter, { after, pageSize, isInPlay: () => false });
          expect(page.markets.length).toBeLessThanOrEqual(pageSize);
          seen.push(...page.markets);
          if (!page.next) break;
          after = page.next;
        }
        expect(seen).toEqual(sorted.filter((m) => !evenOnly || m.leagueId === 0));
      }),
    );
  });

  it('liveOnly needs both a live-enabled market and a game in play', () => {
    const sorted = [market(1, 1, { liveEnabled: true }), market(2, 2, { liveEnabled: true, exchangeEventId: 'L2' }), market(3, 3, { exchangeEventId: 'L2' })];
    const page = pageOfMarkets(sorted, { liveOnly: true }, { pageSize: 10, isInPlay: (m) => m.exchangeEventId === 'L2' });
    expect(page.markets).toEqual([sorted[1]]);
  });
});
