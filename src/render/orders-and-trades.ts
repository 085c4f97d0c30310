// Engine records to the wire objects of GET /orders and GET /trades (and the realtime channels that carry them).
import type { OrderView, Trade } from '../engine/types.js';
import { netReturnWei, settleNetReturnWei } from '../engine/trade-returns.js';
import type { FillOnChain } from '../store/fill-on-chain.js';

export type { FillOnChain };
import { toHumanNumber, toHumanUnits } from '../protocol/amounts.js';
import { isoTime } from '../protocol/iso-time.js';
import type { Static } from '@sinclair/typebox';
import type { Order } from '../protocol/wire/trading.js';
import type { ChannelOrder } from '../protocol/wire/realtime.js';
import type { OrderTrade, Trade as TradeSchema } from '../protocol/wire/trades.js';


/** An item of GET /orders, typed by its response schema. */
export function orderToRest(o: OrderView): Static<typeof Order> {
  const rest: Static<typeof Order> = {
    orderHash: o.orderHash,
    marketHash: o.marketHash,
    maker: o.maker,
    totalBetSize: o.totalBetSize.toString(),
    percentageOdds: o.percentageOdds.toString(),
    fillAmount: o.fillAmount.toString(),
    pendingFillAmount: o.pendingFillAmount.toString(),
    baseToken: o.baseToken,
    executor: o.executor,
    expiry: o.expiry,
    apiExpiry: o.apiExpiry,
    salt: o.salt,
    isMakerBettingOutcomeOne: o.isMakerBettingOutcomeOne,
    signature: o.signature,
    persistence: o.persistence,
    exchangeEventId: o.exchangeEventId,
    orderStatus: o.status,
    createdAt: isoTime(o.createdAt),
    updatedAt: isoTime(o.updatedAt),
  };
  if (o.cancelReason !== undefined) rest.cancelReason = o.cancelReason;
  return rest;
}

/** Open orders are on the book (ACTIVE, or INACTIVE while an exhausting fill is pending). */
const isOnBook = (o: OrderView) => o.status === 'ACTIVE' || o.status === 'INACTIVE';

/**
 * An order as the order channels carry it: the GET /orders object plus what realtime clients track books by,
 * `status` (`ACTIVE` while the order is on the book, `INACTIVE` once it left: filled, cancelled or expired) and
 * `updateTime` (ms of the last change, to order two updates of one order).
 */
export function orderToChannel(o: OrderView): Static<typeof ChannelOrder> {
  return { ...orderToRest(o), status: isOnBook(o) ? 'ACTIVE' : 'INACTIVE', updateTime: o.updatedAt };
}


export interface TradeRenderContext {
  decimals: number;
  chainVersion: string;
  /** Market type of a market hash (betType), when the catalogue knows it. */
  marketType(marketHash: string): number | undefined;
  /** Whether the bettor received capital-efficiency refunds in the market. */
  hasRefunds(marketHash: string, bettor: string): boolean;
  /** What the chain did with a trade's fill: the transactions that carried it. */
  fillOnChain?(fillHash: string): FillOnChain | undefined;
}

/** A trade's betType: its market's type, for a quarter-line leg its parent's (0 when the catalogue does not know it). */
export const betTypeOf = (rc: Pick<TradeRenderContext, 'marketType'>, marketHash: string, parentMarketHash: string | undefined) =>
  rc.marketType(parentMarketHash ?? marketHash) ?? 0;



/** What GET /trades and GET /trades/orders items share. */
type TradeFieldsRest = Omit<Static<typeof TradeSchema>, '_id' | 'betTime' | 'createdAt' | 'updatedAt'>;

/**
 * Writes the fields GET /trades and GET /trades/orders items share onto `o`, in wire order. Assigned one by one
 * rather than spread from a second object (a page renders hundreds of these), and every optional field is assigned,
 * undefined when absent (JSON leaves it out), so all items share one shape.
 */
function writeTradeFields(o: TradeFieldsRest, t: Trade, rc: TradeRenderContext): void {
  const d = rc.decimals;
  const settled = t.settled;
  const normalizedStake = toHumanUnits(t.stake, d);
  const fill = rc.fillOnChain?.(t.fillHash);
  const attempts = fill?.attempts;
  o.baseToken = t.baseToken;
  o.bettor = t.bettor;
  o.stake = t.stake.toString();
  o.normalizedStake = normalizedStake;
  o.odds = t.odds.toString();
  o.orderHash = t.orderHash;
  o.marketHash = t.marketHash;
  o.maker = t.maker;
  o.bettingOutcomeOne = t.bettingOutcomeOne;
  o.settled = settled;
  o.betTimeValue = Number(normalizedStake);
  o.settleValue = settled ? toHumanNumber(t.payout ?? 0n, d) : 0;
  o.fillHash = t.fillHash;
  o.tradeStatus = t.status;
  o.valid = t.status !== 'FAILED';
  o.betType = betTypeOf(rc, t.marketHash, t.quarterLineParentMarketHash);
  o.settleDate = settled ? isoTime(t.settleDate!) : undefined;
  o.outcome = settled ? t.outcome : undefined;
  o.settleTxHash = settled ? t.settleTxHash : undefined;
  o.contractsVersion = rc.chainVersion;
  // The fill's transactions: on chain the real ones; on the local ledger the fill hash stands for them.
  o.fillOrderHash = fill?.txHash ?? attempts?.at(-1) ?? t.fillHash;
  o.fillOrderHashAttempts = attempts !== undefined && attempts.length > 0 ? [...attempts] : [t.fillHash];
  o.lastMineAttemptTime = isoTime(fill?.lastAttemptAt ?? t.betTime);
  (o as { failureReason?: string }).failureReason = fill?.failureReason;
  o.beneficiaryType = 0;
  o.targetNonce = 0;
  o.chainVersion = rc.chainVersion;
  o.exchangeEventId = t.exchangeEventId;
  o.netReturn = toHumanUnits(netReturnWei(t), d);
  // Settlement credit less stake: differs from netReturn by the trade's share of refunds paid before settlement.
  o.settleNetReturnValue = toHumanUnits(settleNetReturnWei(t), d);
  o.fee = settled ? (t.fee ?? 0n).toString() : undefined;
  o.marketHasRefunds = rc.hasRefunds(t.marketHash, t.bettor);
  o.isQuarterLineLeg = t.quarterLineParentMarketHash !== undefined;
  o.quarterLineParentMarketHash = t.quarterLineParentMarketHash || undefined;
  // The taker's trades of a cash out's fill (its hedge) carry what the cash out paid.
  const cashOut = t.maker ? undefined : fill?.cashOut;
  o.cashOutAmount = cashOut?.amount.toString();
  o.cashOutFee = cashOut?.fee.toString();
}

/** An item of GET /trades and of recent_trades:global. */
export function tradeToRest(t: Trade, rc: TradeRenderContext): Static<typeof TradeSchema> {
  const o = { _id: t.id } as Static<typeof TradeSchema>;
  writeTradeFields(o, t, rc);
  o.betTime = Math.floor(t.betTime / 1000);
  o.createdAt = isoTime(t.betTime);
  o.updatedAt = isoTime(t.updatedAt);
  return o;
}

/** An item of GET /trades/orders: `id`, `affiliate`, `providerEventId` and an ISO betTime. */
export function tradeToOrderTradeRest(t: Trade, rc: TradeRenderContext): Static<typeof OrderTrade> {
  const o = { id: t.id } as Static<typeof OrderTrade>;
  writeTradeFields(o, t, rc);
  o.affiliate = t.affiliate;
  o.providerEventId = t.exchangeEventId;
  o.betTime = isoTime(t.betTime);
  return o;
}
