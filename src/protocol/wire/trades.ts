// Response data of trade history, consolidated trades and refunds (spec 2.2-2.4; render/orders-and-trades.ts,
// render/consolidated.ts, render/refund-groups.ts).
import { Type } from '@sinclair/typebox';
import { HumanAmount, IsoDate, Nullable, OddsString, WeiString } from './envelope.js';

const tradeFields = {
  baseToken: Type.String(),
  bettor: Type.String(),
  stake: WeiString,
  normalizedStake: HumanAmount,
  odds: OddsString,
  orderHash: Type.String(),
  marketHash: Type.String(),
  maker: Type.Boolean(),
  bettingOutcomeOne: Type.Boolean(),
  settled: Type.Boolean(),
  betTimeValue: Type.Number(),
  settleValue: Type.Number(),
  fillHash: Type.String(),
  tradeStatus: Type.String({ description: 'PENDING, SUCCESS or FAILED' }),
  valid: Type.Boolean(),
  betType: Type.Integer(),
  settleDate: Type.Optional(IsoDate),
  outcome: Type.Optional(Type.Integer()),
  settleTxHash: Type.Optional(Type.String()),
  failureReason: Type.Optional(Type.String({ description: 'why the chain refused the fill (its revert reason), when tradeStatus is FAILED' })),
  contractsVersion: Type.String(),
  fillOrderHash: Type.String(),
  fillOrderHashAttempts: Type.Array(Type.String()),
  lastMineAttemptTime: IsoDate,
  beneficiaryType: Type.Integer(),
  targetNonce: Type.Integer(),
  chainVersion: Type.String(),
  exchangeEventId: Type.String(),
  netReturn: HumanAmount,
  settleNetReturnValue: HumanAmount,
  fee: Type.Optional(
    Type.String({
      description:
        'Additive: once settled, the commission taken on this trade (wei): its share of the fee on its bettor\'s net winnings in the market. netReturn and settleNetReturnValue are after it.',
    }),
  ),
  marketHasRefunds: Type.Boolean(),
  isQuarterLineLeg: Type.Boolean(),
  quarterLineParentMarketHash: Type.Optional(Type.String()),
  cashOutAmount: Type.Optional(
    Type.String({
      description:
        'Additive, on the taker\'s trades of a cash out\'s fill (signed with cashOutTarget) once it executed: what the cash out paid ' +
        'its bettor at once (wei, before cashOutFee), the whole fill\'s (repeated on each of its trades): what the position was ' +
        'owed in every result. Settlement pays the rest, so settleNetReturnValue nets it as it nets refunds.',
    }),
  ),
  cashOutFee: Type.Optional(Type.String({ description: 'Additive, with cashOutAmount: the cash-out fee taken from it (wei).' })),
};

/** An item of GET /trades. */
export const Trade = Type.Object({
  _id: Type.String(),
  ...tradeFields,
  betTime: Type.Integer({ description: 'UNIX seconds' }),
  createdAt: IsoDate,
  updatedAt: IsoDate,
});

/** An item of GET /trades/orders. */
export const OrderTrade = Type.Object({
  id: Type.String(),
  ...tradeFields,
  affiliate: Type.String(),
  providerEventId: Type.String(),
  betTime: IsoDate,
});

export const TradesPage = Type.Object({
  trades: Type.Array(Trade),
  nextKey: Type.String({ description: 'pass as paginationKey; empty on the last page' }),
  pageSize: Type.Integer(),
  count: Type.Integer(),
});

export const OrderTrades = Type.Object({ trades: Type.Array(OrderTrade) });

export const ConsolidatedTrade = Type.Object({
  baseToken: Type.String(),
  bettor: Type.String(),
  marketHash: Type.String(),
  fillHash: Type.String(),
  fillOrderHash: Type.String(),
  chainVersion: Type.String(),
  tradeStatus: Type.String({ description: 'SUCCESS or FAILED' }),
  totalStake: HumanAmount,
  totalBetTimeValue: HumanAmount,
  weightedAverageOdds: OddsString,
  netReturn: HumanAmount,
  totalReturn: HumanAmount,
  crosschainNetReturn: HumanAmount,
  netReturnBetTimeValue: Type.Number(),
  settleNetReturnValue: HumanAmount,
  fee: Type.Optional(Type.String({ description: 'Additive: once settled, the commission taken on the entry\'s trades (base-token units); netReturn and settleNetReturnValue are after it.' })),
  cashOutAmount: Type.Optional(
    Type.String({
      description:
        'Additive, on the taker\'s entry of a cash out\'s fill (its cashOutTarget was the market hash) once it executed: what the cash ' +
        'out paid its bettor at once, before cashOutFee (base-token units, as the entry\'s other amounts; the trades\' cashOutAmount in wei).',
    }),
  ),
  cashOutFee: Type.Optional(Type.String({ description: 'Additive, with cashOutAmount: the cash-out fee taken from it (base-token units).' })),
  maker: Type.Boolean(),
  settled: Type.Boolean(),
  marketHasRefunds: Type.Boolean(),
  gameLabel: Type.String(),
  leagueLabel: Type.String(),
  bettingOutcomeLabel: Type.String(),
  bettingOutcome: Type.Integer(),
  exchangeEventId: Type.String(),
  gameTime: IsoDate,
  sportId: Type.Integer(),
  marketType: Type.Integer(),
  betTime: Type.Integer({ description: 'UNIX seconds' }),
  quarterLineFillHash: Nullable(Type.String()),
  isQuarterLineParent: Type.Boolean(),
  isQuarterLineLeg: Type.Boolean(),
  outcome: Type.Optional(Type.Integer()),
  settleDate: Type.Optional(IsoDate),
});

export const ConsolidatedPage = Type.Object({ trades: Type.Array(ConsolidatedTrade), count: Type.Integer() });

export const RefundEvent = Type.Object({
  marketHash: Type.String(),
  baseToken: Type.String(),
  bettor: Type.String(),
  maker: Type.Boolean(),
  fillOrderHash: Type.String(),
  amount: WeiString,
  amountBetTimeValue: HumanAmount,
  createdAt: IsoDate,
});

export const RefundsPage = Type.Object({
  results: Type.Array(
    Type.Object({
      marketHash: Type.String(),
      baseToken: Type.String(),
      totalRefundedBetTimeValue: Type.Number(),
      events: Type.Array(RefundEvent),
    }),
  ),
  count: Type.Integer(),
});
