// Copies of the engine's objects for those outside it: field by field, so a caller never holds the engine's own.
import type { OrderFacts, OrderState } from './changes.js';
import type { FillRecord, Order, OrderView } from './types.js';

// Built field by field: a spread of 20 fields made slow objects.
export const viewOf = (o: OrderView): OrderView => {
  const view: OrderView = {
    orderHash: o.orderHash,
    marketHash: o.marketHash,
    exchangeEventId: o.exchangeEventId,
    maker: o.maker,
    baseToken: o.baseToken,
    executor: o.executor,
    totalBetSize: o.totalBetSize,
    percentageOdds: o.percentageOdds,
    fillAmount: o.fillAmount,
    pendingFillAmount: o.pendingFillAmount,
    expiry: o.expiry,
    apiExpiry: o.apiExpiry,
    salt: o.salt,
    isMakerBettingOutcomeOne: o.isMakerBettingOutcomeOne,
    signature: o.signature,
    persistence: o.persistence,
    status: o.status,
    seq: o.seq,
    createdAt: o.createdAt,
    updatedAt: o.updatedAt,
  };
  if (o.cancelReason !== undefined) view.cancelReason = o.cancelReason;
  return view;
};

export const copyFill = (f: FillRecord): FillRecord => ({
  ...f,
  matches: f.matches.map((m) => ({ ...m })),
  trades: f.trades.map((t) => ({ ...t })),
  ...(f.signed ? { signed: { ...f.signed } } : {}),
  ...(f.attempts ? { attempts: [...f.attempts] } : {}),
});

export const factsOf = (o: Order): OrderFacts => ({
  orderHash: o.orderHash,
  marketHash: o.marketHash,
  exchangeEventId: o.exchangeEventId,
  maker: o.maker,
  baseToken: o.baseToken,
  executor: o.executor,
  totalBetSize: o.totalBetSize,
  percentageOdds: o.percentageOdds,
  expiry: o.expiry,
  apiExpiry: o.apiExpiry,
  salt: o.salt,
  isMakerBettingOutcomeOne: o.isMakerBettingOutcomeOne,
  signature: o.signature,
  persistence: o.persistence,
  seq: o.seq,
  createdAt: o.createdAt,
});

export const stateOf = (o: Order): OrderState =>
  o.cancelReason === undefined
    ? { fillAmount: o.fillAmount, pendingFillAmount: o.pendingFillAmount, status: o.status, updatedAt: o.updatedAt }
    : { fillAmount: o.fillAmount, pendingFillAmount: o.pendingFillAmount, status: o.status, updatedAt: o.updatedAt, cancelReason: o.cancelReason };
