import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { EventBus } from '../events.js';
import { chooseMainLine, outcomeOneOdds, trackMainLines, type LineMarket, type MainLineCatalogue } from './main-line.js';
import { emitAny } from '../../test/helpers/bus.js';

const P = (percent: number) => BigInt(percent) * 10n ** 18n;
const market = (n: number, line: number, extra: Partial<LineMarket> = {}): LineMarket => ({
  marketHash: '0x' + n.toString(16).padStart(64, '0'),
  exchangeEventId: 'E1',
  type: 2,
  status: 'ACTIVE',
  line,
  mainLine: false,
  isQuarterLineMarket: false,
  ...extra,
});

describe('outcomeOneOdds', () => {
  it('uses the outcome-one side, else the complement of the outcome-two side', () => {
    expect(outcomeOneOdds({ one: P(40), two: P(70) })).toBe(P(40));
    expect(outcomeOneOdds({ two: P(70) })).toBe(P(30));
    expect(outcomeOneOdds({})).toBeUndefined();
    expect(outcomeOneOdds(undefined)).toBeUndefined();
  });
});

describe('chooseMainLine', () => {
  it('picks the line closest to 50%, keeps the current one on a tie, else the lower line', () => {
    const a = market(1, 1.5);
    const b = market(2, 2.5, { mainLine: true });
    const c = market(3, 3.5);
    const odds = new Map([
      [a.marketHash, P(60)],
      [b.marketHash, P(45)],
      [c.marketHash, P(52)],
    ]);
    expect(chooseMainLine([a, b, c], (h) => odds.get(h))).toBe(c);
    odds.set(c.marketHash, P(55));
    expect(chooseMainLine([a, b, c], (h) => odds.get(h))).toBe(b); // 45 vs 55: tie, current stays
    odds.set(a.marketHash, P(45));
    expect(chooseMainLine([c, a], (h) => odds.get(h))).toBe(a); // tie without the current: lower line
    expect(chooseMainLine([a, c], () => undefined)).toBeUndefined();
  });

  it('keeps the current main line while its book is empty (a maker replacing its quotes)', () => {
    const a = market(1, 1.5);
    const b = market(2, 2.5, { mainLine: true });
    expect(chooseMainLine([a, b], (h) => (h === a.marketHash ? P(50) : undefined))).toBe(b);
    expect(chooseMainLine([a, b], () => undefined)).toBe(b);
  });
});

describe('trackMainLines', () => {
  function fakeCatalogue(markets: LineMarket[]) {
    const calls: string[] = [];
    const cat: MainLineCatalogue = {
      getMarket: (h) => markets.find((m) => m.marketHash === h),
      openMarketsOfEvent: (e) => markets.filter((m) => m.exchangeEventId === e),
      setMainLine: (h) => {
        calls.push(h);
        for (const m of markets) if (m.type === markets.find((x) => x.marketHash === h)!.type) m.mainLine = m.marketHash === h;
        return Promise.resolve();
      },
    };
    return { cat, calls };
  }
  const entry = (m: LineMarket, one: boolean, percent: number | null) => ({
    marketHash: m.marketHash,
    isMakerBettingOutcomeOne: one,
    percentageOdds: percent === null ? null : P(percent).toString(),
  });

  it('moves the main line of the group when best odds change, ignoring other types, quarter lines and inactive markets', () => {
    const main = market(1, 2.5, { mainLine: true });
    const alt = market(2, 3.5);
    const quarter = market(3, 2.75, { isQuarterLineMarket: true });
    const suspended = market(4, 1.5, { status: 'SUSPENDED' });
    const moneyline = market(5, 0, { type: 52 });
    const { cat, calls } = fakeCatalogue([main, alt, quarter, suspended, moneyline]);
    const bus = new EventBus();
    const stop = trackMainLines(bus, cat, pino({ level: 'silent' }));

    emitAny(bus, 'bestOdds', [entry(main, true, 30), entry(alt, true, 55), entry(quarter, true, 50), entry(suspended, true, 50), entry(moneyline, true, 50)]);
    expect(calls).toEqual([alt.marketHash]);
    // No change when the main line is already the closest.
    emitAny(bus, 'bestOdds', [entry(alt, true, 51)]);
    expect(calls).toEqual([alt.marketHash]);
    // The outcome-one side empties: the outcome-two side (complement) decides.
    emitAny(bus, 'bestOdds', [entry(alt, true, null), entry(alt, false, 20), entry(main, true, 48)]);
    expect(calls).toEqual([alt.marketHash, main.marketHash]);
    stop();
    emitAny(bus, 'bestOdds', [entry(alt, true, 50)]);
    expect(calls).toHaveLength(2);
  });
});
