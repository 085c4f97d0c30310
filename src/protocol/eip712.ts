// The EIP-712 payloads Oddex verifies (spec 4.17, 4.18; DECISIONS.md "Signing"): fill v2, the three cancels and
// the parlay request.
// The type definitions are exported so clients and tests sign exactly what the server hashes.
import { bytesToHex } from './hex.js';
import { recoverSignerOfHexDigest } from './signatures.js';
import { hashTypedData, type TypeDefinitions, type TypedDataDomain } from './typed-data.js';

export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';
export const ZERO_BYTES32 = '0x0000000000000000000000000000000000000000000000000000000000000000';
/** The literal the fill message carries in its human-readable fields. */
export const NOT_APPLICABLE = 'N/A';

export const fillTypes = {
  Details: [
    { name: 'action', type: 'string' },
    { name: 'market', type: 'string' },
    { name: 'betting', type: 'string' },
    { name: 'stake', type: 'string' },
    { name: 'worstOdds', type: 'string' },
    { name: 'worstReturning', type: 'string' },
    { name: 'fills', type: 'FillObject' },
  ],
  FillObject: [
    { name: 'stakeWei', type: 'string' },
    { name: 'marketHash', type: 'string' },
    { name: 'baseToken', type: 'string' },
    { name: 'desiredOdds', type: 'string' },
    { name: 'oddsSlippage', type: 'uint256' },
    { name: 'isTakerBettingOutcomeOne', type: 'bool' },
    { name: 'fillSalt', type: 'uint256' },
    { name: 'beneficiary', type: 'address' },
    { name: 'beneficiaryType', type: 'uint8' },
    { name: 'cashOutTarget', type: 'bytes32' },
  ],
} as const;

export const cancelV2Types = {
  Details: [
    { name: 'orderHashes', type: 'string[]' },
    { name: 'timestamp', type: 'uint256' },
  ],
} as const;

export const cancelEventTypes = {
  Details: [
    { name: 'exchangeEventId', type: 'string' },
    { name: 'timestamp', type: 'uint256' },
  ],
} as const;

export const cancelAllTypes = {
  Details: [{ name: 'timestamp', type: 'uint256' }],
} as const;

/** POST /parlays/request: the bettor signs the legs, token, size and time (domain as the cancels', with a salt). */
export const parlayRequestTypes = {
  Details: [
    { name: 'legs', type: 'Leg[]' },
    { name: 'baseToken', type: 'address' },
    { name: 'requestSize', type: 'uint256' },
    { name: 'timestamp', type: 'uint256' },
  ],
  Leg: [
    { name: 'marketHash', type: 'bytes32' },
    { name: 'bettingOutcomeOne', type: 'bool' },
  ],
} as const;

export interface ParlayLeg {
  marketHash: string;
  bettingOutcomeOne: boolean;
}

export interface ParlayRequestMessage {
  legs: readonly ParlayLeg[];
  baseToken: string;
  requestSize: bigint;
  timestamp: bigint;
}

export interface FillDomain {
  name: string;
  version: string;
  chainId: number;
  verifyingContract: string;
}

/** Cancel domains carry the request's 32-byte salt and no verifyingContract. */
export interface CancelDomain {
  name: string;
  version: string;
  chainId: number;
  salt: string;
}

/** The request values of POST /orders/fill/v2 that the taker signs. */
export interface FillRequest {
  market: string;
  baseToken: string;
  stakeWei: bigint;
  desiredOdds: bigint;
  oddsSlippage: number;
  isTakerBettingOutcomeOne: boolean;
  fillSalt: bigint;
  /** A cash out signs the market hash here (`0x` + 64 hex); absent, an ordinary fill signs the zero hash. */
  cashOutTarget?: string;
}

/**
 * The signed fill message. Amounts travel as decimal strings (typed `string` in FillObject), so the
 * canonical decimal of the bigint is signed; market and baseToken are signed exactly as sent.
 */
export function fillMessage(fill: FillRequest) {
  return {
    action: NOT_APPLICABLE,
    market: fill.market,
    betting: NOT_APPLICABLE,
    stake: NOT_APPLICABLE,
    worstOdds: NOT_APPLICABLE,
    worstReturning: NOT_APPLICABLE,
    fills: {
      stakeWei: fill.stakeWei.toString(),
      marketHash: fill.market,
      baseToken: fill.baseToken,
      desiredOdds: fill.desiredOdds.toString(),
      oddsSlippage: BigInt(fill.oddsSlippage),
      isTakerBettingOutcomeOne: fill.isTakerBettingOutcomeOne,
      fillSalt: fill.fillSalt,
      beneficiary: ZERO_ADDRESS,
      beneficiaryType: 0,
      cashOutTarget: fill.cashOutTarget ?? ZERO_BYTES32,
    },
  };
}

const digestHex = (domain: TypedDataDomain, types: TypeDefinitions, message: unknown): string =>
  '0x' + bytesToHex(hashTypedData(domain, types, 'Details', message));

/** The EIP-712 digest a taker signs for POST /orders/fill/v2, `0x` + 64 hex. */
export const fillDigest = (domain: FillDomain, fill: FillRequest): string => digestHex(domain, fillTypes, fillMessage(fill));

export const cancelV2Digest = (domain: CancelDomain, message: { orderHashes: readonly string[]; timestamp: bigint }): string =>
  digestHex(domain, cancelV2Types, message);

export const cancelEventDigest = (domain: CancelDomain, message: { exchangeEventId: string; timestamp: bigint }): string =>
  digestHex(domain, cancelEventTypes, message);

export const cancelAllDigest = (domain: CancelDomain, message: { timestamp: bigint }): string =>
  digestHex(domain, cancelAllTypes, message);

export const parlayRequestDigest = (domain: CancelDomain, message: ParlayRequestMessage): string =>
  digestHex(domain, parlayRequestTypes, message);

/** The checksummed signer of an EIP-712 `digest` (`0x` + 64 hex), or undefined for a bad digest or signature. */
export const recoverTypedDataSigner = (digest: string, signature: string): string | undefined =>
  recoverSignerOfHexDigest(digest, signature);
