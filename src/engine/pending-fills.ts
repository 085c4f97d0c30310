// Fills accepted and waiting for the chain, with the trades each will record. Executed fills leave.
// Invariants: a pending fill's matches reserve exactly its orders' pending fill amounts, and its taker's pending stake
// is its total taker stake; each matched pair records a maker and a taker trade of opposite outcomes (two pairs, at
// half stake each, on a quarter line), and trade ids count up, never reused.
import type { ChangeLog } from './change-log.js';
import { ODDS_SCALE } from '../protocol/odds.js';
import { copyFill } from './order-views.js';
import { TradeRecord, type MatchRecord, type PendingFillRecord } from './records.js';
import type { EngineParams, FillRecord, MarketRef, Order } from './types.js';

export interface PendingFillsState {
  pendingFills: FillRecord[];
  tradeCount: number;
}

/** Halves of a quarter-line stake: the lower line's leg takes the odd wei. */
export function splitQuarterLine(legs: [string, string], makerStake: bigint, takerStake: bigint) {
  const half = (x: bigint) => [x - x / 2n, x / 2n] as const;
  const [makerLow, makerHigh] = half(makerStake);
  const [takerLow, takerHigh] = half(takerStake);
  return [
    { marketHash: legs[0], makerStake: makerLow, takerStake: takerLow },
    { marketHash: legs[1], makerStake: makerHigh, takerStake: takerHigh },
  ];
}

export class PendingFills {
  private readonly records = new Map<string, FillRecord>();
  /** Trades ever recorded: the next trade's id. */
  tradeCount = 0;
  /** The trades of the fill being accepted, copied out once complete (see change-log.ts for why). */
  private readonly tradeScratch: TradeRecord[] = [];
  /** Pending cash-out fills by market and taker (`market|taker`): no refund is paid there while one waits. */
  private readonly cashOuts = new Map<string, number>();

  constructor(
    private readonly params: Pick<EngineParams, 'affiliate'>,
    private readonly log: ChangeLog,
  ) {}

  get(fillHash: string): FillRecord | undefined {
    return this.records.get(fillHash);
  }

  get size(): number {
    return this.records.size;
  }

  /** Oldest first. */
  values(): IterableIterator<FillRecord> {
    return this.records.values();
  }

  /** Starts gathering the trades of a fill being accepted. */
  beginTrades(): void {
    this.tradeScratch.length = 0;
  }

  /** A matched pair yields a maker and a taker trade; on a quarter line, one pair per leg at half stake each. */
  recordTrades(record: FillRecord, o: Order, m: MatchRecord, market: MarketRef, at: number): void {
    if (!market.legs) {
      this.recordPair(record, o, market, market.marketHash, undefined, m.makerStake, m.takerStake, at);
      return;
    }
    for (const leg of splitQuarterLine(market.legs, m.makerStake, m.takerStake)) {
      this.recordPair(record, o, market, leg.marketHash, market.marketHash, leg.makerStake, leg.takerStake, at);
    }
  }

  /** The fill, its trades complete, waits for the chain. */
  add(record: PendingFillRecord): void {
    record.trades = this.tradeScratch.slice();
    this.tradeScratch.length = 0;
    this.track(record);
  }

  /** The fill leaves: the chain executed it or it failed. */
  remove(fillHash: string): void {
    const record = this.records.get(fillHash);
    if (!record) return;
    this.records.delete(fillHash);
    if (!record.cashOut) return;
    const key = `${record.marketHash}|${record.taker}`;
    const left = (this.cashOuts.get(key) ?? 1) - 1;
    if (left > 0) this.cashOuts.set(key, left);
    else this.cashOuts.delete(key);
  }

  /** Whether a cash out of the bettor's position in the market waits for the chain. */
  hasCashOut(marketHash: string, bettor: string): boolean {
    return this.cashOuts.size > 0 && this.cashOuts.has(`${marketHash}|${bettor}`);
  }

  private track(record: FillRecord): void {
    this.records.set(record.fillHash, record);
    if (!record.cashOut) return;
    const key = `${record.marketHash}|${record.taker}`;
    this.cashOuts.set(key, (this.cashOuts.get(key) ?? 0) + 1);
  }

  /** The chain carried these pending fills in transaction `txHash` (it may be retried in another). */
  attempted(fillHashes: readonly string[], txHash: string, at: number): void {
    for (const fillHash of fillHashes) {
      const record = this.records.get(fillHash);
      // A report repeated (a settlement process's retry, or its successor's) records the transaction once.
      if (!record || record.attempts?.includes(txHash)) continue;
      (record.attempts ??= []).push(txHash);
      record.lastAttemptAt = at;
      this.log.emit({ type: 'fillAttempted', fillHash, txHash, at });
    }
  }

  private recordPair(
    record: FillRecord,
    o: Order,
    market: MarketRef,
    marketHash: string,
    parentMarketHash: string | undefined,
    makerStake: bigint,
    takerStake: bigint,
    at: number,
  ): void {
    const takerOdds = ODDS_SCALE - o.percentageOdds;
    this.addTrade(this.tradeFacts(record, o, market, marketHash, parentMarketHash, true, makerStake, takerStake, o.percentageOdds, at));
    this.addTrade(this.tradeFacts(record, o, market, marketHash, parentMarketHash, false, takerStake, makerStake, takerOdds, at));
  }

  /** One side of a matched pair: the maker's (`maker`) or the taker's, with that side's stake and odds. */
  private tradeFacts(
    record: FillRecord,
    o: Order,
    market: MarketRef,
    marketHash: string,
    parentMarketHash: string | undefined,
    maker: boolean,
    stake: bigint,
    counterStake: bigint,
    odds: bigint,
    at: number,
  ): TradeRecord {
    return new TradeRecord(
      String(++this.tradeCount),
      record.fillHash,
      o.orderHash,
      marketHash,
      market.exchangeEventId,
      o.baseToken,
      maker ? o.maker : record.taker,
      maker ? record.taker : o.maker,
      maker,
      maker ? o.isMakerBettingOutcomeOne : record.isTakerBettingOutcomeOne,
      stake,
      counterStake,
      odds,
      at,
      this.params.affiliate,
      parentMarketHash,
    );
  }

  /** The trade's facts go out as they are, and the fill's record keeps the same object. */
  private addTrade(facts: TradeRecord): void {
    this.tradeScratch.push(facts);
    this.log.emit({ type: 'tradeRecorded', trade: facts });
  }

  snapshot(): PendingFillsState {
    return { pendingFills: [...this.records.values()].map(copyFill), tradeCount: this.tradeCount };
  }

  static from(params: Pick<EngineParams, 'affiliate'>, log: ChangeLog, state: PendingFillsState): PendingFills {
    const p = new PendingFills(params, log);
    for (const f of state.pendingFills) p.track(copyFill(f));
    p.tradeCount = state.tradeCount;
    return p;
  }
}
