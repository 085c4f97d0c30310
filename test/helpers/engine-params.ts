// Engine parameters of the project's defaults, for engine tests and benches that build an engine directly.
import type { EngineParams, NewOrder } from '../../src/engine/types.js';

export const USDC = 1_000_000n;

export const defaultEngineParams = (baseToken: string): EngineParams => ({
  oddsLadderStepSize: 125,
  makerMinimum: 10n * USDC,
  takerMinimum: USDC,
  cancelMaxSkewSeconds: 60,
  baseToken,
  affiliate: '0x0000000000000000000000000000000000000000',
  restrictionWindowMs: 3_600_000,
  restrictionThreshold: 3,
  restrictionMs: 900_000,
});

/** An unsigned order at 50% on outcome two, expiring far ahead: what tests and benches that skip signing post. */
export const restingOrder = (o: { orderHash: string; marketHash: string; maker: string; token: string; size: bigint; salt: string }): NewOrder => ({
  orderHash: o.orderHash,
  marketHash: o.marketHash,
  maker: o.maker,
  baseToken: o.token,
  executor: o.token,
  totalBetSize: o.size,
  percentageOdds: 50n * 10n ** 18n,
  expiry: 2_000_000_000,
  apiExpiry: 2_000_000_000,
  salt: o.salt,
  isMakerBettingOutcomeOne: false,
  signature: '0x',
});
