// Engine parameters of the project's defaults, for engine tests and benches that build an engine directly.
import type { EngineParams } from './types.js';

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
