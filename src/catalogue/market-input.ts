// An operator's request for new markets, and the checks of its type, line and selection before anything is created.
import { ExchangeError, invalidField } from '../protocol/errors.js';
import { MARKET_TYPES, MarketType, type MarketTypeCode, type Selection } from './model.js';
import { hasLine, isQuarterLine, isQuarterStep, legLines } from './market-identity.js';

export interface NewMarket {
  exchangeEventId: string;
  type: number;
  line?: number;
  /** 1X2 only; without it all three binary markets are created. */
  selection?: Selection;
  liveEnabled?: boolean;
  mainLine?: boolean;
}

/** Totals below this make no sense (a quarter total's lower leg must reach it too). */
const MIN_TOTAL_LINE = 0.5;
const MAX_ABS_LINE = 1000;

/** Checks type, line and selection together; returns the type. */
export function checkMarketType(input: NewMarket): MarketTypeCode {
  const { type, line } = input;
  if (!MARKET_TYPES.includes(type)) throw new ExchangeError('INVALID_MARKET_TYPE', `type must be one of ${MARKET_TYPES.join(', ')}`);
  if (input.selection !== undefined && type !== MarketType.ONE_X_TWO) {
    throw invalidField('selection', 'dependentSchemas', 'selection is only for 1X2 (type 1) markets');
  }
  if (!hasLine(type)) {
    if (line !== undefined) throw new ExchangeError('INVALID_LINE', `line is only for spread and total markets, not type ${type}`);
    if (input.mainLine) throw invalidField('mainLine', 'dependentSchemas', `mainLine is only for spread and total markets, not type ${type}`);
    return type as MarketTypeCode;
  }
  if (line === undefined) throw new ExchangeError('INVALID_LINE', `line is required for type ${type}`);
  if (!isQuarterStep(line) || Math.abs(line) > MAX_ABS_LINE) {
    throw new ExchangeError('INVALID_LINE', `line must be a multiple of 0.25 within ±${MAX_ABS_LINE}`);
  }
  const lowest = isQuarterLine(line) ? legLines(line)[0] : line;
  if (type === MarketType.TOTALS && lowest < MIN_TOTAL_LINE) {
    throw new ExchangeError('INVALID_LINE', `a total line (and a quarter total's lower leg) must be at least ${MIN_TOTAL_LINE}`);
  }
  return type as MarketTypeCode;
}

/** -0 stored as 0. */
export const normalizeLine = (line: number) => (line === 0 ? 0 : line);
