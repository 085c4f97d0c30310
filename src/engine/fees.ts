// Commission on winnings (Betfair's rule): a share of a bettor's net profit in a market, never of a loss, taken at
// settlement and paid to the fee account, less the share that goes to the affiliate the bettor's trades name.
// Pure arithmetic in basis points, rounded down (the bettor keeps the odd wei).
import { ZERO_ADDRESS } from '../protocol/eip712.js';
import type { SettlementFees } from './types.js';

const BPS = 10_000n;

/** What settlement charges in one reported market: its rate and where the fee goes. */
export interface FeeTerms {
  bps: number;
  account: string;
  affiliateShareBps: number;
}

/** The rates a fee configuration charges. */
export interface FeeRates {
  singlesBps: number;
  parlaysBps: number;
  cashoutBps: number;
  account: string;
}

/**
 * The rates actually charged: none at all without a fee account (the zero address), since nobody could ever be paid
 * there; as the settlement contract is deployed (chainFeesOf), so the local ledger charges what a chain would.
 */
export function chargedFees<F extends FeeRates>(fees: F): F {
  return fees.account.toLowerCase() === ZERO_ADDRESS ? { ...fees, singlesBps: 0, parlaysBps: 0, cashoutBps: 0 } : fees;
}

/** A market's terms on a report, or undefined when it pays no fee (no fees on the command, or a rate of 0). */
export function feeTermsOf(fees: SettlementFees | undefined, marketHash: string): FeeTerms | undefined {
  const bps = fees?.bpsByMarket[marketHash] ?? 0;
  if (!fees || bps <= 0) return undefined;
  return { bps, account: fees.account, affiliateShareBps: fees.affiliateShareBps };
}

/** The commission on a position paying `payout` for `stakes` staked: `bps` of the profit, 0 when there is none. */
export function commission(payout: bigint, stakes: bigint, bps: number): bigint {
  const profit = payout - stakes;
  return profit > 0n ? (profit * BigInt(bps)) / BPS : 0n;
}

/** The affiliate's part of a fee: none without an affiliate (the zero address). */
export function affiliatePart(fee: bigint, affiliate: string, shareBps: number): bigint {
  return affiliate.toLowerCase() === ZERO_ADDRESS ? 0n : (fee * BigInt(shareBps)) / BPS;
}

/**
 * The cash-out fee: `bps` of the cash out's value (what the hedged position is worth whatever outcome one or two wins,
 * less the hedge stake), never more than the `paid` at once it is taken from.
 */
export function cashOutFee(value: bigint, paid: bigint, bps: number): bigint {
  const fee = value > 0n ? (value * BigInt(bps)) / BPS : 0n;
  return fee < paid ? fee : paid > 0n ? paid : 0n;
}
