// Parlay requests signed by viem, with the domain name, chain id and token a client reads from /metadata.
import type { Hex, PrivateKeyAccount } from 'viem';
import type { TestExchange } from './server.js';
import { randomHex32 } from './wallets.js';

export interface Leg {
  marketHash: string;
  bettingOutcomeOne: boolean;
}

export interface ParlaySigning {
  chainId: number;
  domainName: string;
  baseToken: string;
}

/** What a client needs from /metadata to sign a parlay request. */
export async function parlaySigning(ex: TestExchange): Promise<ParlaySigning> {
  const meta = (await ex.get('/metadata')).body.data;
  const [token] = Object.values(meta.addresses[String(meta.chainId)] as Record<string, string>);
  return { chainId: meta.chainId, domainName: meta.domainNames.parlayRequest, baseToken: token! };
}

export const PARLAY_TYPES = {
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

/** The body of POST /parlays/request, signed by `bettor` (fields can be overridden after signing to forge one). */
export async function signedParlayRequest(
  bettor: PrivateKeyAccount,
  s: ParlaySigning,
  r: { legs: Leg[]; requestSize: bigint; timestamp?: number; salt?: Hex; baseToken?: string },
) {
  const salt = r.salt ?? randomHex32();
  const timestamp = r.timestamp ?? Math.floor(Date.now() / 1000);
  const baseToken = r.baseToken ?? s.baseToken;
  const signature = await bettor.signTypedData({
    domain: { name: s.domainName, version: '1.0', chainId: s.chainId, salt },
    types: PARLAY_TYPES,
    primaryType: 'Details',
    message: {
      legs: r.legs.map((l) => ({ marketHash: l.marketHash as Hex, bettingOutcomeOne: l.bettingOutcomeOne })),
      baseToken: baseToken as Hex,
      requestSize: r.requestSize,
      timestamp: BigInt(timestamp),
    },
  });
  return { bettor: bettor.address, baseToken, requestSize: r.requestSize.toString(), legs: r.legs, timestamp, salt, signature };
}
