// Independent signing for tests: viem wallets and viem's own EIP-191 / EIP-712 code, never ours.
import { encodePacked, keccak256, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { randomBytes } from 'node:crypto';
import type { Config } from '../../src/config.js';

/** The values orders, fills and cancels are signed with: a server's config, or what a client read in /metadata. */
export type SigningParams = Pick<Config, 'chainId' | 'baseTokenAddress' | 'executorAddress' | 'eip712FillHasher' | 'domainNames' | 'domainVersion'>;

export const E18 = 10n ** 18n;
export const USDC = 1_000_000n;
export const randomSalt = () => BigInt('0x' + randomBytes(32).toString('hex'));
export const randomHex32 = () => ('0x' + randomBytes(32).toString('hex')) as Hex;

export function newWallet(): PrivateKeyAccount {
  return privateKeyToAccount(generatePrivateKey());
}

export interface OrderInput {
  marketHash: string;
  totalBetSize: bigint;
  percentageOdds: bigint;
  isMakerBettingOutcomeOne: boolean;
  expiry?: number;
  apiExpiry?: number;
  salt?: bigint;
}

export async function signedOrder(wallet: PrivateKeyAccount, config: SigningParams, o: OrderInput) {
  const expiry = o.expiry ?? Math.floor(Date.now() / 1000) + 3600;
  const salt = o.salt ?? randomSalt();
  const hash = keccak256(
    encodePacked(
      ['bytes32', 'address', 'uint256', 'uint256', 'uint256', 'uint256', 'address', 'address', 'bool'],
      [
        o.marketHash as Hex,
        config.baseTokenAddress as Hex,
        o.totalBetSize,
        o.percentageOdds,
        BigInt(expiry),
        salt,
        wallet.address,
        config.executorAddress as Hex,
        o.isMakerBettingOutcomeOne,
      ],
    ),
  );
  const signature = await wallet.signMessage({ message: { raw: hash } });
  return {
    hash,
    body: {
      marketHash: o.marketHash,
      maker: wallet.address,
      totalBetSize: o.totalBetSize.toString(),
      percentageOdds: o.percentageOdds.toString(),
      baseToken: config.baseTokenAddress,
      apiExpiry: o.apiExpiry ?? expiry,
      expiry,
      executor: config.executorAddress,
      isMakerBettingOutcomeOne: o.isMakerBettingOutcomeOne,
      salt: salt.toString(),
      signature,
    },
  };
}

// Written here from the spec text, not imported from src/protocol: the tests must not share the code they check.
const FILL_TYPES = {
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

/** The fill request fields a taker signs, strings exactly as sent. */
export interface SignedFillFields {
  market: string;
  baseToken: string;
  stakeWei: bigint;
  desiredOdds: bigint;
  oddsSlippage: bigint;
  isTakerBettingOutcomeOne: boolean;
  fillSalt: bigint;
  /** Absent: the zero hash (an ordinary fill). */
  cashOutTarget?: string;
}

/** The taker's EIP-712 signature of a fill request over `domain`, by viem. */
export function signFillRequest(wallet: PrivateKeyAccount, domain: { name: string; version: string; chainId: number; verifyingContract: Hex }, f: SignedFillFields): Promise<Hex> {
  return wallet.signTypedData({
    domain,
    types: FILL_TYPES,
    primaryType: 'Details',
    message: {
      action: 'N/A',
      market: f.market,
      betting: 'N/A',
      stake: 'N/A',
      worstOdds: 'N/A',
      worstReturning: 'N/A',
      fills: {
        stakeWei: f.stakeWei.toString(),
        marketHash: f.market,
        baseToken: f.baseToken,
        desiredOdds: f.desiredOdds.toString(),
        oddsSlippage: f.oddsSlippage,
        isTakerBettingOutcomeOne: f.isTakerBettingOutcomeOne,
        fillSalt: f.fillSalt,
        beneficiary: '0x0000000000000000000000000000000000000000',
        beneficiaryType: 0,
        cashOutTarget: (f.cashOutTarget ?? '0x' + '0'.repeat(64)) as Hex,
      },
    },
  });
}

export interface FillInput {
  market: string;
  isTakerBettingOutcomeOne: boolean;
  stakeWei: bigint;
  desiredOdds: bigint;
  oddsSlippage?: number;
  fillSalt?: bigint;
  /** Signed and sent: a cash out names the market hash. */
  cashOutTarget?: string;
}

export async function signedFill(wallet: PrivateKeyAccount, config: SigningParams, f: FillInput) {
  const fillSalt = f.fillSalt ?? randomSalt();
  const oddsSlippage = f.oddsSlippage ?? 0;
  const takerSig = await signFillRequest(
    wallet,
    { name: config.domainNames.fill, version: config.domainVersion, chainId: config.chainId, verifyingContract: config.eip712FillHasher as Hex },
    {
      market: f.market,
      baseToken: config.baseTokenAddress,
      stakeWei: f.stakeWei,
      desiredOdds: f.desiredOdds,
      oddsSlippage: BigInt(oddsSlippage),
      isTakerBettingOutcomeOne: f.isTakerBettingOutcomeOne,
      fillSalt,
      ...(f.cashOutTarget !== undefined ? { cashOutTarget: f.cashOutTarget } : {}),
    },
  );
  return {
    market: f.market,
    baseToken: config.baseTokenAddress,
    isTakerBettingOutcomeOne: f.isTakerBettingOutcomeOne,
    stakeWei: f.stakeWei.toString(),
    desiredOdds: f.desiredOdds.toString(),
    oddsSlippage,
    fillSalt: fillSalt.toString(),
    taker: wallet.address,
    takerSig,
    ...(f.cashOutTarget !== undefined ? { cashOutTarget: f.cashOutTarget } : {}),
  };
}

type CancelKind = 'v2' | 'event' | 'all';

export async function signedCancel(
  wallet: PrivateKeyAccount,
  config: SigningParams,
  kind: CancelKind,
  fields: { orderHashes?: string[]; exchangeEventId?: string; timestamp?: number; salt?: Hex } = {},
) {
  const salt = fields.salt ?? randomHex32();
  const timestamp = fields.timestamp ?? Math.floor(Date.now() / 1000);
  const name = { v2: config.domainNames.cancelV2, event: config.domainNames.cancelEvent, all: config.domainNames.cancelAll }[kind];
  const domain = { name, version: '1.0', chainId: config.chainId, salt };
  let signature: Hex;
  if (kind === 'v2') {
    signature = await wallet.signTypedData({
      domain,
      types: { Details: [{ name: 'orderHashes', type: 'string[]' }, { name: 'timestamp', type: 'uint256' }] },
      primaryType: 'Details',
      message: { orderHashes: fields.orderHashes ?? [], timestamp: BigInt(timestamp) },
    });
  } else if (kind === 'event') {
    signature = await wallet.signTypedData({
      domain,
      types: { Details: [{ name: 'exchangeEventId', type: 'string' }, { name: 'timestamp', type: 'uint256' }] },
      primaryType: 'Details',
      message: { exchangeEventId: fields.exchangeEventId ?? '', timestamp: BigInt(timestamp) },
    });
  } else {
    signature = await wallet.signTypedData({
      domain,
      types: { Details: [{ name: 'timestamp', type: 'uint256' }] },
      primaryType: 'Details',
      message: { timestamp: BigInt(timestamp) },
    });
  }
  return {
    ...(kind === 'v2' ? { orderHashes: fields.orderHashes } : {}),
    ...(kind === 'event' ? { exchangeEventId: fields.exchangeEventId } : {}),
    signature,
    salt,
    maker: wallet.address,
    timestamp,
  };
}
