// How a final score decides each market type's outcome (1 outcome one, 2 outcome two, 0 void). Pure.
import { MarketType, SPREAD_TYPES, type Outcome, type Selection } from './model.js';

export interface SettleableMarket {
  type: number;
  line?: number;
  selection?: Selection;
}

const compare = (a: number, b: number): Outcome => (a > b ? 1 : a < b ? 2 : 0);

/**
 * The outcome of a (non-quarter) market for a final score. Scores are what the operator reports: for type 226
 * they include overtime, for 52 they are the regulation score, so a draw voids a 52 market.
 */
export function outcomeFor(market: SettleableMarket, teamOneScore: number, teamTwoScore: number): Outcome {
  if (SPREAD_TYPES.has(market.type)) return compare(teamOneScore + lineOf(market), teamTwoScore);
  switch (market.type) {
    case MarketType.TOTALS:
      return compare(teamOneScore + teamTwoScore, lineOf(market));
    case MarketType.MONEYLINE:
    case MarketType.MONEYLINE_INCL_OVERTIME:
      return compare(teamOneScore, teamTwoScore);
    case MarketType.ONE_X_TWO: {
      const result = compare(teamOneScore, teamTwoScore);
      const happened = { teamOne: result === 1, draw: result === 0, teamTwo: result === 2 }[market.selection ?? 'teamOne'];
      return happened ? 1 : 2;
    }
  }
  throw new Error(`no settlement rule for market type ${market.type}`);
}

function lineOf(market: SettleableMarket): number {
  if (market.line === undefined) throw new Error(`market type ${market.type} needs a line`);
  return market.line;
}

export { quarterLineOutcome } from '../engine/quarter-line.js';
