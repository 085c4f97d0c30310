// The settlement contract's arguments for one accepted fill, from the terms the sequencer handed over with it: the
// taker's signed request and, per matched maker order, the order as signed with the taker stake matched against it.
import type { Hex } from 'viem';
import type { FillTerms } from '../settlement-chain.js';

const ZERO_BYTES32 = `0x${'0'.repeat(64)}` as Hex;

export interface SettlementFillArgs {
  taker: Hex;
  market: string;
  baseToken: string;
  stakeWei: bigint;
  desiredOdds: bigint;
  oddsSlippage: bigint;
  isTakerBettingOutcomeOne: boolean;
  fillSalt: bigint;
  /** Zero, or the fill's market hash for a cash out (the taker signed it so). */
  cashOutTarget: Hex;
  takerSig: Hex;
  legs: readonly [Hex, Hex];
  matches: {
    order: {
      marketHash: Hex;
      baseToken: Hex;
      totalBetSize: bigint;
      percentageOdds: bigint;
      expiry: bigint;
      salt: bigint;
      maker: Hex;
      executor: Hex;
      isMakerBettingOutcomeOne: boolean;
    };
    makerSig: Hex;
    takerStake: bigint;
  }[];
}

/** Undefined for a fill accepted without the taker's signed request (local-ledger fills). */
export function settlementArgsOf({ fill, orders }: FillTerms): SettlementFillArgs | undefined {
  if (!fill.signed) return undefined;
  const orderOf = new Map(orders.map((o) => [o.orderHash, o]));
  // A quarter line's trades sit on its two leg markets, lower line first.
  const legMarkets = [...new Set(fill.trades.filter((t) => t.quarterLineParentMarketHash).map((t) => t.marketHash))];
  return {
    taker: fill.taker as Hex,
    market: fill.signed.market,
    baseToken: fill.signed.baseToken,
    stakeWei: fill.signed.stakeWei,
    desiredOdds: fill.signed.desiredOdds,
    oddsSlippage: BigInt(fill.signed.oddsSlippage),
    isTakerBettingOutcomeOne: fill.isTakerBettingOutcomeOne,
    fillSalt: BigInt(fill.fillSalt),
    cashOutTarget: fill.cashOut ? (fill.marketHash as Hex) : ZERO_BYTES32,
    takerSig: fill.signed.takerSig as Hex,
    legs: legMarkets.length === 2 ? [legMarkets[0] as Hex, legMarkets[1] as Hex] : [ZERO_BYTES32, ZERO_BYTES32],
    matches: fill.matches.map((m) => {
      // The sequencer hands over every matched order with its fill.
      const o = orderOf.get(m.orderHash)!;
      return {
        order: {
          marketHash: o.marketHash as Hex,
          baseToken: o.baseToken as Hex,
          totalBetSize: o.totalBetSize,
          percentageOdds: o.percentageOdds,
          expiry: BigInt(o.expiry),
          salt: BigInt(o.salt),
          maker: o.maker as Hex,
          executor: o.executor as Hex,
          isMakerBettingOutcomeOne: o.isMakerBettingOutcomeOne,
        },
        makerSig: o.signature as Hex,
        takerStake: m.takerStake,
      };
    }),
  };
}
