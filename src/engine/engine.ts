// The single writer: books, matching, balances and exposure, heartbeats, settlement.
// No I/O, no clock, no randomness: every input, the time included, arrives on a command, so replaying the
// journal rebuilds exactly the same state. A command either applies whole or throws EngineRejection and changes nothing.
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { LocalLedger } from '../chain/local-ledger.js';
import { makerSpaceForTakerStake, remainingTakerSpace, weightedTakerOdds } from '../protocol/amounts.js';
import { ODDS_SCALE } from '../protocol/odds.js';
import { MarketBook } from './book.js';
import { worstCaseLoss, type RefundEvent } from './refunds.js';
import { ExpiryQueue } from './expiry-queue.js';
import {
  EngineRejection,
  type CancelResult,
  type Command,
  type EngineEvents,
  type EngineParams,
  type AccountRestriction,
  type ChainExecution,
  type FillRecord,
  type FillResult,
  type Heartbeat,
  type MarketRef,
  type NewOrder,
  type Order,
  type OrderStatusCode,
  type Outcome,
  type Trade,
} from './types.js';

const isOpen = (o: Order) => o.status === 'ACTIVE' || o.status === 'INACTIVE';
/** Maker space still free to match: not filled and not reserved by a pending fill. */
export const freeMakerSpace = (o: Order) => o.totalBetSize - o.fillAmount - o.pendingFillAmount;
/**
 * Taker stake an order can still take. Zero once the rest is dust that would match no maker wei
 * (e.g. 1 wei left at 45%), so such an order counts as exhausted instead of blocking its side of the book.
 */
export function fillableTakerSpace(o: Order): bigint {
  const space = remainingTakerSpace(freeMakerSpace(o), o.percentageOdds);
  return makerSpaceForTakerStake(space, o.percentageOdds) > 0n ? space : 0n;
}
/** What an order commits of its maker's balance: the unfilled size while open, the pending fills once closed. */
const orderExposure = (o: Order) => (isOpen(o) ? o.totalBetSize - o.fillAmount : o.pendingFillAmount);
const isExpired = (o: Order, at: number) => o.apiExpiry * 1000 <= at || o.expiry * 1000 <= at;
const ZERO = '0x0000000000000000000000000000000000000000';
const hashText = (text: string) => '0x' + bytesToHex(keccak_256(utf8ToBytes(text)));

export interface HeartbeatResult {
  requestor: string;
  timeoutSeconds: number;
  expiresAt: number | null;
}

export type CommandResult =
  | { kind: 'postOrders'; statuses: { orderHash: string; status: OrderStatusCode }[] }
  | { kind: 'fill'; fill: FillResult }
  | { kind: 'cancel'; cancel: CancelResult }
  | { kind: 'heartbeat'; heartbeat: HeartbeatResult }
  | { kind: 'none' };

export class Engine {
  readonly ledger = new LocalLedger();
  readonly orders = new Map<string, Order>();
  readonly books = new Map<string, MarketBook>();
  /** Orders per maker, all statuses, in posting order. */
  readonly ordersByMaker = new Map<string, Order[]>();
  readonly trades: Trade[] = [];
  readonly tradesById = new Map<string, Trade>();
  readonly fills = new Map<string, FillRecord>();
  readonly heartbeats = new Map<string, Heartbeat>();
  readonly reported = new Map<string, Outcome>();
  /** Confirmed, unsettled trades per market and bettor: what escrow must cover. */
  readonly positions = new Map<string, Map<string, Trade[]>>();
  readonly refunds: RefundEvent[] = [];
  /** Refunded wei per market and bettor, netted at settlement. */
  readonly refunded = new Map<string, Map<string, bigint>>();
  /** Base-token wei matched per market (both sides), counted when fills confirm. */
  readonly matchedVolume = new Map<string, bigint>();
  readonly restrictions = new Map<string, AccountRestriction>();
  /** Order expiries (key: order hash) and heartbeat deadlines (key: "hb:" + address). */
  private readonly expiries = new ExpiryQueue();
  private readonly exposure = new Map<string, bigint>();
  private readonly pendingTakerStake = new Map<string, bigint>();
  private readonly usedFillSalts = new Set<string>();
  /** maker:salt -> the cancel's signed timestamp (ms), kept while a replay could still pass the timestamp check. */
  private readonly cancelSalts = new Map<string, number>();
  /**
   * Newest signed timestamp (ms) among forgotten cancel salts: nothing signed at or before it is accepted again,
   * so a forgotten salt stays refused even if the server clock later moves back.
   */
  private forgottenCancelsUpTo = -Infinity;
  private seq = 0;
  private events: EngineEvents = Engine.noEvents();

  constructor(readonly params: EngineParams) {}

  static noEvents(): EngineEvents {
    return { orders: new Set(), trades: new Set(), books: new Set(), accounts: new Set(), refunds: new Set(), submittedFills: [] };
  }

  /** Applies one command. Throws EngineRejection (no state changed) or returns the result and what changed. */
  apply(cmd: Command): { result: CommandResult; events: EngineEvents } {
    this.events = Engine.noEvents();
    const result = this.dispatch(cmd);
    const events = this.events;
    this.events = Engine.noEvents();
    return { result, events };
  }

  private dispatch(cmd: Command): CommandResult {
    switch (cmd.kind) {
      case 'faucet':
        this.ledger.mint(cmd.address, cmd.amount);
        this.events.accounts.add(cmd.address);
        return { kind: 'none' };
      case 'transfer':
        return this.transfer(cmd.from, cmd.to, cmd.amount, cmd.at);
      case 'postOrders':
        return { kind: 'postOrders', statuses: this.postOrders(cmd.orders, cmd.markets, cmd.at) };
      case 'fill':
        return { kind: 'fill', fill: this.fill(cmd) };
      case 'confirmFill':
        this.confirmFill(cmd.fillHash, cmd.at, cmd.chain);
        return { kind: 'none' };
      case 'fillAttempt':
        for (const fillHash of cmd.fillHashes) {
          const record = this.fills.get(fillHash);
          if (!record || record.status !== 'PENDING') continue;
          (record.attempts ??= []).push(cmd.txHash);
          record.lastAttemptAt = cmd.at;
          for (const id of record.tradeIds) this.events.trades.add(id);
        }
        return { kind: 'none' };
      case 'chainEvents':
        this.applyChainEvents(cmd);
        return { kind: 'none' };
      case 'cancelOrders':
      case 'cancelEvent':
      case 'cancelAll': {
        this.checkCancelReplay(cmd.maker, cmd.salt, cmd.timestamp, cmd.at);
        const hashes =
          cmd.kind === 'cancelOrders'
            ? cmd.orderHashes
            : (this.ordersByMaker.get(cmd.maker) ?? [])
                .filter((o) => isOpen(o) && (cmd.kind === 'cancelAll' || o.exchangeEventId === cmd.exchangeEventId))
                .map((o) => o.orderHash);
        const cancel = this.cancelOrders(cmd.maker, hashes, cmd.at);
        this.cancelSalts.set(`${cmd.maker}:${cmd.salt}`, cmd.timestamp * 1000);
        return { kind: 'cancel', cancel };
      }
      case 'heartbeat':
        return { kind: 'heartbeat', heartbeat: this.heartbeat(cmd.requestor, cmd.timeoutSeconds, cmd.at) };
      case 'expire':
        this.expire(cmd.at);
        return { kind: 'none' };
      case 'reportMarkets':
        for (const r of cmd.reports) this.reportMarket(r.marketHash, r.outcome, cmd.at);
        return { kind: 'none' };
      case 'cancelMarketOrders':
        for (const marketHash of cmd.marketHashes) this.cancelBook(marketHash, cmd.at);
        return { kind: 'none' };
      case 'liftRestriction':
        this.restrictions.delete(cmd.address);
        return { kind: 'none' };
    }
  }

  // ---- balances -------------------------------------------------------------------------------

  exposureOf(address: string): bigint {
    return this.exposure.get(address) ?? 0n;
  }

  pendingTakerStakeOf(address: string): bigint {
    return this.pendingTakerStake.get(address) ?? 0n;
  }

  /** Wallet balance not yet committed to open orders or pending taker stakes. */
  freeBalance(address: string): bigint {
    return this.ledger.spendable(address) - this.exposureOf(address) - this.pendingTakerStakeOf(address);
  }

  /** Last block whose token events were applied (chain adapters resume after it). */
  chainCursor = -1;

  /** Wallet balances and allowances moved on chain; a shortfall takes the newest orders off the book. */
  private applyChainEvents(cmd: Extract<Command, { kind: 'chainEvents' }>): void {
    const touched = new Set<string>();
    for (const t of cmd.transfers) {
      if (t.from !== ZERO) this.ledger.applyChainDelta(t.from, -t.amount);
      if (t.to !== ZERO) this.ledger.applyChainDelta(t.to, t.amount);
      touched.add(t.from).add(t.to);
    }
    for (const a of cmd.approvals) {
      this.ledger.setAllowance(a.owner, a.amount);
      touched.add(a.owner);
    }
    touched.delete(ZERO);
    for (const address of touched) {
      this.events.accounts.add(address);
      this.enforceExposure(address, cmd.at);
    }
    this.chainCursor = cmd.toBlock;
  }

  private addTo(map: Map<string, bigint>, key: string, delta: bigint): void {
    const next = (map.get(key) ?? 0n) + delta;
    if (next === 0n) map.delete(key);
    else map.set(key, next);
  }

  /** Every order mutation goes through here so exposure, the book and the change set stay in step. */
  private updateOrder(o: Order, at: number, change: () => void): void {
    const wasOpen = isOpen(o);
    const before = orderExposure(o);
    change();
    o.updatedAt = at;
    this.addTo(this.exposure, o.maker, orderExposure(o) - before);
    if (wasOpen && !isOpen(o)) this.bookOf(o.marketHash).side(o.isMakerBettingOutcomeOne).remove(o);
    this.events.orders.add(o.orderHash);
    this.events.books.add(o.marketHash);
    this.events.accounts.add(o.maker);
  }

  private transfer(from: string, to: string, amount: bigint, at: number): CommandResult {
    if (this.ledger.balanceOf(from) < amount) {
      throw new EngineRejection(400, 'INSUFFICIENT_BALANCE', `${from} holds less than ${amount}`);
    }
    this.ledger.transfer(from, to, amount);
    this.events.accounts.add(from).add(to);
    this.enforceExposure(from, at);
    return { kind: 'none' };
  }

  /** When a balance no longer covers the open orders, the newest orders leave the book until it does. */
  private enforceExposure(address: string, at: number): void {
    const orders = this.ordersByMaker.get(address) ?? [];
    let removed = 0;
    for (let i = orders.length - 1; i >= 0 && this.freeBalance(address) < 0n; i--) {
      const o = orders[i]!;
      if (!isOpen(o)) continue;
      this.updateOrder(o, at, () => (o.status = 'CANCELLED'));
      removed++;
    }
    if (removed > 0) this.recordShortfall(address, at);
  }

  /** Repeated shortfalls within the window restrict the account from posting for a while. */
  private recordShortfall(address: string, at: number): void {
    const p = this.params;
    const r = this.restrictions.get(address) ?? { address, shortfalls: [], restrictedUntil: null };
    r.shortfalls = [...r.shortfalls.filter((t) => t > at - p.restrictionWindowMs), at];
    if (r.shortfalls.length >= p.restrictionThreshold) r.restrictedUntil = at + p.restrictionMs;
    this.restrictions.set(address, r);
  }

  isRestricted(address: string, at: number): boolean {
    const until = this.restrictions.get(address)?.restrictedUntil;
    return until != null && until > at;
  }

  // ---- orders ---------------------------------------------------------------------------------

  bookOf(marketHash: string): MarketBook {
    let book = this.books.get(marketHash);
    if (!book) this.books.set(marketHash, (book = new MarketBook()));
    return book;
  }

  /** Lowest maker odds with free space on one side (the best price for a taker), or undefined. */
  bestMakerOdds(marketHash: string, isMakerBettingOutcomeOne: boolean, at = 0): bigint | undefined {
    const side = this.books.get(marketHash)?.side(isMakerBettingOutcomeOne);
    if (!side) return undefined;
    for (const o of side) {
      if (!isExpired(o, at) && fillableTakerSpace(o) > 0n) return o.percentageOdds;
    }
    return undefined;
  }

  private postOrders(orders: NewOrder[], markets: MarketRef[], at: number) {
    const restricted = orders.find((o) => this.isRestricted(o.maker, at));
    if (restricted) {
      const until = new Date(this.restrictions.get(restricted.maker)!.restrictedUntil!).toISOString();
      throw new EngineRejection(403, 'ACCOUNT_RESTRICTED', `${restricted.maker} may not post orders until ${until} after repeated balance shortfalls`);
    }
    const marketByHash = new Map(markets.map((m) => [m.marketHash, m]));
    return orders.map((n) => ({ orderHash: n.orderHash, status: this.postOrder(n, marketByHash.get(n.marketHash), at) }));
  }

  private postOrder(n: NewOrder, market: MarketRef | undefined, at: number): OrderStatusCode {
    if (!market || !market.tradeable || this.reported.has(n.marketHash)) return 'INVALID_MARKET';
    if (this.orders.has(n.orderHash)) return 'ORDERS_ALREADY_EXIST';
    if (this.freeBalance(n.maker) < n.totalBetSize) return 'INSUFFICIENT_BALANCE';
    // Makers on opposite outcomes whose odds sum past 100% would cross: reject rather than rest a crossed book.
    const opposite = this.highestMakerOdds(n.marketHash, !n.isMakerBettingOutcomeOne, at);
    if (opposite !== undefined && opposite + n.percentageOdds > ODDS_SCALE) return 'ORDER_WOULD_CROSS';
    const order: Order = {
      ...n,
      exchangeEventId: market.exchangeEventId,
      fillAmount: 0n,
      pendingFillAmount: 0n,
      status: 'ACTIVE',
      seq: ++this.seq,
      createdAt: at,
      updatedAt: at,
      pendingFills: new Map(),
    };
    this.orders.set(order.orderHash, order);
    let byMaker = this.ordersByMaker.get(order.maker);
    if (!byMaker) this.ordersByMaker.set(order.maker, (byMaker = []));
    byMaker.push(order);
    this.bookOf(order.marketHash).side(order.isMakerBettingOutcomeOne).insert(order);
    this.expiries.push(Math.min(order.apiExpiry, order.expiry) * 1000, order.orderHash);
    this.addTo(this.exposure, order.maker, order.totalBetSize);
    this.events.orders.add(order.orderHash);
    this.events.books.add(order.marketHash);
    this.events.accounts.add(order.maker);
    return 'OK';
  }

  /** Highest maker odds with free space on a side: the side's most aggressive maker, used for the cross check. */
  private highestMakerOdds(marketHash: string, isMakerBettingOutcomeOne: boolean, at: number): bigint | undefined {
    const side = this.books.get(marketHash)?.side(isMakerBettingOutcomeOne);
    for (const o of side?.worstFirst() ?? []) {
      if (!isExpired(o, at) && fillableTakerSpace(o) > 0n) return o.percentageOdds;
    }
    return undefined;
  }

  // ---- fills ----------------------------------------------------------------------------------

  private fill(cmd: Extract<Command, { kind: 'fill' }>): FillResult {
    const { market, taker, at } = cmd;
    if (this.usedFillSalts.has(cmd.fillSalt) || this.fills.has(cmd.fillHash)) {
      throw new EngineRejection(409, 'FILL_ALREADY_SUBMITTED', 'this fillSalt was already used');
    }
    if (!market.tradeable || this.reported.has(market.marketHash)) {
      throw new EngineRejection(400, 'MARKET_NOT_TRADEABLE', 'the market is not open for trading');
    }
    const minTakerOdds = (cmd.desiredOdds * BigInt(100 - cmd.oddsSlippage)) / 100n;
    const side = this.bookOf(market.marketHash).side(!cmd.isTakerBettingOutcomeOne);
    const matches: FillRecord['matches'] = [];
    let remaining = cmd.stakeWei;
    let sawLiquidity = false;
    for (const o of side) {
      if (o.maker === taker || isExpired(o, at)) continue;
      const takerSpace = fillableTakerSpace(o);
      if (takerSpace === 0n) continue;
      sawLiquidity = true;
      // Sorted best first: once an order is worse than the slippage bound, so is every later one.
      if (ODDS_SCALE - o.percentageOdds < minTakerOdds) break;
      const takerStake = remaining < takerSpace ? remaining : takerSpace;
      const makerStake = makerSpaceForTakerStake(takerStake, o.percentageOdds);
      // What is left of the taker's stake is dust that buys no maker wei: the fill is done.
      if (makerStake === 0n) break;
      matches.push({ orderHash: o.orderHash, maker: o.maker, makerStake, takerStake, odds: o.percentageOdds });
      remaining -= takerStake;
      if (remaining === 0n) break;
    }
    if (matches.length === 0) {
      throw sawLiquidity
        ? new EngineRejection(400, 'INVALID_ODDS_SLIPPAGE', 'no order is within desiredOdds and oddsSlippage')
        : new EngineRejection(400, 'INSUFFICIENT_SPACE', 'no order is available to fill');
    }
    const totalTakerStake = cmd.stakeWei - remaining;
    if (this.freeBalance(taker) < totalTakerStake) {
      throw new EngineRejection(400, 'INSUFFICIENT_BALANCE', `${taker} cannot cover a stake of ${totalTakerStake}`);
    }

    const record: FillRecord = {
      fillHash: cmd.fillHash,
      taker,
      marketHash: market.marketHash,
      baseToken: cmd.baseToken,
      isTakerBettingOutcomeOne: cmd.isTakerBettingOutcomeOne,
      fillSalt: cmd.fillSalt,
      status: 'PENDING',
      acceptedAt: at,
      matches,
      tradeIds: [],
      totalTakerStake,
      ...(cmd.signed ? { signed: cmd.signed } : {}),
    };
    for (const m of matches) {
      const o = this.orders.get(m.orderHash)!;
      this.updateOrder(o, at, () => {
        o.pendingFillAmount += m.makerStake;
        o.pendingFills.set(cmd.fillHash, m.makerStake);
        if (fillableTakerSpace(o) === 0n) o.status = 'INACTIVE';
      });
      this.recordTrades(record, o, m, market, at);
    }
    this.fills.set(record.fillHash, record);
    this.usedFillSalts.add(cmd.fillSalt);
    this.addTo(this.pendingTakerStake, taker, totalTakerStake);
    this.events.accounts.add(taker);
    this.events.submittedFills.push(record.fillHash);
    return {
      fillHash: record.fillHash,
      isPartialFill: remaining > 0n,
      totalFilled: totalTakerStake,
      averageOdds: weightedTakerOdds(matches.map((m) => ({ takerStake: m.takerStake, makerOdds: m.odds }))),
    };
  }

  /** A matched pair yields a maker and a taker trade; on a quarter line, one pair per leg at half stake each. */
  private recordTrades(record: FillRecord, o: Order, m: FillRecord['matches'][number], market: MarketRef, at: number): void {
    const legs = market.legs
      ? splitQuarterLine(market.legs, m.makerStake, m.takerStake)
      : [{ marketHash: market.marketHash, makerStake: m.makerStake, takerStake: m.takerStake }];
    for (const leg of legs) {
      const common = {
        fillHash: record.fillHash,
        orderHash: o.orderHash,
        marketHash: leg.marketHash,
        ...(market.legs ? { quarterLineParentMarketHash: market.marketHash } : {}),
        exchangeEventId: market.exchangeEventId,
        baseToken: o.baseToken,
        status: 'PENDING' as const,
        betTime: at,
        updatedAt: at,
        affiliate: this.params.affiliate,
        settled: false,
      };
      const makerTrade: Trade = {
        ...common,
        id: String(this.trades.length + 1),
        bettor: o.maker,
        counterparty: record.taker,
        maker: true,
        bettingOutcomeOne: o.isMakerBettingOutcomeOne,
        stake: leg.makerStake,
        counterStake: leg.takerStake,
        odds: o.percentageOdds,
      };
      this.addTrade(record, makerTrade);
      const takerTrade: Trade = {
        ...common,
        id: String(this.trades.length + 1),
        bettor: record.taker,
        counterparty: o.maker,
        maker: false,
        bettingOutcomeOne: record.isTakerBettingOutcomeOne,
        stake: leg.takerStake,
        counterStake: leg.makerStake,
        odds: ODDS_SCALE - o.percentageOdds,
      };
      this.addTrade(record, takerTrade);
    }
  }

  private addTrade(record: FillRecord, trade: Trade): void {
    this.trades.push(trade);
    this.tradesById.set(trade.id, trade);
    record.tradeIds.push(trade.id);
    this.events.trades.add(trade.id);
  }

  /**
   * The chain executes the fill: both sides' stakes move to escrow, or the fill fails and frees its space.
   * The local chain decides by the ledger's balances; an on-chain settlement reports what happened.
   */
  private confirmFill(fillHash: string, at: number, chain?: ChainExecution): void {
    const record = this.fills.get(fillHash);
    if (!record || record.status !== 'PENDING') return;
    const owed = new Map<string, bigint>([[record.taker, record.totalTakerStake]]);
    for (const m of record.matches) this.addTo(owed, m.maker, m.makerStake);
    const funded = chain ? chain.executed : [...owed].every(([address, amount]) => this.ledger.balanceOf(address) >= amount);
    record.status = funded ? 'SUCCESS' : 'FAILED';
    if (chain) {
      if (chain.txHash !== undefined) record.txHash = chain.txHash;
      if (chain.reason !== undefined) record.failureReason = chain.reason;
      // The chain moved these stakes: our view of the wallets must hold them (it can lag the chain).
      if (funded) {
        for (const [address, amount] of owed) {
          const short = amount - this.ledger.balanceOf(address);
          if (short > 0n) this.ledger.applyChainDelta(address, short);
          this.ledger.spendAllowance(address, amount);
        }
      }
    }

    for (const m of record.matches) {
      const o = this.orders.get(m.orderHash)!;
      this.updateOrder(o, at, () => {
        o.pendingFillAmount -= m.makerStake;
        o.pendingFills.delete(fillHash);
        if (funded) o.fillAmount += m.makerStake;
        if (!isOpen(o)) return;
        const exhausted = fillableTakerSpace(o) === 0n;
        if (exhausted && o.pendingFillAmount === 0n) o.status = 'FILLED';
        else o.status = exhausted ? 'INACTIVE' : 'ACTIVE';
      });
    }
    this.addTo(this.pendingTakerStake, record.taker, -record.totalTakerStake);
    const parties = new Map<string, Trade>();
    for (const id of record.tradeIds) {
      const t = this.tradesById.get(id)!;
      t.status = record.status;
      t.updatedAt = at;
      this.events.trades.add(id);
      if (!funded) continue;
      this.ledger.lock(t.bettor, t.marketHash, t.stake);
      this.addTo(this.matchedVolume, record.marketHash, t.stake);
      const outcome = this.reported.get(t.marketHash);
      if (outcome !== undefined) {
        // Confirmed after its market was reported: settles on its own, outside the refunded positions.
        this.settlePositions(t.marketHash, t.bettor, [t], outcome, 0n, at);
        continue;
      }
      this.positionsOf(t.marketHash, t.bettor).push(t);
      parties.set(`${t.marketHash}:${t.bettor}`, t);
    }
    for (const t of parties.values()) this.refundExcessEscrow(t.marketHash, t.bettor, t.maker, record.fillHash, t.baseToken, at);
    for (const address of owed.keys()) this.events.accounts.add(address);
  }

  private positionsOf(marketHash: string, bettor: string): Trade[] {
    let perMarket = this.positions.get(marketHash);
    if (!perMarket) this.positions.set(marketHash, (perMarket = new Map()));
    let list = perMarket.get(bettor);
    if (!list) perMarket.set(bettor, (list = []));
    return list;
  }

  refundedTo(marketHash: string, bettor: string): bigint {
    return this.refunded.get(marketHash)?.get(bettor) ?? 0n;
  }

  /** Escrow above the positions' worst-case loss goes back to the wallet at once. */
  private refundExcessEscrow(marketHash: string, bettor: string, maker: boolean, fillHash: string, baseToken: string, at: number): void {
    const held = this.ledger.escrowIn(bettor, marketHash);
    const needed = worstCaseLoss(this.positionsOf(marketHash, bettor));
    if (held <= needed) return;
    const amount = held - needed;
    this.ledger.release(bettor, marketHash, amount, amount);
    let perMarket = this.refunded.get(marketHash);
    if (!perMarket) this.refunded.set(marketHash, (perMarket = new Map()));
    perMarket.set(bettor, (perMarket.get(bettor) ?? 0n) + amount);
    this.refunds.push({ id: this.refunds.length + 1, marketHash, baseToken, bettor, maker, fillOrderHash: fillHash, amount, createdAt: at });
    this.events.refunds.add(bettor);
  }

  // ---- cancels, heartbeats, expiry --------------------------------------------------------------

  private checkCancelReplay(maker: string, salt: string, timestamp: number, at: number): void {
    const skewMs = this.params.cancelMaxSkewSeconds * 1000;
    const signedMs = timestamp * 1000;
    if (Math.abs(signedMs - at) > skewMs || signedMs <= this.forgottenCancelsUpTo) {
      throw new EngineRejection(400, 'STALE_TIMESTAMP', `timestamp must be within ${this.params.cancelMaxSkewSeconds} s of server time`);
    }
    if (this.cancelSalts.has(`${maker}:${salt}`)) {
      throw new EngineRejection(409, 'CANCEL_REQUEST_ALREADY_PROCESSED', 'this cancel salt was already used');
    }
    // A salt whose signed timestamp is older than the skew can no longer pass the check: forget it, and raise the
    // floor so its timestamp stays refused whatever the clock does next.
    for (const [key, signed] of this.cancelSalts) {
      if (signed >= at - skewMs) break;
      this.cancelSalts.delete(key);
      if (signed > this.forgottenCancelsUpTo) this.forgottenCancelsUpTo = signed;
    }
  }

  private cancelOrders(maker: string, orderHashes: string[], at: number): CancelResult {
    const result: CancelResult = { cancelledCount: 0, orders: [], notCancelled: [] };
    const seen = new Set<string>();
    for (const hash of orderHashes) {
      const o = this.orders.get(hash);
      if (seen.has(hash)) continue;
      seen.add(hash);
      if (!o || o.maker !== maker) {
        result.notCancelled.push({ orderHash: hash, reason: 'not_found_or_inactive' });
      } else if (o.status === 'CANCELLED' && o.pendingFillAmount > 0n) {
        result.notCancelled.push({ orderHash: hash, reason: 'already_pending_cancel' });
      } else if (!isOpen(o)) {
        result.notCancelled.push({ orderHash: hash, reason: 'not_found_or_inactive' });
      } else if (o.status === 'INACTIVE') {
        // Every bit of the order is matched by fills still waiting on the chain: nothing is left to cancel.
        result.notCancelled.push({ orderHash: hash, reason: 'order_locked' });
      } else {
        this.updateOrder(o, at, () => (o.status = 'CANCELLED'));
        result.cancelledCount++;
        result.orders.push({
          orderHash: hash,
          pendingFills: [...o.pendingFills].map(([fillHash, amount]) => ({ fillHash, pendingFillAmount: amount.toString() })),
        });
      }
    }
    return result;
  }

  private heartbeat(requestor: string, timeoutSeconds: number, at: number): HeartbeatResult {
    if (timeoutSeconds === 0) {
      this.heartbeats.delete(requestor);
      return { requestor, timeoutSeconds: 0, expiresAt: null };
    }
    const hb: Heartbeat = { requestor, timeoutSeconds, expiresAt: at + timeoutSeconds * 1000 };
    this.heartbeats.set(requestor, hb);
    this.expiries.push(hb.expiresAt, `hb:${requestor}`);
    return { ...hb };
  }

  /** Whether a queued expiry still means something (its order is open, its heartbeat unchanged). */
  private isLive(entry: { at: number; key: string }): boolean {
    if (entry.key.startsWith('hb:')) return this.heartbeats.get(entry.key.slice(3))?.expiresAt === entry.at;
    const o = this.orders.get(entry.key);
    return o !== undefined && isOpen(o);
  }

  /** The earliest time at which `expire` would change something, for the runner's timer. */
  nextExpiryAt(): number | undefined {
    // Dropping stale entries changes no observable state: the queue is only an index.
    for (let top = this.expiries.peek(); top; top = this.expiries.peek()) {
      if (this.isLive(top)) return top.at;
      this.expiries.pop();
    }
    return undefined;
  }

  private expire(at: number): void {
    for (let top = this.expiries.peek(); top && top.at <= at; top = this.expiries.peek()) {
      this.expiries.pop();
      if (!this.isLive(top)) continue;
      if (top.key.startsWith('hb:')) {
        const requestor = top.key.slice(3);
        this.heartbeats.delete(requestor);
        for (const o of this.ordersByMaker.get(requestor) ?? []) {
          if (isOpen(o)) this.updateOrder(o, at, () => (o.status = 'CANCELLED'));
        }
      } else {
        const o = this.orders.get(top.key)!;
        this.updateOrder(o, at, () => (o.status = 'EXPIRED'));
      }
    }
  }

  // ---- settlement -----------------------------------------------------------------------------

  /** Every open order of a market leaves its book as CANCELLED (pending fills still settle). */
  private cancelBook(marketHash: string, at: number): void {
    const book = this.books.get(marketHash);
    for (const side of book ? [book.outcomeOne, book.outcomeTwo] : []) {
      for (const o of side.snapshot()) this.updateOrder(o, at, () => (o.status = 'CANCELLED'));
    }
  }

  private reportMarket(marketHash: string, outcome: Outcome, at: number): void {
    if (this.reported.has(marketHash)) return;
    this.reported.set(marketHash, outcome);
    this.cancelBook(marketHash, at);
    for (const [bettor, trades] of this.positions.get(marketHash) ?? []) {
      this.settlePositions(marketHash, bettor, trades, outcome, this.refundedTo(marketHash, bettor), at);
    }
    this.positions.delete(marketHash);
  }

  /**
   * Pays a bettor's positions in a market from escrow: each trade's stake back on void, stake plus the
   * counterparty's stake on a win, less what refunds already paid out early.
   */
  private settlePositions(marketHash: string, bettor: string, trades: readonly Trade[], outcome: Outcome, refunded: bigint, at: number): void {
    let total = 0n;
    let stakes = 0n;
    for (const t of trades) {
      const won = outcome !== 0 && (outcome === 1) === t.bettingOutcomeOne;
      const payout = outcome === 0 ? t.stake : won ? t.stake + t.counterStake : 0n;
      total += payout;
      stakes += t.stake;
      t.settled = true;
      t.outcome = outcome;
      t.payout = payout;
      t.settleDate = at;
      t.settleTxHash = hashText(`settle:${t.marketHash}:${t.fillHash}`);
      t.updatedAt = at;
      this.events.trades.add(t.id);
    }
    this.ledger.release(bettor, marketHash, stakes - refunded, total - refunded);
    this.events.accounts.add(bettor);
  }
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
