// Odds and amounts as people read them: units instead of wei, decimal or implied odds instead of 10^20 scale.
import { formatUnits, parseUnits } from 'viem';

export const ODDS_SCALE = 10n ** 20n;
/** The base token of the demo and default deployments has 6 decimals (DECISIONS.md). */
export const TOKEN_DECIMALS = 6;
export const TOKEN_SYMBOL = 'USDC';

export type OddsFormat = 'decimal' | 'implied';

/** Wei to a readable amount, at most 2 decimals shown unless more are needed to be exact to the cent. */
export function units(wei: bigint | string): string {
  const text = formatUnits(BigInt(wei), TOKEN_DECIMALS);
  const [whole, frac = ''] = text.split('.');
  const shown = frac.length <= 2 ? frac.padEnd(2, '0') : frac;
  return `${whole}.${shown}`;
}

export const money = (wei: bigint | string) => `${units(wei)} ${TOKEN_SYMBOL}`;

/** A user's amount in units to wei; undefined when it is not a positive decimal number. */
export function parseAmount(text: string): bigint | undefined {
  const t = text.trim();
  if (!/^\d+(\.\d{1,6})?$/.test(t)) return undefined;
  const wei = parseUnits(t, TOKEN_DECIMALS);
  return wei > 0n ? wei : undefined;
}

/** 10^20-scaled probability to decimal odds (1 / p), two decimals. */
export function decimalOdds(p: bigint | string): string {
  const v = BigInt(p);
  if (v <= 0n) return '-';
  const hundredths = (ODDS_SCALE * 100n + v / 2n) / v; // rounded
  return `${hundredths / 100n}.${(hundredths % 100n).toString().padStart(2, '0')}`;
}

/** 10^20-scaled probability as a percentage with up to 3 decimals (the ladder step is 0.125%). */
export function impliedPercent(p: bigint | string): string {
  const thousandths = (BigInt(p) * 100_000n) / ODDS_SCALE;
  const whole = thousandths / 1000n;
  const frac = (thousandths % 1000n).toString().padStart(3, '0').replace(/0+$/, '');
  return frac ? `${whole}.${frac}%` : `${whole}%`;
}

export const showOdds = (p: bigint | string, format: OddsFormat) => (format === 'decimal' ? decimalOdds(p) : impliedPercent(p));

/** The taker's odds facing a maker at `makerOdds`. */
export const takerOdds = (makerOdds: bigint | string) => ODDS_SCALE - BigInt(makerOdds);

/** A percentage typed by a user ("52.5") to 10^20 scale, rounded down to the ladder; undefined if out of (0, 100). */
export function percentToLadder(text: string, ladderStepSize: number): bigint | undefined {
  const t = text.trim();
  if (!/^\d+(\.\d+)?$/.test(t)) return undefined;
  const p = parseUnits(t, 18); // percent * 10^18 = probability * 10^20
  const step = BigInt(ladderStepSize) * 10n ** 15n;
  const onLadder = (p / step) * step;
  return onLadder > 0n && onLadder < ODDS_SCALE ? onLadder : undefined;
}

/** What a taker's stake returns in total (stake included) when it wins at taker odds `p`. */
export const payoutFor = (stake: bigint, p: bigint) => (p > 0n ? (stake * ODDS_SCALE) / p : 0n);

export const shortHash = (h: string) => `${h.slice(0, 8)}…${h.slice(-6)}`;

export function gameTimeText(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toLocaleString(undefined, { weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });
}

export const MARKET_TYPE_NAMES: Record<number, string> = {
  1: '1X2',
  52: 'Moneyline',
  226: 'Moneyline incl. overtime',
  3: 'Handicap',
  342: 'Handicap',
  2: 'Totals (over/under)',
};
export const marketTypeName = (type: number) => MARKET_TYPE_NAMES[type] ?? `Type ${type}`;

/** A trade's bet time: UNIX seconds on GET /trades, ISO 8601 elsewhere. */
export const betDate = (betTime: number | string) => new Date(typeof betTime === 'number' ? betTime * 1000 : betTime);

/** The market a trade was placed on: a quarter line's two leg trades name their legs, and the line in quarterLineParentMarketHash. */
export const placedOn = (t: { marketHash: string; quarterLineParentMarketHash?: string | undefined }) => t.quarterLineParentMarketHash ?? t.marketHash;
