// Wire records to the client's types: decimal-string amounts and odds become bigint, nothing else changes.
import type {
  Balance,
  BestOdds,
  BestOddsSide,
  Candle,
  CancelResult,
  CashOutQuote,
  ConsolidatedTrade,
  FillResult,
  Order,
  OrderTrade,
  Position,
  RefundGroup,
  StatementEntry,
  Trade,
} from './types.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Wire = any;

const big = (v: unknown): bigint => BigInt(v as string);

export const parseOrder = (o: Wire): Order => ({
  ...o,
  totalBetSize: big(o.totalBetSize),
  percentageOdds: big(o.percentageOdds),
  fillAmount: big(o.fillAmount),
  pendingFillAmount: big(o.pendingFillAmount ?? '0'),
});

const bigOrNull = (v: unknown): bigint | null => (v === null || v === undefined ? null : BigInt(v as string));

export const parseCandle = (c: Wire): Candle => ({
  time: c.time,
  open: big(c.open),
  high: big(c.high),
  low: big(c.low),
  close: big(c.close),
  volume: big(c.volume),
  bestMakerOddsOutcomeOne: bigOrNull(c.bestMakerOddsOutcomeOne),
  bestMakerOddsOutcomeTwo: bigOrNull(c.bestMakerOddsOutcomeTwo),
});

const parseTradeAmounts = (t: Wire) => ({
  ...t,
  stake: big(t.stake),
  odds: big(t.odds),
  ...(t.fee !== undefined ? { fee: big(t.fee) } : {}),
  ...(t.cashOutAmount !== undefined ? { cashOutAmount: big(t.cashOutAmount), cashOutFee: big(t.cashOutFee) } : {}),
});
export const parseTrade: (t: Wire) => Trade = parseTradeAmounts;
export const parseOrderTrade: (t: Wire) => OrderTrade = parseTradeAmounts;

export const parseCashOutQuote = (q: Wire): CashOutQuote => ({
  ...q,
  stakeWei: big(q.stakeWei),
  desiredOdds: big(q.desiredOdds),
  amount: big(q.amount),
  fee: big(q.fee),
  paidNow: big(q.paidNow),
  ...(q.uncoveredWei !== undefined ? { uncoveredWei: big(q.uncoveredWei) } : {}),
});

export const parseConsolidatedTrade = (t: Wire): ConsolidatedTrade => ({ ...t, weightedAverageOdds: big(t.weightedAverageOdds) });

const parseBestSide = (s: Wire): BestOddsSide | undefined =>
  s && s.percentageOdds !== null && s.percentageOdds !== undefined
    ? { percentageOdds: big(s.percentageOdds), updatedAt: s.updatedAt }
    : undefined;

export function parseBestOdds(b: Wire): BestOdds {
  const one = parseBestSide(b.outcomeOne);
  const two = parseBestSide(b.outcomeTwo);
  return { marketHash: b.marketHash, baseToken: b.baseToken, ...(one ? { outcomeOne: one } : {}), ...(two ? { outcomeTwo: two } : {}) };
}

export const parseRefundGroup = (g: Wire): RefundGroup => ({
  ...g,
  events: (g.events as Wire[]).map((e) => ({ ...e, amount: big(e.amount) })),
});

export const parseBalance = (b: Wire): Balance => ({
  ...b,
  balance: big(b.balance),
  escrowed: big(b.escrowed),
  openExposure: big(b.openExposure),
  pendingTakerStake: big(b.pendingTakerStake ?? '0'),
});

export const parseFill = (f: Wire): FillResult => ({ ...f, totalFilled: big(f.totalFilled), averageOdds: big(f.averageOdds) });

export const parseCancel = (c: Wire): CancelResult => ({
  cancelledCount: c.cancelledCount,
  orders: (c.orders as Wire[]).map((o) => ({
    orderHash: o.orderHash,
    pendingFills: (o.pendingFills as Wire[]).map((p) => ({ fillHash: p.fillHash, pendingFillAmount: big(p.pendingFillAmount) })),
  })),
  notCancelled: c.notCancelled ?? [],
});

const bigIfSet = (v: unknown): bigint | undefined => (v === undefined ? undefined : big(v));

export function parsePosition(p: Wire): Position {
  const payout = bigIfSet(p.payout);
  const settledProfit = bigIfSet(p.settledProfit);
  const fees = bigIfSet(p.fees);
  return {
    ...p,
    stakeOutcomeOne: big(p.stakeOutcomeOne),
    stakeOutcomeTwo: big(p.stakeOutcomeTwo),
    pendingStake: big(p.pendingStake),
    payoutIfOutcomeOne: big(p.payoutIfOutcomeOne),
    payoutIfOutcomeTwo: big(p.payoutIfOutcomeTwo),
    payoutIfVoid: big(p.payoutIfVoid),
    escrow: big(p.escrow),
    refunds: big(p.refunds),
    cashedOut: big(p.cashedOut ?? '0'),
    cashOutFees: big(p.cashOutFees ?? '0'),
    ...(payout !== undefined ? { payout } : {}),
    ...(fees !== undefined ? { fees } : {}),
    ...(settledProfit !== undefined ? { settledProfit } : {}),
  };
}

export const parseStatementEntry = (e: Wire): StatementEntry => ({ ...e, amount: big(e.amount), balance: big(e.balance) });
