// Engine records to the wire objects of GET /orders and GET /trades (and the realtime channels that carry them).
import type { OrderView, Trade } from '../engine/types.js';
import { toHumanNumber, toHumanUnits } from '../protocol/amounts.js';
import type { Static } from '@sinclair/typebox';
import type { Order } from '../api/schemas/trading.js';
import type { OrderTrade, Trade as TradeSchema } from '../api/schemas/trades.js';

const iso = (ms: number) => new Date(ms).toISOString();

/** An item of GET /orders, typed by its response schema. */
export function orderToRest(o: OrderView): Static<typeof Order> {
  return {
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
    exchangeEventId: o.exchangeEventId,
    orderStatus: o.status,
    createdAt: iso(o.createdAt),
    updatedAt: iso(o.updatedAt),
  };
}

/** Open orders are on the book (ACTIVE, or INACTIVE while an exhausting fill is pending). */
const isOnBook = (o: OrderView) => o.status === 'ACTIVE' || o.status === 'INACTIVE';

/**
 * An order as the order channels carry it: the GET /orders object plus what realtime clients track books by,
 * `status` (`ACTIVE` while the order is on the book, `INACTIVE` once it left: filled, cancelled or expired) and
 * `updateTime` (ms of the last change, to order two updates of one order).
 */
export function orderToChannel(o: OrderView): Record<string, unknown> {
  return { ...orderToRest(o), status: isOnBook(o) ? 'ACTIVE' : 'INACTIVE', updateTime: o.updatedAt };
}

/**
 * What the chain did with a fill: the transactions that carried it, and the outcome's transaction and reason. The
 * read side answers it (declared here so rendering does not depend on the store).
 */
export interface FillOnChain {
  attempts: string[];
  lastAttemptAt?: number;
  txHash?: string;
  failureReason?: string;
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

/** The fill's transactions: on chain the real ones; on the local ledger the fill hash stands for them. */
function fillTransactions(t: Trade, rc: TradeRenderContext) {
  const fill = rc.fillOnChain?.(t.fillHash);
  const attempts = fill?.attempts ?? [];
  return {
    fillOrderHash: fill?.txHash ?? attempts.at(-1) ?? t.fillHash,
    fillOrderHashAttempts: attempts.length > 0 ? [...attempts] : [t.fillHash],
    lastMineAttemptTime: iso(fill?.lastAttemptAt ?? t.betTime),
    ...(fill?.failureReason !== undefined ? { failureReason: fill.failureReason } : {}),
  };
}

/** Net result of a settled trade in wei: payout minus stake. */
export const netReturnWei = (t: Trade) => (t.settled ? (t.payout ?? 0n) - t.stake : 0n);

/** Net return as settlement paid it: the recorded credit less stake (payout less stake when no refunds were paid). */
export const settleNetReturnWei = (t: Trade) => (t.settled ? (t.credit ?? t.payout ?? 0n) - t.stake : 0n);

/** What GET /trades and GET /trades/orders items share. */
type TradeFieldsRest = Omit<Static<typeof TradeSchema>, '_id' | 'betTime' | 'createdAt' | 'updatedAt'>;

function tradeFields(t: Trade, rc: TradeRenderContext): TradeFieldsRest {
  const netReturn = toHumanUnits(netReturnWei(t), rc.decimals);
  const normalizedStake = toHumanUnits(t.stake, rc.decimals);
  return {
    baseToken: t.baseToken,
    bettor: t.bettor,
    stake: t.stake.toString(),
    normalizedStake,
    odds: t.odds.toString(),
    orderHash: t.orderHash,
    marketHash: t.marketHash,
    maker: t.maker,
    bettingOutcomeOne: t.bettingOutcomeOne,
    settled: t.settled,
    betTimeValue: Number(normalizedStake),
    settleValue: t.settled ? toHumanNumber(t.payout ?? 0n, rc.decimals) : 0,
    fillHash: t.fillHash,
    tradeStatus: t.status,
    valid: t.status !== 'FAILED',
    betType: rc.marketType(t.quarterLineParentMarketHash ?? t.marketHash) ?? 0,
    ...(t.settled
      ? { settleDate: new Date(t.settleDate!).toISOString(), outcome: t.outcome, settleTxHash: t.settleTxHash }
      : {}),
    contractsVersion: rc.chainVersion,
    ...fillTransactions(t, rc),
    beneficiaryType: 0,
    targetNonce: 0,
    chainVersion: rc.chainVersion,
    exchangeEventId: t.exchangeEventId,
    netReturn,
    // Settlement credit less stake: differs from netReturn by the trade's share of refunds paid before settlement.
    settleNetReturnValue: toHumanUnits(settleNetReturnWei(t), rc.decimals),
    marketHasRefunds: rc.hasRefunds(t.marketHash, t.bettor),
    isQuarterLineLeg: t.quarterLineParentMarketHash !== undefined,
    ...(t.quarterLineParentMarketHash ? { quarterLineParentMarketHash: t.quarterLineParentMarketHash } : {}),
  };
}

/** An item of GET /trades and of recent_trades:global. */
export function tradeToRest(t: Trade, rc: TradeRenderContext): Static<typeof TradeSchema> {
  return { _id: t.id, ...tradeFields(t, rc), betTime: Math.floor(t.betTime / 1000), createdAt: iso(t.betTime), updatedAt: iso(t.updatedAt) };
}

/** An item of GET /trades/orders: `id`, `affiliate`, `providerEventId` and an ISO betTime. */
export function tradeToOrderTradeRest(t: Trade, rc: TradeRenderContext): Static<typeof OrderTrade> {
  return {
    id: t.id,
    ...tradeFields(t, rc),
    affiliate: t.affiliate,
    providerEventId: t.exchangeEventId,
    betTime: iso(t.betTime),
  };
}
