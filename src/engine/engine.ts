// The single writer: it dispatches each command to the parts that hold the state and gathers their change records.
// The parts: the orders and their books (order-store.ts), the matching walk (matching.ts), commitments with the
// wallets (commitments.ts), fills waiting for the chain (pending-fills.ts), settlement (settlement.ts), deadlines
// (liveness.ts), replay guards (replay-guards.ts) and market suspensions (market-life.ts).
// No I/O, no clock, no randomness: every input, the time included, arrives on a command, so replaying the
// journal rebuilds exactly the same state. A command either applies whole or throws DomainError and changes nothing.
// Each command returns its typed result and the change records saying what happened; nothing outside this module
// reads the parts, which hold only what trading needs (settled trades and paid fills leave memory).
import { weightedTakerOdds } from '../protocol/amounts.js';
import { quoteHedge, type HedgeQuote } from './cash-out.js';
import { cashOutPosition, checkCashOut, refuseWhileCashOutPending } from './cash-out-checks.js';
import { applyChainEvents } from './chain-events.js';
import { checkReplacement } from './replace-check.js';
import { ChangeLog } from './change-log.js';
import type { Change, ChangeOf } from './changes.js';
import { Commitments } from './commitments.js';
import { DomainError } from './errors.js';
import { feeTermsOf, type FeeTerms } from './fees.js';
import { heartbeatOf, Liveness } from './liveness.js';
import { MarketLife } from './market-life.js';
import { bestMakerOdds, crossesBook, FillWalk, matchFill } from './matching.js';
import { isExpired } from './order-space.js';
import { OrderLifecycle } from './order-lifecycle.js';
import { OrderStore } from './order-store.js';
import { copyFill, factsOf, stateOf, viewOf } from './order-views.js';
import { PendingFills } from './pending-fills.js';
import { PendingFillRecord } from './records.js';
import { ReplayGuards } from './replay-guards.js';
import { Settlement } from './settlement.js';
import { assembleSnapshot, SNAPSHOT_VERSION, type EngineSnapshot } from './snapshot.js';
import { walletsFor } from './wallets/wallets-for.js';
import type {
  AccountRestriction,
  BalanceView,
  ChainExecution,
  Command,
  CommandResult,
  EngineParams,
  FillRecord,
  FillResult,
  FixtureStatusChange,
  MarketLifeStatus,
  MarketRef,
  MarketResult,
  NewOrder,
  Order,
  CommandResults,
  OrderStatusCode,
  OrderView,
  ResultOf,
} from './types.js';

export type { EngineSnapshot } from './snapshot.js';
export { viewOf } from './order-views.js';
export { fillableTakerSpace, freeMakerSpace } from './order-space.js';
export { splitQuarterLine } from './pending-fills.js';

/** What one applied command produced. */
export interface Applied<R extends CommandResult = CommandResult> {
  result: R;
  changes: readonly Change[];
}

/** The ledger as others may see it. */
export interface LedgerView {
  balanceOf(address: string): bigint;
  escrowOf(address: string): bigint;
  escrowIn(address: string, marketHash: string): bigint;
  total(): bigint;
  readonly minted: bigint;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
const NONE = { kind: 'none' } as const;

export class Engine {
  private readonly log = new ChangeLog();
  private readonly orders: OrderStore;
  private readonly commitments: Commitments;
  private readonly fills: PendingFills;
  private readonly settlement: Settlement;
  private readonly liveness: Liveness;
  private readonly guards: ReplayGuards;
  private readonly life: MarketLife;
  private readonly lifecycle: OrderLifecycle;
  /** Last block whose chain events were applied (chain adapters resume after it); -1 before any. */
  private chainBlock: number;
  /** The hash of block `chainBlock` as the chain reported it (undefined before hashes were journaled). */
  private chainBlockHash: string | undefined;
  /** The matching walk's output, reused by every fill. */
  private readonly walk = new FillWalk();
  /** Scratch of confirmFill, cleared per use. */
  private readonly owedScratch = new Map<string, bigint>();

  /** A fresh engine, or (`snap`) one in exactly the state a snapshot recorded. */
  constructor(
    private readonly params: EngineParams,
    snap?: EngineSnapshot,
  ) {
    const wallets = walletsFor(params.walletsOnChain ?? false, snap?.ledger);
    this.orders = snap ? OrderStore.from(snap) : new OrderStore();
    this.commitments = snap ? Commitments.from(wallets, params, snap) : new Commitments(wallets, params);
    this.fills = snap ? PendingFills.from(params, this.log, snap) : new PendingFills(params, this.log);
    const cashOutPending = (marketHash: string, bettor: string) => this.fills.hasCashOut(marketHash, bettor);
    this.settlement = snap
      ? Settlement.from(wallets, this.log, params.affiliate, snap, cashOutPending)
      : new Settlement(wallets, this.log, params.affiliate, cashOutPending);
    this.liveness = snap ? Liveness.from(this.orders, snap) : new Liveness(this.orders);
    this.guards = snap ? ReplayGuards.from(params, snap) : new ReplayGuards(params);
    this.life = MarketLife.from(snap?.life);
    this.lifecycle = new OrderLifecycle(this.orders, this.commitments, this.guards, this.liveness, this.log);
    this.chainBlock = snap?.chainBlock ?? -1;
    this.chainBlockHash = snap?.chainBlockHash;
  }

  // ---- snapshots ------------------------------------------------------------------------------


  /** The whole state as plain data (bigints included; the store encodes them), in the format's field order. */
  snapshot(): EngineSnapshot {
    return assembleSnapshot({
      commitments: this.commitments.snapshot(),
      orders: this.orders.snapshot(),
      fills: this.fills.snapshot(),
      guards: this.guards.snapshot(),
      liveness: this.liveness.snapshot(),
      settlement: this.settlement.snapshot(),
      life: this.life.exportState(),
      chainBlock: this.chainBlock,
      chainBlockHash: this.chainBlockHash,
    });
  }

  /** An engine in exactly the state a snapshot recorded. Throws on a snapshot of another format. */
  static restore(params: EngineParams, snap: EngineSnapshot): Engine {
    if (snap.version !== SNAPSHOT_VERSION) throw new Error(`snapshot format ${String(snap.version)} is not ${SNAPSHOT_VERSION}`);
    return new Engine(params, snap);
  }

  /** Applies one command. Throws DomainError (no state changed) or returns its result and change records. */
  apply<C extends Command>(cmd: C): Applied<ResultOf<C>> {
    const log = this.log;
    log.begin();
    try {
      const result = this.dispatch(cmd) as ResultOf<C>;
      const touched = log.touched;
      for (let i = 0; i < touched.size; i++) this.commitments.emitBalance(log, touched.at(i));
      return { result, changes: log.records() };
    } finally {
      log.end();
    }
  }

  private dispatch(cmd: Command): CommandResult {
    switch (cmd.kind) {
      case 'faucet':
        this.commitments.wallets.mint(cmd.address, cmd.amount);
        this.log.touch(cmd.address);
        return NONE;
      case 'transfer':
        return this.transfer(cmd.from, cmd.to, cmd.amount, cmd.at);
      case 'postOrders':
        return { kind: 'postOrders', statuses: this.postOrders(cmd.orders, cmd.markets, cmd.at) };
      case 'fill':
        return { kind: 'fill', fill: this.fill(cmd) };
      case 'confirmFill':
        this.confirmFill(cmd.fillHash, cmd.at, cmd.chain);
        return NONE;
      case 'fillAttempt':
        this.fills.attempted(cmd.fillHashes, cmd.txHash, cmd.at);
        return NONE;
      case 'chainEvents':
        if (cmd.fromBlock !== undefined && cmd.fromBlock <= this.chainBlock) {
          throw new DomainError('CHAIN_EVENTS_ALREADY_APPLIED', `chain events of blocks ${cmd.fromBlock}-${cmd.toBlock} overlap those applied through block ${this.chainBlock}`);
        }
        this.chainBlock = applyChainEvents(
          { wallets: this.commitments.wallets, settlement: this.settlement, lifecycle: this.lifecycle, log: this.log, confirmFill: (h, at, x) => this.confirmFill(h, at, x) },
          cmd,
        );
        this.chainBlockHash = cmd.toBlockHash;
        return NONE;
      case 'cancelOrders':
      case 'cancelEvent':
      case 'cancelAll': {
        this.guards.checkCancel(cmd.maker, cmd.salt, cmd.timestamp, cmd.at);
        const open =
          cmd.kind === 'cancelAll'
            ? this.orders.maker(cmd.maker)?.all
            : cmd.kind === 'cancelEvent'
              ? this.orders.maker(cmd.maker)?.byEvent.get(cmd.exchangeEventId)
              : undefined;
        const hashes = cmd.kind === 'cancelOrders' ? cmd.orderHashes : [...(open?.keys() ?? [])];
        const cancel = this.lifecycle.cancel(cmd.maker, hashes, cmd.at);
        this.guards.rememberCancel(cmd.maker, cmd.salt, cmd.timestamp, cmd.at);
        return { kind: 'cancel', cancel };
      }
      case 'replaceOrders':
        return this.replaceOrders(cmd);
      case 'heartbeat':
        return { kind: 'heartbeat', heartbeat: this.liveness.heartbeat(this.log, cmd.requestor, cmd.timeoutSeconds, cmd.at) };
      case 'expire':
        this.expire(cmd.at);
        return NONE;
      case 'reportMarkets':
        this.settlement.checkReports(cmd.reports);
        this.setMarketStatus(cmd.suspend ?? [], 'SUSPENDED', cmd.at);
        for (const r of cmd.reports) this.reportMarket(r, feeTermsOf(cmd.fees, r.marketHash), cmd.at);
        if (cmd.finishedFixture) this.setFixtureStatus(cmd.finishedFixture, false, [], cmd.at);
        return NONE;
      case 'setMarketStatus':
        this.settlement.checkNotReported(cmd.marketHashes);
        this.setMarketStatus(cmd.marketHashes, cmd.status, cmd.at);
        return NONE;
      case 'setFixtureStatus':
        this.setFixtureStatus(cmd, cmd.inPlay, cmd.closedInPlay, cmd.at, cmd.lapseInPlay);
        return NONE;
      case 'cancelMarketOrders':
        for (const marketHash of cmd.marketHashes) this.lifecycle.cancelBook(marketHash, 'operator', cmd.at);
        return NONE;
      case 'liftRestriction':
        this.commitments.liftRestriction(this.log, cmd.address);
        return NONE;
    }
  }

  // ---- read access (copies, never the engine's own objects) -------------------------------------

  /** The ledger's balances, read only. */
  get ledger(): LedgerView {
    return this.commitments.wallets;
  }

  order(orderHash: string): OrderView | undefined {
    const o = this.orders.get(orderHash);
    return o && viewOf(o);
  }

  /** A maker's open (ACTIVE or INACTIVE) orders in posting order. */
  openOrdersOf(maker: string): OrderView[] {
    return this.orders.openOf(maker).map(viewOf);
  }

  /** A market's open orders: both sides of its book. */
  openOrdersIn(marketHash: string): OrderView[] {
    return (this.orders.book(marketHash)?.allOrders() ?? []).map(viewOf);
  }

  /** Markets with a book (open orders now or earlier). */
  bookedMarkets(): string[] {
    return this.orders.bookedMarkets();
  }

  openOrderCount(): number {
    return this.orders.openOrderCount();
  }

  /** Lowest maker odds with free space on one side (the best price for a taker), or undefined. */
  bestMakerOdds(marketHash: string, isMakerBettingOutcomeOne: boolean, at = 0): bigint | undefined {
    return bestMakerOdds(this.orders.sideOf(marketHash, isMakerBettingOutcomeOne), at);
  }

  /** Fills waiting for the chain, oldest first. */
  pendingFills(): { fillHash: string; acceptedAt: number }[] {
    return [...this.fills.values()].map((f) => ({ fillHash: f.fillHash, acceptedAt: f.acceptedAt }));
  }

  /** How many fills wait for the chain. */
  get pendingFillCount(): number {
    return this.fills.size;
  }

  /** A fill still waiting for the chain (a copy), with the trades it will record. */
  pendingFill(fillHash: string): FillRecord | undefined {
    const f = this.fills.get(fillHash);
    return f && copyFill(f);
  }

  /** Last block whose chain events were applied: a chain adapter resumes after it. */
  get chainCursor(): number {
    return this.chainBlock;
  }

  /** The hash the chain gave block `chainCursor` when its events were applied, if it was journaled. */
  get chainCursorHash(): string | undefined {
    return this.chainBlockHash;
  }

  heartbeatCount(): number {
    return this.liveness.heartbeatCount;
  }

  /** The earliest time at which `expire` would change something, for the runner's timer. */
  nextExpiryAt(): number | undefined {
    return this.liveness.nextExpiryAt();
  }

  /** Sizes of the engine's state, for metrics and tests that check a refused command changed nothing. */
  stats() {
    return {
      orders: this.orders.size,
      books: this.orders.bookCount,
      pendingFills: this.fills.size,
      usedFills: this.guards.fillCount,
      recentFills: this.guards.recentFillCount,
      closedOrders: this.guards.closedOrderCount,
      queuedClosedOrderExpiries: this.guards.queuedClosedOrderExpiries,
      trades: this.fills.tradeCount,
      refunds: this.settlement.refunds,
      heartbeats: this.liveness.heartbeatCount,
      queuedExpiries: this.liveness.queuedExpiries,
      restrictions: this.commitments.restrictionCount,
      reported: this.settlement.reportedCount,
      minted: this.commitments.wallets.minted.toString(),
    };
  }

  /**
   * What cashing out the bettor's position in a market would take from the book now: the hedge fill and the value it
   * leaves. Refused when there is no position, when refunds were paid on it (no cash out after a refund), when it
   * is already flat, while a cash out of it waits for the chain, or when the book cannot hedge it (with `partial`:
   * when it hedges none of it; part of it is then quoted as such). Reads only.
   */
  cashOutQuote(marketHash: string, bettor: string, at: number, partial = false): HedgeQuote {
    const { held, hedge } = cashOutPosition(this.settlement, marketHash, bettor);
    refuseWhileCashOutPending(this.fills, marketHash, bettor);
    return quoteHedge(held.totals, this.orders.sideOf(marketHash, !hedge.isTakerBettingOutcomeOne), bettor, at, held.cashedOut, partial);
  }

  /** Bettors holding confirmed, unsettled trades in a market. */
  bettorsIn(marketHash: string): string[] {
    return this.settlement.bettorsIn(marketHash);
  }

  isReported(marketHash: string): boolean {
    return this.settlement.isReported(marketHash);
  }

  restrictionOf(address: string): AccountRestriction | undefined {
    return this.commitments.restrictionOf(address);
  }

  isRestricted(address: string, at: number): boolean {
    return this.commitments.isRestricted(address, at);
  }

  /** Every account's restriction record (seeding a read side that did not keep them). */
  restrictionRecords(): AccountRestriction[] {
    return this.commitments.snapshot().restrictions;
  }

  balances(address: string): BalanceView {
    const wallets = this.commitments.wallets;
    return {
      balance: wallets.balanceOf(address),
      escrowed: wallets.escrowOf(address),
      openExposure: this.exposureOf(address),
      pendingTakerStake: this.pendingTakerStakeOf(address),
    };
  }

  /** Every address's balance record (seeding a read side that did not keep them). */
  *balanceRecords(): Generator<[string, BalanceView]> {
    for (const address of this.commitments.holders()) yield [address, this.balances(address)];
  }

  exposureOf(address: string): bigint {
    return this.commitments.exposureOf(address);
  }

  pendingTakerStakeOf(address: string): bigint {
    return this.commitments.pendingTakerStakeOf(address);
  }

  /** Wallet balance not yet committed to open orders or pending taker stakes. */
  freeBalance(address: string): bigint {
    return this.commitments.freeBalance(address);
  }

  /** What the account may stake as a taker: its open orders do not count against it. */
  takerFunds(address: string): bigint {
    return this.commitments.takerFunds(address);
  }

  // ---- balances -------------------------------------------------------------------------------

  private transfer(from: string, to: string, amount: bigint, at: number): CommandResult {
    const wallets = this.commitments.wallets;
    if (wallets.balanceOf(from) < amount) {
      throw new DomainError('INSUFFICIENT_BALANCE', `${from} holds less than ${amount}`);
    }
    wallets.transfer(from, to, amount);
    this.log.touch(from);
    this.log.touch(to);
    this.lifecycle.enforceExposure(from, at);
    return NONE;
  }

  // ---- orders ---------------------------------------------------------------------------------

  // Plain loops on this path: a closure per call costs an allocation (and a name definition under tsx).
  private postOrders(orders: readonly NewOrder[], markets: readonly MarketRef[], at: number) {
    this.checkMayPost(orders, at);
    this.guards.forgetExpiredClosedOrders(at);
    // One market (the common case) needs no index.
    const marketByHash = markets.length > 1 ? new Map(markets.map((m) => [m.marketHash, m])) : undefined;
    const statuses: { orderHash: string; status: OrderStatusCode }[] = [];
    for (const n of orders) {
      const market = marketByHash ? marketByHash.get(n.marketHash) : markets[0]?.marketHash === n.marketHash ? markets[0] : undefined;
      statuses.push({ orderHash: n.orderHash, status: this.postOrder(n, market, at) });
    }
    return statuses;
  }

  /** Refusals of a whole batch of new orders: a restricted maker, an expired order. Changes nothing. */
  private checkMayPost(orders: readonly NewOrder[], at: number): void {
    for (const o of orders) {
      if (!this.commitments.isRestricted(o.maker, at)) continue;
      const until = new Date(this.commitments.restrictionOf(o.maker)!.restrictedUntil!).toISOString();
      throw new DomainError('ACCOUNT_RESTRICTED', `${o.maker} may not post orders until ${until} after repeated balance shortfalls`);
    }
    for (const o of orders) if (isExpired(o, at)) throw new DomainError('ORDER_EXPIRED', `order ${o.orderHash} is past its expiry`);
  }

  /** Whether a market takes new orders now. */
  private takesOrders(market: MarketRef | undefined): market is MarketRef {
    return market !== undefined && market.tradeable && !this.settlement.isReported(market.marketHash) && !this.life.refuses(market);
  }

  /** A cancel and new orders in one step, all or nothing: refused before anything changes (replace-check.ts). */
  private replaceOrders(cmd: Extract<Command, { kind: 'replaceOrders' }>): CommandResults['replaceOrders'] {
    const { maker, at } = cmd;
    this.guards.checkCancel(maker, cmd.salt, cmd.timestamp, at);
    this.checkMayPost(cmd.orders, at);
    checkReplacement(
      { orders: this.orders, guards: this.guards, lifecycle: this.lifecycle, freeBalance: (a) => this.freeBalance(a), takesOrders: (m) => this.takesOrders(m) },
      cmd,
    );

    const cancel = this.lifecycle.cancel(maker, cmd.orderHashes, at);
    this.guards.rememberCancel(maker, cmd.salt, cmd.timestamp, at);
    const statuses = this.postOrders(cmd.orders, cmd.markets, at);
    // The checks above are postOrder's own: a disagreement is a bug, never a refusal to answer.
    const failed = statuses.find((s) => s.status !== 'OK');
    if (failed) throw new Error(`replace: order ${failed.orderHash} was checked OK but posted ${failed.status}`);
    return { kind: 'replaceOrders', cancel, statuses };
  }

  private postOrder(n: NewOrder, market: MarketRef | undefined, at: number): OrderStatusCode {
    if (!this.takesOrders(market)) return 'INVALID_MARKET';
    if (this.orders.has(n.orderHash) || this.guards.isClosedOrder(n.orderHash)) return 'ORDERS_ALREADY_EXIST';
    if (this.freeBalance(n.maker) < n.totalBetSize) return 'INSUFFICIENT_BALANCE';
    // Makers on opposite outcomes whose odds sum past 100% would cross: reject rather than rest a crossed book.
    if (crossesBook(this.orders.sideOf(n.marketHash, !n.isMakerBettingOutcomeOne), n.percentageOdds, at)) return 'ORDER_WOULD_CROSS';
    const order = this.orders.post(n, market, at, this.params.baseToken);
    this.liveness.orderPosted(order);
    this.commitments.addExposure(order.maker, order.totalBetSize);
    this.log.emit({ type: 'orderAdded', order: factsOf(order), state: stateOf(order) });
    this.log.touch(order.maker);
    return 'OK';
  }

  // ---- fills ----------------------------------------------------------------------------------

  private fill(cmd: Extract<Command, { kind: 'fill' }>): FillResult {
    const { market, taker, at } = cmd;
    if (this.guards.isFillKnown(cmd.fillSalt, cmd.fillHash)) throw new DomainError('FILL_ALREADY_SUBMITTED');
    if (!market.tradeable || this.settlement.isReported(market.marketHash) || this.life.refuses(market)) {
      throw new DomainError('MARKET_NOT_TRADEABLE');
    }
    if (cmd.cashOut) checkCashOut(this.settlement, this.fills, cmd, undefined);
    // Without slippage the bound is the desired odds themselves (d * 100 / 100): no bigint arithmetic.
    const minTakerOdds = cmd.oddsSlippage === 0 ? cmd.desiredOdds : (cmd.desiredOdds * BigInt(100 - cmd.oddsSlippage)) / 100n;
    // Reads only: a refused fill must not even create an empty book.
    const side = this.orders.sideOf(market.marketHash, !cmd.isTakerBettingOutcomeOne);
    const walk = matchFill(side, taker, cmd.stakeWei, minTakerOdds, at, this.walk);
    if (walk.matches.length === 0) throw new DomainError(walk.sawLiquidity ? 'INVALID_ODDS_SLIPPAGE' : 'INSUFFICIENT_SPACE');
    const remaining = walk.remaining;
    const totalTakerStake = cmd.stakeWei - remaining;
    // Checked before anything changes, so a refused fill leaves the book and balances as they were.
    if (cmd.fillOrKill && remaining > 0n) {
      throw new DomainError('FILL_OR_KILL_NOT_FILLED', `the book fills ${totalTakerStake} of a stake of ${cmd.stakeWei}`);
    }
    if (cmd.minStakeWei !== undefined && totalTakerStake < cmd.minStakeWei) {
      throw new DomainError('FILL_BELOW_MIN_STAKE', `the book fills ${totalTakerStake}, below minStakeWei ${cmd.minStakeWei}`);
    }
    // The taker's own open orders do not refuse its bet: they leave the book after it if the balance no longer
    // covers them (spec 4.16's exposure rule).
    if (this.takerFunds(taker) < totalTakerStake) {
      throw new DomainError('INSUFFICIENT_BALANCE', `${taker} cannot cover a stake of ${totalTakerStake}`);
    }
    if (cmd.cashOut) {
      let returned = 0n;
      for (const m of walk.matches) returned += m.takerStake + m.makerStake;
      checkCashOut(this.settlement, this.fills, cmd, returned);
    }

    const matches = walk.matches.slice();
    const matched = walk.orders;
    const record = new PendingFillRecord(
      cmd.fillHash,
      taker,
      market.marketHash,
      cmd.baseToken,
      cmd.isTakerBettingOutcomeOne,
      cmd.fillSalt,
      at,
      matches,
      totalTakerStake,
    );
    // Assigned, not spread into the literal: a spread copies through the runtime's generic path.
    if (cmd.signed) record.signed = cmd.signed;
    if (cmd.cashOut) record.cashOut = cmd.cashOut;
    this.log.emit({
      type: 'fillAccepted',
      fillHash: record.fillHash,
      fillSalt: record.fillSalt,
      taker,
      marketHash: market.marketHash,
      acceptedAt: at,
      totalTakerStake,
      // Shared with the record, which never changes its matches once built.
      matches,
    });
    this.fills.beginTrades();
    for (let i = 0; i < matches.length; i++) {
      const m = matches[i]!;
      const o = matched[i]!;
      this.lifecycle.reserve(o, cmd.fillHash, m.makerStake, at);
      this.fills.recordTrades(record, o, m, market, at);
    }
    walk.reset(0n);
    this.fills.add(record);
    this.guards.rememberFill(record.fillHash, cmd.fillSalt);
    this.commitments.addPendingTakerStake(taker, totalTakerStake);
    this.lifecycle.enforceExposure(taker, at, true);
    this.log.touch(taker);
    return {
      fillHash: record.fillHash,
      isPartialFill: remaining > 0n,
      totalFilled: totalTakerStake,
      averageOdds: weightedTakerOdds(matches),
    };
  }

  /**
   * The chain executes the fill: both sides' stakes move to escrow, or the fill fails and frees its space.
   * The local chain decides by the ledger's balances; an on-chain settlement reports what happened.
   */
  private confirmFill(fillHash: string, at: number, chain?: ChainExecution): void {
    const record = this.fills.get(fillHash);
    if (!record) return;
    const owed = this.owedScratch;
    owed.clear();
    owed.set(record.taker, record.totalTakerStake);
    for (const m of record.matches) owed.set(m.maker, (owed.get(m.maker) ?? 0n) + m.makerStake);
    const funded = this.commitments.wallets.executes(owed, chain);
    record.status = funded ? 'SUCCESS' : 'FAILED';
    if (chain?.txHash !== undefined) record.txHash = chain.txHash;
    if (chain?.reason !== undefined) record.failureReason = chain.reason;
    this.fills.remove(fillHash);
    const executed: Mutable<ChangeOf<'fillExecuted'>> = { type: 'fillExecuted', fillHash, status: record.status, at };
    if (record.txHash !== undefined) executed.txHash = record.txHash;
    if (record.failureReason !== undefined) executed.failureReason = record.failureReason;
    // The fill has left the pending records: its attempts change no more.
    if (record.attempts !== undefined) {
      executed.attempts = record.attempts;
      executed.lastAttemptAt = record.lastAttemptAt!;
    }
    this.log.emit(executed);

    for (const m of record.matches) this.lifecycle.release(this.orders.get(m.orderHash)!, fillHash, m.makerStake, funded, at);
    this.commitments.addPendingTakerStake(record.taker, -record.totalTakerStake);
    this.settlement.fillExecuted(record, funded, at);
    for (const address of owed.keys()) this.log.touch(address);
  }

  // ---- cancels and expiry ------------------------------------------------------------------------

  /** Deadlines due: a lapsed heartbeat cancels its requestor's open orders, an expired order closes. */
  private expire(at: number): void {
    for (let key = this.liveness.nextDue(at); key !== undefined; key = this.liveness.nextDue(at)) {
      const requestor = heartbeatOf(key);
      if (requestor !== undefined) {
        this.liveness.heartbeatExpired(this.log, requestor, at);
        this.lifecycle.cancelAllOf(requestor, at);
      } else {
        this.lifecycle.setStatus(this.orders.get(key)!, 'EXPIRED', at);
      }
    }
  }

  // ---- market life and settlement -----------------------------------------------------------------

  /** Every listed market gets the status (recorded even when unchanged, so the catalogue's copy always follows). */
  private setMarketStatus(marketHashes: readonly string[], status: MarketLifeStatus, at: number): void {
    for (const marketHash of marketHashes) {
      if (this.settlement.isReported(marketHash)) continue;
      this.life.setSuspended(marketHash, status === 'SUSPENDED');
      this.log.emit({ type: 'marketStatusChanged', marketHash, status, at });
    }
  }

  private setFixtureStatus(change: FixtureStatusChange, inPlay: boolean, closedInPlay: readonly string[], at: number, lapseInPlay: readonly string[] = []): void {
    this.life.setInPlay(change.exchangeEventId, inPlay);
    this.log.emit({ type: 'fixtureStatusChanged', exchangeEventId: change.exchangeEventId, status: change.status, at });
    if (!inPlay) return;
    // Kick-off: quotes on markets closed in play go at once, and on the others every order not asking to persist.
    for (const marketHash of closedInPlay) this.lifecycle.cancelBook(marketHash, 'kick_off', at);
    for (const marketHash of lapseInPlay) this.lifecycle.cancelBook(marketHash, 'kick_off', at, persists);
  }

  /** The outcome closes the market's book and pays its positions from escrow. */
  private reportMarket(result: MarketResult, fees: FeeTerms | undefined, at: number): void {
    if (!this.settlement.report(result, fees, at)) return;
    this.life.forget(result.marketHash);
    this.lifecycle.cancelBook(result.marketHash, 'market_reported', at);
    this.settlement.settleMarket(result.marketHash, at);
    this.orders.dropBook(result.marketHash);
  }
}

/** An order that stays on its book when its fixture goes live. */
const persists = (o: Order) => o.persistence === 'PERSIST';
