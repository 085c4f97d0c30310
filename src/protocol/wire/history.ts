// GET /markets/:marketHash/history: candles of a market's traded odds (src/store/sqlite/price-history.ts).
import { Type } from '@sinclair/typebox';
import { Nullable, OddsString, WeiString } from './envelope.js';

const bestOdds = (side: string) =>
  Nullable(
    Type.String({
      pattern: '^[0-9]+$',
      description:
        `best (lowest) percentageOdds among takeable maker orders betting ${side} as of the last book change in the interval ` +
        '(the interval end once it is over), as GET /orders/odds/best reports it; null when that side had none',
    }),
  );

export const Candle = Type.Object(
  {
    time: Type.Integer({ description: 'UNIX seconds of the interval start' }),
    open: OddsString,
    high: OddsString,
    low: OddsString,
    close: OddsString,
    volume: WeiString,
    bestMakerOddsOutcomeOne: bestOdds('outcome one'),
    bestMakerOddsOutcomeTwo: bestOdds('outcome two'),
  },
  {
    description:
      'One interval with at least one trade. open/high/low/close are the odds of outcome one that takers traded at ' +
      '(10^20 = 100%): a taker betting outcome one at taker odds p trades outcome one at p, a taker betting outcome ' +
      'two at p trades it at 10^20 - p; each matched order of a fill is one trade, ordered as accepted. volume is ' +
      "both sides' matched stakes (taker plus maker) in base-token wei. Trades count when the exchange matches them.",
  },
);

export const PriceHistory = Type.Object({ candles: Type.Array(Candle) });
