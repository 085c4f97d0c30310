// Confirmed trades until their market's outcome: positions per market and bettor (as sums), the escrow refunded
// early, what cash outs paid early, and the outcomes reported.
// Invariants: conservation of funds (escrow moves only to the bettor's wallet, or as a fee to the fee and affiliate
// accounts, and a bettor is never paid more than its position's payout: early refunds, cash outs and the fee are
// netted from it); escrow never exceeds a position's worst-case loss once its fill is confirmed, until a cash out:
// then no refund is generated there any more, and escrow is the stakes less what was paid early, which covers what
// every result still owes the position (a cash out pays at most the least of them), and none is generated while a
// cash out of the position waits for the chain; a market is reported once, with one outcome.
import type { ChangeLog } from './change-log.js';
import type { TradeFacts } from './changes.js';
import { DomainError } from './errors.js';
import { affiliatePart, cashOutFee, commission, type FeeTerms } from './fees.js';
import { Position, tradePayout, type PositionTotals, type PositionTrade } from './refunds.js';
import type { CashOutTerms, FillRecord, MarketResult, Outcome, PendingTrade } from './types.js';
import type { Wallets } from './wallets/wallets.js';

export interface SettlementState {
  reported: [string, Outcome][];
  positions: ({ market: string; bettor: string } & (PositionTotals | { trades: PositionTrade[] }))[];
  refunded: [string, [string, bigint][]][];
  refundCount: number;
  /** Fee terms of reported markets that charge fees (absent in snapshots written before fees existed: none did). */
  feeTerms?: [string, FeeTerms][];
  /** Paid at once by cash outs per unsettled market and bettor (absent when none: snapshots before cash outs). */
  cashedOut?: [string, [string, bigint][]][];
}

export class Settlement {
  private readonly reported = new Map<string, Outcome>();
  /** Confirmed, unsettled trades per market and bettor, as sums: what escrow must cover and settlement pays. */
  private readonly positions = new Map<string, Map<string, Position>>();
  /** Refunded wei per market and bettor, netted at settlement. */
  private readonly refunded = new Map<string, Map<string, bigint>>();
  private refundCount = 0;
  /**
   * Paid at once by cash outs per market and bettor, netted at settlement. A bettor listed here (even for 0 wei) cashed
   * out in the market: no capital-efficiency refund is generated for it there any more.
   */
  private readonly cashedOut = new Map<string, Map<string, bigint>>();
  /** The fee terms each reported market was settled under, for trades confirmed after its report. */
  private readonly feeTerms = new Map<string, FeeTerms>();
  /** One trade per (market, bettor) of the fill being confirmed, in first-seen order: a fill has a few trades. */
  private readonly partiesScratch: PendingTrade[] = [];
  private readonly partyIndexScratch = new Map<string, number>();

  constructor(
    private readonly wallets: Wallets,
    private readonly log: ChangeLog,
    /** The affiliate every trade names (EngineParams.affiliate): its share of each fee goes there. */
    private readonly affiliate: string,
    /**
     * Whether a cash out of the bettor's position in the market waits for the chain: refunds there wait too, so the
     * cash out pays what the position is owed with the same refunds netted as an on-chain escrow has paid (a refund
     * sent after the cash out executed would be refused there). A later fill's refund pays what waited, if the cash
     * out failed.
     */
    private readonly cashOutPending: (marketHash: string, bettor: string) => boolean = () => false,
  ) {}

  isReported(marketHash: string): boolean {
    return this.reported.has(marketHash);
  }

  get reportedCount(): number {
    return this.reported.size;
  }

  get refunds(): number {
    return this.refundCount;
  }

  /** A bettor's confirmed, unsettled position in a market (a copy of its sums) and the refunds paid on it, if any. */
  positionIn(marketHash: string, bettor: string): { totals: PositionTotals; refunded: bigint; cashedOut: bigint } | undefined {
    const position = this.positions.get(marketHash)?.get(bettor);
    return (
      position && {
        totals: position.totals(),
        refunded: this.refunded.get(marketHash)?.get(bettor) ?? 0n,
        cashedOut: this.cashedOut.get(marketHash)?.get(bettor) ?? 0n,
      }
    );
  }

  /** Bettors holding confirmed, unsettled trades in a market. */
  bettorsIn(marketHash: string): string[] {
    return [...(this.positions.get(marketHash)?.keys() ?? [])];
  }

  /** A market is reported once: the same outcome again changes nothing, another outcome is refused. */
  checkReports(reports: readonly { marketHash: string; outcome: Outcome }[]): void {
    const outcomes = new Map(this.reported);
    for (const r of reports) {
      const known = outcomes.get(r.marketHash);
      if (known !== undefined && known !== r.outcome) {
        throw new DomainError('MARKET_ALREADY_REPORTED', `${r.marketHash} was already reported with outcome ${known}`);
      }
      outcomes.set(r.marketHash, r.outcome);
    }
  }

  checkNotReported(marketHashes: readonly string[]): void {
    const reported = marketHashes.find((h) => this.reported.has(h));
    if (reported) throw new DomainError('MARKET_ALREADY_REPORTED', `${reported} is reported: its status is SETTLED for good`);
  }

  /**
   * A fill left the chain's queue: its trades take its status; an executed fill's stakes go to escrow and join the
   * positions, and each (market, bettor) it touched is refunded the escrow its position no longer needs.
   */
  fillExecuted(record: FillRecord, funded: boolean, at: number): void {
    const parties = this.partiesScratch;
    parties.length = 0;
    const partyIndex = this.partyIndexScratch;
    if (partyIndex.size > 0) partyIndex.clear();
    for (const t of record.trades) {
      this.log.emit({ type: 'tradeStatusChanged', tradeId: t.id, status: record.status, at, trade: t });
      if (!funded || !this.tradeConfirmed(t, at)) continue;
      // A linear search while the fill has few parties (no key strings to build); an index past that.
      let same = -1;
      if (parties.length <= 8) {
        for (let i = 0; i < parties.length && same < 0; i++) if (parties[i]!.marketHash === t.marketHash && parties[i]!.bettor === t.bettor) same = i;
      } else {
        if (partyIndex.size === 0) parties.forEach((p, i) => partyIndex.set(`${p.marketHash}:${p.bettor}`, i));
        same = partyIndex.get(`${t.marketHash}:${t.bettor}`) ?? -1;
        if (same < 0) partyIndex.set(`${t.marketHash}:${t.bettor}`, parties.length);
      }
      if (same >= 0) parties[same] = t;
      else parties.push(t);
    }
    // A cash out's taker is marked before the refunds: the cash out pays what a refund would have.
    const cashOut = funded && record.cashOut !== undefined && this.positions.get(record.marketHash)?.has(record.taker) === true;
    if (cashOut) this.cashedOutIn(record.marketHash).set(record.taker, this.cashedOut.get(record.marketHash)?.get(record.taker) ?? 0n);
    for (const t of parties) this.refundExcessEscrow(t.marketHash, t.bettor, t.maker, record.fillHash, t.baseToken, at);
    if (cashOut) this.payCashOut(record, record.cashOut!, at);
    // A cash out that failed pays the refunds that waited for it.
    else if (record.cashOut && !funded && this.positions.get(record.marketHash)?.has(record.taker) === true) {
      this.refundExcessEscrow(record.marketHash, record.taker, false, record.fillHash, record.baseToken, at);
    }
  }

  private cashedOutIn(marketHash: string): Map<string, bigint> {
    let perMarket = this.cashedOut.get(marketHash);
    if (!perMarket) this.cashedOut.set(marketHash, (perMarket = new Map()));
    return perMarket;
  }

  /**
   * A cash out's hedge executed: the bettor is paid at once what its position is owed in every result (outcome one,
   * outcome two, a void), less what refunds and earlier cash outs paid and the cash-out fee; settlement pays the rest.
   * So every result still pays the position exactly its payout, and escrow covers what is left of it.
   */
  private payCashOut(record: FillRecord, terms: CashOutTerms, at: number): void {
    const { marketHash, taker: bettor } = record;
    const position = this.positions.get(marketHash)!.get(bettor)!;
    const refunded = this.refunded.get(marketHash)?.get(bettor) ?? 0n;
    const perMarket = this.cashedOutIn(marketHash);
    const before = perMarket.get(bettor) ?? 0n;
    const one = position.payout(1);
    const two = position.payout(2);
    const either = one < two ? one : two;
    const every = either < position.stakes() ? either : position.stakes();
    const owed = every - refunded - before;
    const amount = owed > 0n ? owed : 0n;
    const value = either - refunded - before - record.totalTakerStake;
    const fee = cashOutFee(value, amount, terms.feeBps);
    const affiliateFee = affiliatePart(fee, this.affiliate, terms.affiliateShareBps);
    this.wallets.payOut(bettor, marketHash, amount, amount - fee);
    perMarket.set(bettor, before + amount);
    if (fee > 0n) {
      this.wallets.credit(terms.feeAccount, fee - affiliateFee);
      this.log.touch(terms.feeAccount);
      if (affiliateFee > 0n) {
        this.wallets.credit(this.affiliate, affiliateFee);
        this.log.touch(this.affiliate);
      }
    }
    this.log.emit({
      type: 'cashedOut',
      fillHash: record.fillHash,
      marketHash,
      baseToken: record.baseToken,
      bettor,
      hedgeStake: record.totalTakerStake,
      value: value > 0n ? value : 0n,
      amount,
      fee,
      credit: amount - fee,
      feeAccount: terms.feeAccount,
      affiliate: this.affiliate,
      affiliateFee,
      at,
    });
    this.log.touch(bettor);
  }

  /**
   * A trade of an executed fill: its stake goes to escrow and joins the bettor's position; false when its market was
   * reported already, so it settles on its own (outside the refunded positions) instead.
   */
  private tradeConfirmed(t: TradeFacts, at: number): boolean {
    this.wallets.hold(t.bettor, t.marketHash, t.stake);
    const outcome = this.reported.get(t.marketHash);
    if (outcome !== undefined) {
      this.settleLateTrade(t, outcome, at);
      return false;
    }
    this.positionOf(t.marketHash, t.bettor).add(t);
    return true;
  }

  /** Escrow above the position's worst-case loss goes back to the wallet at once. */
  private refundExcessEscrow(marketHash: string, bettor: string, maker: boolean, fillHash: string, baseToken: string, at: number): void {
    // No refunds in a market after a cash out there: the cash out paid what the position is owed in every result.
    if (this.cashedOut.get(marketHash)?.has(bettor) === true || this.cashOutPending(marketHash, bettor)) return;
    const held = this.wallets.escrowIn(bettor, marketHash);
    const needed = this.positionOf(marketHash, bettor).worstCaseLoss();
    if (held <= needed) return;
    const amount = held - needed;
    this.wallets.payOut(bettor, marketHash, amount, amount);
    let perMarket = this.refunded.get(marketHash);
    if (!perMarket) this.refunded.set(marketHash, (perMarket = new Map()));
    perMarket.set(bettor, (perMarket.get(bettor) ?? 0n) + amount);
    const refund = { id: ++this.refundCount, marketHash, baseToken, bettor, maker, fillOrderHash: fillHash, amount, createdAt: at };
    this.log.emit({ type: 'refundPaid', refund });
  }

  /** Records a market's outcome and the fee terms it settles under; false when it was reported already (nothing to do). */
  report(result: MarketResult, fees: FeeTerms | undefined, at: number): boolean {
    if (this.reported.has(result.marketHash)) return false;
    this.reported.set(result.marketHash, result.outcome);
    if (fees) this.feeTerms.set(result.marketHash, fees);
    this.log.emit({ type: 'marketReported', ...result, at });
    return true;
  }

  /** Pays every position of a reported market and forgets them. */
  settleMarket(marketHash: string, at: number): void {
    const outcome = this.reported.get(marketHash)!;
    for (const [bettor, position] of this.positions.get(marketHash) ?? []) {
      const paidEarly = (this.refunded.get(marketHash)?.get(bettor) ?? 0n) + (this.cashedOut.get(marketHash)?.get(bettor) ?? 0n);
      this.settlePosition(marketHash, bettor, position, outcome, paidEarly, at);
    }
    this.positions.delete(marketHash);
    this.refunded.delete(marketHash);
    this.cashedOut.delete(marketHash);
  }

  private positionOf(marketHash: string, bettor: string): Position {
    let perMarket = this.positions.get(marketHash);
    if (!perMarket) this.positions.set(marketHash, (perMarket = new Map()));
    let position = perMarket.get(bettor);
    if (!position) perMarket.set(bettor, (position = new Position()));
    return position;
  }

  /**
   * Pays a bettor's position in a market from escrow: each trade's stake back on void, stake plus the counterparty's
   * stake on a win, less what refunds and cash outs already paid out early (`refunded`) and the fee on the position's
   * net winnings. One change says so; the read side splits it per trade.
   */
  private settlePosition(marketHash: string, bettor: string, position: Position, outcome: Outcome, refunded: bigint, at: number): void {
    const payout = position.payout(outcome);
    if (payout < refunded) throw new Error(`refunds and cash outs of ${bettor} in ${marketHash} exceed its settlement payout`);
    // The fee is at most the profit, and escrow always covers the position's worst loss, so the credit is never negative.
    const terms = this.feeTerms.get(marketHash);
    const fee = terms ? commission(payout, position.stakes(), terms.bps) : 0n;
    this.log.emit({ type: 'positionSettled', marketHash, bettor, outcome, payout, credit: payout - refunded - fee, fee, settleDate: at });
    this.wallets.payOut(bettor, marketHash, position.stakes() - refunded, payout - refunded - fee);
    this.log.touch(bettor);
    if (fee > 0n) this.payFee(marketHash, bettor, fee, terms!, at);
  }

  /** A trade confirmed after its market was reported: no refund touched it, so it is credited its payout less its fee. */
  private settleLateTrade(t: TradeFacts, outcome: Outcome, at: number): void {
    const payout = tradePayout(t, outcome);
    const terms = this.feeTerms.get(t.marketHash);
    const fee = terms ? commission(payout, t.stake, terms.bps) : 0n;
    this.log.emit({ type: 'tradeSettled', tradeId: t.id, outcome, payout, credit: payout - fee, fee, settleDate: at });
    this.wallets.payOut(t.bettor, t.marketHash, t.stake, payout - fee);
    this.log.touch(t.bettor);
    if (fee > 0n) this.payFee(t.marketHash, t.bettor, fee, terms!, at);
  }

  /** A fee taken from a bettor's winnings goes to the fee account, less the affiliate's share. */
  private payFee(marketHash: string, bettor: string, fee: bigint, terms: FeeTerms, at: number): void {
    const affiliateFee = affiliatePart(fee, this.affiliate, terms.affiliateShareBps);
    this.wallets.credit(terms.account, fee - affiliateFee);
    this.log.touch(terms.account);
    if (affiliateFee > 0n) {
      this.wallets.credit(this.affiliate, affiliateFee);
      this.log.touch(this.affiliate);
    }
    this.log.emit({ type: 'feeCharged', marketHash, bettor, fee, feeAccount: terms.account, affiliate: this.affiliate, affiliateFee, at });
  }

  snapshot(): SettlementState {
    return {
      reported: [...this.reported],
      positions: [...this.positions].flatMap(([market, perBettor]) => [...perBettor].map(([bettor, p]) => ({ market, bettor, ...p.totals() }))),
      refunded: [...this.refunded].map(([market, perBettor]) => [market, [...perBettor]] as [string, [string, bigint][]]),
      refundCount: this.refundCount,
      ...(this.feeTerms.size > 0 ? { feeTerms: [...this.feeTerms] } : {}),
      ...(this.cashedOut.size > 0 ? { cashedOut: [...this.cashedOut].map(([market, perBettor]) => [market, [...perBettor]] as [string, [string, bigint][]]) } : {}),
    };
  }

  static from(wallets: Wallets, log: ChangeLog, affiliate: string, state: SettlementState, cashOutPending?: (marketHash: string, bettor: string) => boolean): Settlement {
    const s = new Settlement(wallets, log, affiliate, cashOutPending);
    for (const [market, terms] of state.feeTerms ?? []) s.feeTerms.set(market, terms);
    for (const [market, outcome] of state.reported) s.reported.set(market, outcome);
    for (const p of state.positions) {
      const position = s.positionOf(p.market, p.bettor);
      if ('trades' in p) for (const t of p.trades) position.add(t);
      else position.addTotals(p);
    }
    for (const [market, perBettor] of state.refunded) s.refunded.set(market, new Map(perBettor));
    for (const [market, perBettor] of state.cashedOut ?? []) s.cashedOut.set(market, new Map(perBettor));
    s.refundCount = state.refundCount;
    return s;
  }
}
