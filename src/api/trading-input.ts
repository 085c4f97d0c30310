// Checks shared by the trading routes: wire strings to bigint, market lookup, signatures. All failures are ExchangeErrors.
import type { Config } from '../config.js';
import type { Catalogue, MarketRecord } from '../catalogue/catalogue.js';
import { closedLeg } from '../catalogue/market-ref.js';
import { ExchangeError, invalidField, type ErrorCode } from '../protocol/errors.js';
import { ODDS_SCALE } from '../protocol/odds.js';
import { sameAddress } from '../protocol/address.js';

export const SIGNATURE_PATTERN = '^0x[0-9a-fA-F]{130}$';
const UINT256_MAX = (1n << 256n) - 1n;

/** A decimal string (already schema-checked) as bigint, rejecting zero when asked and anything past uint256. */
export function parseWei(raw: string, field: string, errorCode: ErrorCode = 'INVALID_AMOUNT', opts: { positive?: boolean } = {}): bigint {
  if (!/^\d+$/.test(raw)) throw invalidField(field, 'pattern', `${field} must be a decimal string of an unsigned integer`, errorCode);
  const value = BigInt(raw);
  if (value > UINT256_MAX) throw invalidField(field, 'maximum', `${field} does not fit in uint256`, errorCode);
  if (opts.positive && value === 0n) throw invalidField(field, 'exclusiveMinimum', `${field} must be greater than 0`, errorCode);
  return value;
}

/** A 256-bit salt given as a decimal string or 0x hex. */
export function parseSalt(raw: string, field: string): bigint {
  const ok = /^\d{1,78}$/.test(raw) || /^0x[0-9a-fA-F]{1,64}$/.test(raw);
  if (!ok || BigInt(raw) > UINT256_MAX) throw invalidField(field, 'pattern', `${field} must be a 256-bit number (decimal or 0x hex)`, 'INVALID_SALT');
  return BigInt(raw);
}

export function parseOdds(raw: string, field: string): bigint {
  const p = parseWei(raw, field, 'INVALID_ODDS');
  if (p <= 0n || p >= ODDS_SCALE) {
    throw invalidField(field, p <= 0n ? 'exclusiveMinimum' : 'exclusiveMaximum', `${field} must be strictly between 0 and 10^20`, 'INVALID_ODDS');
  }
  return p;
}

export function requireBaseToken(config: Pick<Config, 'baseTokenAddress'>, baseToken: string, field = 'baseToken'): void {
  if (!sameAddress(baseToken, config.baseTokenAddress)) {
    throw invalidField(field, 'const', `${field} must be the base token ${config.baseTokenAddress}`, 'INVALID_BASE_TOKEN');
  }
}

export function requireMarket(catalogue: Pick<Catalogue, 'getMarket'>, marketHash: string): MarketRecord {
  const market = catalogue.getMarket(marketHash.toLowerCase());
  if (!market) throw new ExchangeError('MARKET_NOT_FOUND', `no market ${marketHash}`);
  return market;
}

/** A market not enabled for in-play betting takes no orders or fills while its fixture is live. */
export function requireNotClosedInPlay(catalogue: Pick<Catalogue, 'isClosedInPlay'>, market: MarketRecord): void {
  if (catalogue.isClosedInPlay(market)) {
    throw new ExchangeError('MARKET_NOT_LIVE_ENABLED',
      `market ${market.marketHash} is not enabled for in-play betting and its fixture is live`,
    );
  }
}

export function requireSigner(recovered: string | undefined, expected: string, errorCode: ErrorCode, what: string): void {
  if (!recovered || !sameAddress(recovered, expected)) {
    throw new ExchangeError(errorCode, `${what} signature does not match ${expected}`);
  }
}

/** A parlay's book takes fills only while every leg is open (market-ref.ts closedLeg), with the leg's own refusal. */
export function requireParlayLegsOpen(catalogue: Pick<Catalogue, 'getMarket' | 'isClosedInPlay'>, market: MarketRecord): void {
  const closed = closedLeg(catalogue, market);
  if (!closed) return;
  if (!closed.market || closed.market.status !== 'ACTIVE') {
    throw new ExchangeError('MARKET_NOT_TRADEABLE', `leg ${closed.marketHash} of this parlay is ${closed.market?.status ?? 'SETTLED'}: the parlay takes no more fills`);
  }
  requireNotClosedInPlay(catalogue, closed.market);
}

/** A parlay's book takes fills only between the end of its quote window and its fill deadline. */
export function requireParlayFillable(market: MarketRecord, at: number): void {
  const p = market.parlay;
  if (!p) return;
  if (at < p.quoteWindowEndsAt) {
    throw new ExchangeError('PARLAY_QUOTE_WINDOW_OPEN', `makers quote this parlay until ${new Date(p.quoteWindowEndsAt).toISOString()}`);
  }
  if (at >= p.fillDeadline) {
    throw new ExchangeError('PARLAY_FILL_WINDOW_CLOSED', `this parlay took fills until ${new Date(p.fillDeadline).toISOString()}`);
  }
}
