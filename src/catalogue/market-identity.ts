// What makes a market unique (its hash), how its outcomes are labelled, and how quarter lines split into legs.
import { keccakText } from '../protocol/keccak.js';
import { LINE_TYPES, MarketType, SPREAD_TYPES, type MarketRecord, type Selection } from './model.js';

export interface MarketIdentity {
  exchangeEventId: string;
  type: number;
  line?: number;
  selection?: Selection;
}

/** Canonical text of a line: no "-0", no trailing zeros ("-0.75", "2", "2.5"). */
export const formatLine = (line: number): string => String(line === 0 ? 0 : line);

/**
 * 0x + 64 lower-hex keccak256 of the identity. Deterministic, so the same market gets the same hash on
 * every exchange and after every restart.
 */
export function marketHashOf(id: MarketIdentity): string {
  const parts = ['oddex-market-v1', id.exchangeEventId, String(id.type), id.line === undefined ? '' : formatLine(id.line), id.selection ?? ''];
  return keccakText(parts.join('|'));
}

/** Lines move in quarter steps; anything else is not a line the exchange offers. */
export const isQuarterStep = (line: number): boolean => Number.isFinite(line) && Number.isInteger(line * 4);

/** x.25 and x.75 lines (handicap or total) are quarter lines, settled as two legs. */
export const isQuarterLine = (line: number): boolean => isQuarterStep(line) && !Number.isInteger(line * 2);

/** The two legs of a quarter line, [lower, higher]: the nearest whole and half lines (-0.75 -> [-1, -0.5]). */
export function legLines(line: number): [number, number] {
  const lower = Math.floor(line * 2) / 2;
  const higher = Math.ceil(line * 2) / 2;
  return [lower === 0 ? 0 : lower, higher === 0 ? 0 : higher];
}

const signed = (n: number): string => (n > 0 ? `+${formatLine(n)}` : formatLine(n));

type Labels = Pick<MarketRecord, 'outcomeOneName' | 'outcomeTwoName' | 'outcomeVoidName'>;

/** Outcome labels; spread and total labels embed the line. */
export function outcomeLabels(
  m: { type: number; line?: number; selection?: Selection },
  teamOneName: string,
  teamTwoName: string,
): Labels {
  if (SPREAD_TYPES.has(m.type)) {
    const line = m.line ?? 0;
    return {
      outcomeOneName: `${teamOneName} ${signed(line)}`,
      outcomeTwoName: `${teamTwoName} ${signed(-line)}`,
      outcomeVoidName: 'NO_GAME_OR_EVEN',
    };
  }
  if (m.type === MarketType.TOTALS) {
    const line = formatLine(m.line ?? 0);
    return { outcomeOneName: `Over ${line}`, outcomeTwoName: `Under ${line}`, outcomeVoidName: 'NO_GAME_OR_EVEN' };
  }
  if (m.type === MarketType.ONE_X_TWO) {
    if (m.selection === 'draw') return { outcomeOneName: 'Draw', outcomeTwoName: 'No Draw', outcomeVoidName: 'NO_CONTEST' };
    const team = m.selection === 'teamTwo' ? teamTwoName : teamOneName;
    return { outcomeOneName: team, outcomeTwoName: `Not ${team}`, outcomeVoidName: 'NO_CONTEST' };
  }
  return { outcomeOneName: teamOneName, outcomeTwoName: teamTwoName, outcomeVoidName: 'NO_CONTEST' };
}

export const hasLine = (type: number): boolean => LINE_TYPES.has(type);
