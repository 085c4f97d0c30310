// The single writer: books, matching, commitments (exposure, pending stakes, positions), heartbeats, settlement.
// Wallets and escrow are the settlement chain's, behind the Wallets interface (wallets.ts).
// No I/O, no clock, no randomness: every input, the time included, arrives on a command, so replaying the
// journal rebuilds exactly the same state. A command either applies whole or throws DomainError and changes nothing.
// Each command returns its typed result and the change records saying what happened; nothing outside this module
// reads the engine's fields, which hold only what trading needs (settled trades and paid fills leave memory).
import { LocalLedger } from './wallets/local-ledger.js';
import { ChainWallets } from './wallets/chain-wallets.js';
import type { Wallets, WalletsState } from './wallets/wallets.js';
import { makerSpaceForTakerStake, remainingTakerSpace, weightedTakerOdds } from '../protocol/amounts.js';
import { ODDS_SCALE } from '../protocol/odds.js';
import { MarketBook } from './book.js';
import { Position, tradePayout, type PositionTotals, type PositionTrade } from './refunds.js';
import { ExpiryQueue } from './expiry-queue.js';
import { Fifo } from './fifo.js';
import { CancelSalts } from './cancel-salts.js';
import { OrderedKeySet } from './ordered-key-set.js';
import { SmallSet } from './small-set.js';
import { MarketLife, type MarketLifeState } from './market-life.js';
import { NO_PENDING_FILLS, packOrders, unpackOrders, type PackedOrders } from './order-pack.js';
import { DomainError } from './errors.js';
import { hasTakeableSpace } from './maker-space-floor.js';
import { LiveOrder, MatchRecord, PendingFillRecord, TradeRecord } from './records.js';
import type { Change, ChangeOf, OrderFacts, OrderState, TradeFacts } from './changes.js';
import type {
  AccountRestriction,
  BalanceView,
  ChainExecution,
  CancelResult,
  Command,
  CommandResult,
  EngineParams,
  FillRecord,
  FillResult,
  FixtureStatusChange,
  Heartbeat,
  HeartbeatResult,
  MarketRef,
  MarketLifeStatus,
  MarketResult,
  NewOrder,
  Order,
  OrderStatus,
  OrderStatusCode,
  OrderView,
  Outcome,
  ResultOf,
  PendingTrade,
} from './types.js';

const isOpen = (o: Order) => o.status === 'ACTIVE' || o.status === 'INACTIVE';
type OrderSpace = Pick<OrderView, 'totalBetSize' | 'fillAmount' | 'pendingFillAmount' | 'percentageOdds'>;
/** Maker space still free to match: not filled and not reserved by a pending fill. */
export const freeMakerSpace = (o: OrderSpace) => o.totalBetSize - o.fillAmount - o.pendingFillAmount;
/**
 * Taker stake an order can still take. Zero once the rest is dust that would match no maker wei
 * (e.g. 1 wei left at 45%), so such an order counts as exhausted instead of blocking its side of the book.
 */
export function fillableTakerSpace(o: OrderSpace): bigint {
  const space = remainingTakerSpace(freeMakerSpace(o), o.percentageOdds);
  return makerSpaceForTakerStake(space, o.percentageOdds) > 0n ? space : 0n;
}
/** What an order commits of its maker's balance: the unfilled size while open, the pending fills once closed. */
const orderExposure = (o: Order) => (isOpen(o) ? o.totalBetSize - o.fillAmount : o.pendingFillAmount);
/**
 * A fill is checked against the read side right before the engine applies it (TradingService.submit), so the window
 * only has to hold fills applied but not yet in the read side: the batches waiting for their commit. 10k is far
 * above that; 100k cost about 27 MB of heap that grew with the first 100k fills.
 */
const DEFAULT_RECENT_FILL_WINDOW = 10_000;
const DEFAULT_RECENT_CLOSED_ORDER_WINDOW = 20_000;
/** Sorted by time then key: a valid heap, and one order for the same set of entries. */
/**
 * A queue's live entries in (time, key) order, each once: a heartbeat set, cleared and set again to the same deadline
 * queues that deadline twice, and which copies a queue still holds depends on its history, not on the state.
 */
const liveSorted = (entries: { at: number; key: string }[], isLive: (e: { at: number; key: string }) => boolean) =>
  entries
    .filter(isLive)
    .sort((a, b) => a.at - b.at || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .filter((e, i, sorted) => i === 0 || e.at !== sorted[i - 1]!.at || e.key !== sorted[i - 1]!.key);
const isExpired = (o: Pick<Order, 'apiExpiry' | 'expiry'>, at: number) => o.apiExpiry * 1000 <= at || o.expiry * 1000 <= at;
/** A taker could match it now: active, unexpired and with more than dust left. */
const isTakeable = (o: Order, at: number) => o.status === 'ACTIVE' && !isExpired(o, at) && hasFillableSpace(o);
/** fillableTakerSpace(o) > 0n, by one comparison (see maker-space-floor.ts). */
const hasFillableSpace = (o: OrderSpace) => hasTakeableSpace(freeMakerSpace(o), o.percentageOdds);

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
/** Outside a command nothing may be emitted: this array is frozen, so a stray emit throws. */
const NO_CHANGES = Object.freeze([]) as unknown as Change[];
const SNAPSHOT_VERSION = 2;

type OrderData = Omit<Order, 'pendingFills'> & { pendingFills: [string, bigint][] };

/** Everything an engine holds, as plain data. */
export interface EngineSnapshot {
  version: number;
  ledger: WalletsState;
  /** Packed (see order-pack.ts); an array of order objects in snapshots written before. */
  orders: PackedOrders | OrderData[];
  pendingFills: FillRecord[];
  recentFills: [string, string][];
  fillCount: number;
  closedOrders: string[];
  closedOrderExpiries: { at: number; key: string }[];
  heartbeats: Heartbeat[];
  reported: [string, Outcome][];
  /** Suspensions and fixtures in play (absent in snapshots written before they were engine state). */
  life?: MarketLifeState;
  /** Sums per position; snapshots written before hold each trade (`trades`), folded into the sums on restore. */
  positions: ({ market: string; bettor: string } & (PositionTotals | { trades: PositionTrade[] }))[];
  refunded: [string, [string, bigint][]][];
  refundCount: number;
  tradeCount: number;
  restrictions: AccountRestriction[];
  expiries: { at: number; key: string }[];
  exposure: [string, bigint][];
  pendingTakerStake: [string, bigint][];
  cancelSalts: [string, number][];
  /** null while no cancel salt was forgotten yet. */
  forgottenCancelsUpTo: number | null;
  chainBlock: number;
  seq: number;
}

export const viewOf = (o: OrderView): OrderView => ({
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
  status: o.status,
  seq: o.seq,
  createdAt: o.createdAt,
  updatedAt: o.updatedAt,
});

const copyFill = (f: FillRecord): FillRecord => ({
  ...f,
  matches: f.matches.map((m) => ({ ...m })),
  trades: f.trades.map((t) => ({ ...t })),
  ...(f.signed ? { signed: { ...f.signed } } : {}),
  ...(f.attempts ? { attempts: [...f.attempts] } : {}),
});

const factsOf = (o: Order): OrderFacts => ({
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
  seq: o.seq,
  createdAt: o.createdAt,
});

const stateOf = (o: Order): OrderState => ({ fillAmount: o.fillAmount, pendingFillAmount: o.pendingFillAmount, status: o.status, updatedAt: o.updatedAt });

export class Engine {
  /** Balances, allowances and escrow: the settlement chain's side (see wallets.ts). */
  private readonly wallets: Wallets;
  private readonly orders = new Map<string, Order>();
  private readonly books = new Map<string, MarketBook>();
  /** Open orders per maker, in posting order and per event: what cancel-all and cancel-event touch. */
  private readonly openByMaker = new Map<string, MakerOpenOrders>();
  /** Fills waiting for the chain. Executed fills leave memory. */
  private readonly pendingFillRecords = new Map<string, FillRecord>();
  /**
   * The most recent fills' salts and hashes, oldest first: replay protection for what the read side may not hold yet.
   * Older ones are checked against the read side before a fill reaches the engine (see TradingService.submit).
   */
  private readonly recentFillSalts = new Map<string, string>();
  private readonly recentFillHashes = new Set<string>();
  /** recentFillSalts' keys, oldest first: what the window drops next. */
  private readonly recentFillOrder = new Fifo<string>();
  private fillCount = 0;
  /**
   * Orders that closed and left memory, oldest first, until their signed expiry (an expired order is refused as
   * such) and at most the most recent window of them: a repost is refused here for what the read side may not hold
   * yet; older ones are checked against the read side before an order reaches the engine (TradingService.submit).
   */
  private readonly closedOrders = new OrderedKeySet();
  private closedOrderExpiries = new ExpiryQueue();
  private readonly heartbeats = new Map<string, Heartbeat>();
  private readonly reported = new Map<string, Outcome>();
  private life = new MarketLife();
  /** Confirmed, unsettled trades per market and bettor, as sums: what escrow must cover and settlement pays. */
  private readonly positions = new Map<string, Map<string, Position>>();
  /** Refunded wei per market and bettor, netted at settlement. */
  private readonly refunded = new Map<string, Map<string, bigint>>();
  private refundCount = 0;
  private tradeCount = 0;
  private readonly restrictions = new Map<string, AccountRestriction>();
  /** Order expiries (key: order hash) and heartbeat deadlines (key: "hb:" + address). */
  private expiries = new ExpiryQueue();
  private readonly exposure = new Map<string, bigint>();
  private readonly pendingTakerStake = new Map<string, bigint>();
  /** Cancels' salts per maker, with their signed timestamps (ms), kept while a replay could still pass the check. */
  private cancelSalts = new CancelSalts();
  /**
   * Newest signed timestamp (ms) among forgotten cancel salts: nothing signed at or before it is accepted again,
   * so a forgotten salt stays refused even if the server clock later moves back.
   */
  private forgottenCancelsUpTo = -Infinity;
  /** Last block whose chain events were applied (chain adapters resume after it); -1 before any. */
  private chainBlock = -1;
  private seq = 0;
  /** The current command's change records: changeScratch during a command (the caller gets a copy). */
  private changes: Change[] = NO_CHANGES;
  /** Accounts whose balance, escrow or exposure the current command touched (one set, cleared per command). */
  private readonly touched = new SmallSet();
  /** Scratch maps of confirmFill, cleared per use. */
  private readonly owedScratch = new Map<string, bigint>();
  /** One trade per (market, bettor) of the fill being confirmed, in first-seen order: a fill has a few trades. */
  private readonly partiesScratch: PendingTrade[] = [];
  private readonly partyIndexScratch = new Map<string, number>();
  private readonly seenScratch = new Set<string>();
  /** The orders a fill matched, in the order of its matches (no second lookup by hash). */
  private readonly matchedScratch: Order[] = [];
  /**
   * A fill's matches and trades, and a command's change records, are gathered in these and copied out once complete
   * (`slice`): an array literal per command is an allocation site V8 moves to old space once fills wait long enough,
   * and a dead old array keeps the young records it points to alive through the next collections.
   */
  private readonly matchScratch: MatchRecord[] = [];
  private readonly tradeScratch: TradeRecord[] = [];
  private readonly changeScratch: Change[] = [];

  constructor(private readonly params: EngineParams) {
    this.wallets = params.walletsOnChain ? new ChainWallets() : new LocalLedger();
  }

  // ---- snapshots ------------------------------------------------------------------------------

  /**
   * The whole state as plain data (bigints included; the store encodes them). Derived indexes (books, open-order
   * indexes) are rebuilt on restore, so only the facts are written.
   */
  snapshot(): EngineSnapshot {
    return {
      version: SNAPSHOT_VERSION,
      ledger: this.wallets.exportState(),
      orders: packOrders(this.orders.values()),
      pendingFills: [...this.pendingFillRecords.values()].map(copyFill),
      recentFills: [...this.recentFillSalts],
      fillCount: this.fillCount,
      closedOrders: [...this.closedOrders.values()],
      closedOrderExpiries: liveSorted(this.closedOrderExpiries.entries(), (entry) => this.closedOrders.has(entry.key)),
      heartbeats: [...this.heartbeats.values()].map((h) => ({ ...h })),
      reported: [...this.reported],
      life: this.life.exportState(),
      positions: [...this.positions].flatMap(([market, perBettor]) =>
        [...perBettor].map(([bettor, p]) => ({ market, bettor, ...p.totals() })),
      ),
      refunded: [...this.refunded].map(([market, perBettor]) => [market, [...perBettor]] as [string, [string, bigint][]]),
      refundCount: this.refundCount,
      tradeCount: this.tradeCount,
      restrictions: [...this.restrictions.values()].map((r) => ({ ...r, shortfalls: [...r.shortfalls] })),
      // Only live entries, in (time, key) order: the same state gives the same snapshot whatever stale entries the
      // heap carried.
      expiries: liveSorted(this.expiries.entries(), (entry) => this.isLive(entry.at, entry.key)),
      exposure: [...this.exposure],
      pendingTakerStake: [...this.pendingTakerStake],
      cancelSalts: this.cancelSalts.entries(),
      forgottenCancelsUpTo: Number.isFinite(this.forgottenCancelsUpTo) ? this.forgottenCancelsUpTo : null,
      chainBlock: this.chainBlock,
      seq: this.seq,
    };
  }

  /** An engine in exactly the state a snapshot recorded. Throws on a snapshot of another format. */
  static restore(params: EngineParams, snap: EngineSnapshot): Engine {
    if (snap.version !== SNAPSHOT_VERSION) throw new Error(`snapshot format ${String(snap.version)} is not ${SNAPSHOT_VERSION}`);
    const e = new Engine(params);
    const self = e as unknown as Record<string, unknown>;
    self.wallets = params.walletsOnChain ? ChainWallets.fromState(snap.ledger) : LocalLedger.fromState(snap.ledger);
    const orders = Array.isArray(snap.orders)
      ? snap.orders.map((data): Order => {
          // Built field by field (viewOf), as posting does: a spread of 20 fields made slow objects.
          const o = viewOf(data) as Order;
          o.pendingFills = data.pendingFills.length > 0 ? new Map(data.pendingFills) : NO_PENDING_FILLS;
          return o;
        })
      : unpackOrders(snap.orders);
    for (const o of orders) e.orders.set(o.orderHash, o);
    // Posting order rebuilds the open-order indexes' order; each book side is sorted once.
    const sides = new Map<string, Order[]>();
    for (const o of [...e.orders.values()].sort((a, b) => a.seq - b.seq)) {
      if (!isOpen(o)) continue;
      const key = `${o.marketHash}:${o.isMakerBettingOutcomeOne}`;
      const side = sides.get(key);
      if (side) side.push(o);
      else sides.set(key, [o]);
      e.indexOpen(o);
    }
    for (const orders of sides.values()) e.bookOf(orders[0]!.marketHash).side(orders[0]!.isMakerBettingOutcomeOne).load(orders);
    for (const f of snap.pendingFills) e.pendingFillRecords.set(f.fillHash, copyFill(f));
    for (const [salt, hash] of snap.recentFills) {
      e.recentFillSalts.set(salt, hash);
      e.recentFillHashes.add(hash);
      e.recentFillOrder.push(salt);
    }
    e.fillCount = snap.fillCount;
    for (const h of snap.closedOrders) e.closedOrders.add(h);
    self.closedOrderExpiries = ExpiryQueue.from(snap.closedOrderExpiries);
    e.trimClosedOrders();
    for (const h of snap.heartbeats) e.heartbeats.set(h.requestor, { ...h });
    for (const [market, outcome] of snap.reported) e.reported.set(market, outcome);
    e.life = MarketLife.from(snap.life);
    for (const p of snap.positions) {
      const position = e.positionOf(p.market, p.bettor);
      if ('trades' in p) for (const t of p.trades) position.add(t);
      else position.addTotals(p);
    }
    for (const [market, perBettor] of snap.refunded) e.refunded.set(market, new Map(perBettor));
    e.refundCount = snap.refundCount;
    e.tradeCount = snap.tradeCount;
    for (const r of snap.restrictions) e.restrictions.set(r.address, { ...r, shortfalls: [...r.shortfalls] });
    // Keys as the orders' own strings: a decoded copy per entry would double every open order's hash in memory.
    self.expiries = ExpiryQueue.from(snap.expiries.map((x) => ({ at: x.at, key: e.orders.get(x.key)?.orderHash ?? x.key })));
    for (const [a, v] of snap.exposure) e.exposure.set(a, v);
    for (const [a, v] of snap.pendingTakerStake) e.pendingTakerStake.set(a, v);
    e.cancelSalts = CancelSalts.from(snap.cancelSalts);
    e.forgottenCancelsUpTo = snap.forgottenCancelsUpTo ?? -Infinity;
    e.chainBlock = snap.chainBlock;
    e.seq = snap.seq;
    return e;
  }

  /** Applies one command. Throws DomainError (no state changed) or returns its result and change records. */
  apply<C extends Command>(cmd: C): Applied<ResultOf<C>> {
    const changes = this.changeScratch;
    changes.length = 0;
    this.changes = changes;
    try {
      const result = this.dispatch(cmd) as ResultOf<C>;
      const touched = this.touched;
      for (let i = 0; i < touched.size; i++) {
        const address = touched.at(i);
        this.emit({
          type: 'balanceChanged',
          address,
          balance: this.wallets.balanceOf(address),
          escrowed: this.wallets.escrowOf(address),
          openExposure: this.exposureOf(address),
          pendingTakerStake: this.pendingTakerStakeOf(address),
        });
      }
      return { result, changes: changes.slice() };
    } finally {
      changes.length = 0;
      this.changes = NO_CHANGES;
      this.touched.clear();
    }
  }

  private emit(change: Change): void {
    this.changes.push(change);
  }

  private dispatch(cmd: Command): CommandResult {
    switch (cmd.kind) {
      case 'faucet':
        this.wallets.mint(cmd.address, cmd.amount);
        this.touched.add(cmd.address);
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
        this.fillAttempt(cmd.fillHashes, cmd.txHash, cmd.at);
        return NONE;
      case 'chainEvents':
        this.applyChainEvents(cmd);
        return NONE;
      case 'cancelOrders':
      case 'cancelEvent':
      case 'cancelAll': {
        this.checkCancelReplay(cmd.maker, cmd.salt, cmd.timestamp, cmd.at);
        const open =
          cmd.kind === 'cancelAll'
            ? this.openByMaker.get(cmd.maker)?.all
            : cmd.kind === 'cancelEvent'
              ? this.openByMaker.get(cmd.maker)?.byEvent.get(cmd.exchangeEventId)
              : undefined;
        const hashes = cmd.kind === 'cancelOrders' ? cmd.orderHashes : [...(open?.keys() ?? [])];
        const cancel = this.cancelOrders(cmd.maker, hashes, cmd.at);
        this.cancelSalts.add(cmd.maker, cmd.salt, cmd.timestamp * 1000);
        return { kind: 'cancel', cancel };
      }
      case 'heartbeat':
        return { kind: 'heartbeat', heartbeat: this.heartbeat(cmd.requestor, cmd.timeoutSeconds, cmd.at) };
      case 'expire':
        this.expire(cmd.at);
        return NONE;
      case 'reportMarkets':
        this.checkReports(cmd.reports);
        this.setMarketStatus(cmd.suspend ?? [], 'SUSPENDED', cmd.at);
        for (const r of cmd.reports) this.reportMarket(r, cmd.at);
        if (cmd.finishedFixture) this.setFixtureStatus(cmd.finishedFixture, false, [], cmd.at);
        return NONE;
      case 'setMarketStatus':
        this.checkNotReported(cmd.marketHashes);
        this.setMarketStatus(cmd.marketHashes, cmd.status, cmd.at);
        return NONE;
      case 'setFixtureStatus':
        this.setFixtureStatus(cmd, cmd.inPlay, cmd.closedInPlay, cmd.at);
        return NONE;
      case 'cancelMarketOrders':
        for (const marketHash of cmd.marketHashes) this.cancelBook(marketHash, cmd.at);
        return NONE;
      case 'liftRestriction':
        if (this.restrictions.delete(cmd.address)) this.emit({ type: 'restrictionChanged', address: cmd.address, restrictedUntil: null });
        return NONE;
    }
  }

  // ---- read access (copies, never the engine's own objects) -------------------------------------

  /** The ledger's balances, read only. */
  get ledger(): LedgerView {
    return this.wallets;
  }

  order(orderHash: string): OrderView | undefined {
    const o = this.orders.get(orderHash);
    return o && viewOf(o);
  }

  /** A maker's open (ACTIVE or INACTIVE) orders in posting order. */
  openOrdersOf(maker: string): OrderView[] {
    return [...(this.openByMaker.get(maker)?.all.values() ?? [])].map(viewOf);
  }

  /** A market's open orders: both sides of its book. */
  openOrdersIn(marketHash: string): OrderView[] {
    return (this.books.get(marketHash)?.allOrders() ?? []).map(viewOf);
  }

  /** Markets with a book (open orders now or earlier). */
  bookedMarkets(): string[] {
    return [...this.books.keys()];
  }

  openOrderCount(): number {
    let open = 0;
    for (const book of this.books.values()) open += book.outcomeOne.size + book.outcomeTwo.size;
    return open;
  }

  /** Fills waiting for the chain, oldest first. */
  pendingFills(): { fillHash: string; acceptedAt: number }[] {
    return [...this.pendingFillRecords.values()].map((f) => ({ fillHash: f.fillHash, acceptedAt: f.acceptedAt }));
  }

  /** A fill still waiting for the chain (a copy), with the trades it will record. */
  pendingFill(fillHash: string): FillRecord | undefined {
    const f = this.pendingFillRecords.get(fillHash);
    return f && copyFill(f);
  }

  /** Last block whose chain events were applied: a chain adapter resumes after it. */
  get chainCursor(): number {
    return this.chainBlock;
  }

  heartbeatCount(): number {
    return this.heartbeats.size;
  }

  /** Sizes of the engine's state, for metrics and tests that check a refused command changed nothing. */
  stats() {
    return {
      orders: this.orders.size,
      books: this.books.size,
      pendingFills: this.pendingFillRecords.size,
      usedFills: this.fillCount,
      recentFills: this.recentFillHashes.size,
      closedOrders: this.closedOrders.size,
      queuedClosedOrderExpiries: this.closedOrderExpiries.size,
      trades: this.tradeCount,
      refunds: this.refundCount,
      heartbeats: this.heartbeats.size,
      queuedExpiries: this.expiries.size,
      restrictions: this.restrictions.size,
      reported: this.reported.size,
      minted: this.wallets.minted.toString(),
    };
  }

  /** Bettors holding confirmed, unsettled trades in a market. */
  bettorsIn(marketHash: string): string[] {
    return [...(this.positions.get(marketHash)?.keys() ?? [])];
  }

  isReported(marketHash: string): boolean {
    return this.reported.has(marketHash);
  }

  restrictionOf(address: string): AccountRestriction | undefined {
    const r = this.restrictions.get(address);
    return r && { ...r, shortfalls: [...r.shortfalls] };
  }

  balances(address: string): BalanceView {
    return {
      balance: this.wallets.balanceOf(address),
      escrowed: this.wallets.escrowOf(address),
      openExposure: this.exposureOf(address),
      pendingTakerStake: this.pendingTakerStakeOf(address),
    };
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
    return this.wallets.spendable(address) - this.exposureOf(address) - this.pendingTakerStakeOf(address);
  }

  /**
   * A block range of the chain, in log order: wallets moved, allowances set, our fills executed or failed, the escrow
   * paid positions and refunds (their transactions go on the trades and refunds). Exposure is enforced once the whole
   * range applied: a fill's stakes leave the wallet just before its execution frees the commitment they covered.
   */
  private applyChainEvents(cmd: Extract<Command, { kind: 'chainEvents' }>): void {
    const moved = new Set<string>();
    for (const e of cmd.entries) {
      switch (e.kind) {
        case 'wallet':
          this.wallets.walletMoved(e.address, e.delta, e.allowanceSpent ?? 0n);
          moved.add(e.address);
          break;
        case 'approval':
          this.wallets.approved(e.owner, e.amount);
          moved.add(e.owner);
          break;
        case 'fill':
          this.confirmFill(e.fillHash, cmd.at, e.execution);
          break;
        case 'claim':
          if (this.reported.has(e.marketHash)) this.emit({ type: 'positionPaidOnChain', marketHash: e.marketHash, bettor: e.bettor, txHash: e.txHash, at: cmd.at });
          break;
        case 'refund':
          this.emit({ type: 'refundPaidOnChain', refundId: e.refundId, txHash: e.txHash, at: cmd.at });
          break;
      }
    }
    for (const address of moved) {
      this.touched.add(address);
      this.enforceExposure(address, cmd.at);
    }
    this.chainBlock = cmd.toBlock;
  }

  private addTo(map: Map<string, bigint>, key: string, delta: bigint): void {
    const next = (map.get(key) ?? 0n) + delta;
    if (next === 0n) map.delete(key);
    else map.set(key, next);
  }

  /** Closes an open order (or marks a closed one) with `status`. */
  private setOrderStatus(o: Order, status: OrderStatus, at: number): void {
    const wasOpen = isOpen(o);
    const exposureBefore = orderExposure(o);
    o.status = status;
    this.orderUpdated(o, wasOpen, exposureBefore, at);
  }

  /**
   * Every order mutation ends here (given whether the order was open and what it committed before), so exposure,
   * the book, the open-order indexes and the records stay in step.
   */
  private orderUpdated(o: Order, wasOpen: boolean, exposureBefore: bigint, at: number): void {
    o.updatedAt = at;
    const exposureAfter = orderExposure(o);
    if (exposureAfter !== exposureBefore) this.addTo(this.exposure, o.maker, exposureAfter - exposureBefore);
    if (wasOpen && !isOpen(o)) {
      this.bookOf(o.marketHash).side(o.isMakerBettingOutcomeOne).remove(o);
      this.unindexOpen(o);
    }
    this.emit({ type: 'orderChanged', orderHash: o.orderHash, marketHash: o.marketHash, maker: o.maker, state: stateOf(o) });
    this.touched.add(o.maker);
    this.evictIfDone(o);
  }

  private indexOpen(o: Order): void {
    let byMaker = this.openByMaker.get(o.maker);
    if (!byMaker) this.openByMaker.set(o.maker, (byMaker = new MakerOpenOrders(o.maker)));
    byMaker.add(o);
  }

  private unindexOpen(o: Order): void {
    this.openByMaker.get(o.maker)?.remove(o);
  }

  private transfer(from: string, to: string, amount: bigint, at: number): CommandResult {
    if (this.wallets.balanceOf(from) < amount) {
      throw new DomainError('INSUFFICIENT_BALANCE', `${from} holds less than ${amount}`);
    }
    this.wallets.transfer(from, to, amount);
    this.touched.add(from).add(to);
    this.enforceExposure(from, at);
    return NONE;
  }

  /** When a balance no longer covers the open orders, the newest orders leave the book until it does. */
  private enforceExposure(address: string, at: number): void {
    if (this.freeBalance(address) >= 0n) return;
    const orders = [...(this.openByMaker.get(address)?.all.values() ?? [])];
    let removed = 0;
    for (let i = orders.length - 1; i >= 0 && this.freeBalance(address) < 0n; i--) {
      const o = orders[i]!;
      this.setOrderStatus(o, 'CANCELLED', at);
      removed++;
    }
    if (removed > 0) this.recordShortfall(address, at);
  }

  /** Repeated shortfalls within the window restrict the account from posting for a while. */
  private recordShortfall(address: string, at: number): void {
    const p = this.params;
    const r = this.restrictions.get(address) ?? { address, shortfalls: [], restrictedUntil: null };
    r.shortfalls = [...r.shortfalls.filter((t) => t > at - p.restrictionWindowMs), at];
    if (r.shortfalls.length >= p.restrictionThreshold) {
      r.restrictedUntil = at + p.restrictionMs;
      this.emit({ type: 'restrictionChanged', address, restrictedUntil: r.restrictedUntil });
    }
    this.restrictions.set(address, r);
  }

  isRestricted(address: string, at: number): boolean {
    const until = this.restrictions.get(address)?.restrictedUntil;
    return until != null && until > at;
  }

  // ---- orders ---------------------------------------------------------------------------------

  private bookOf(marketHash: string): MarketBook {
    let book = this.books.get(marketHash);
    if (!book) this.books.set(marketHash, (book = new MarketBook()));
    return book;
  }

  /** Lowest maker odds with free space on one side (the best price for a taker), or undefined. */
  bestMakerOdds(marketHash: string, isMakerBettingOutcomeOne: boolean, at = 0): bigint | undefined {
    const side = this.books.get(marketHash)?.side(isMakerBettingOutcomeOne);
    if (!side) return undefined;
    for (let i = 0; i < side.levelCount; i++) {
      for (const o of side.ordersAt(i)) if (isTakeable(o, at)) return o.percentageOdds;
    }
    return undefined;
  }

  private rememberFill(fillHash: string, fillSalt: string): void {
    this.fillCount++;
    this.recentFillSalts.set(fillSalt, fillHash);
    this.recentFillHashes.add(fillHash);
    this.recentFillOrder.push(fillSalt);
    if (this.recentFillSalts.size <= (this.params.recentFillWindow ?? DEFAULT_RECENT_FILL_WINDOW)) return;
    const oldestSalt = this.recentFillOrder.shift()!;
    this.recentFillHashes.delete(this.recentFillSalts.get(oldestSalt)!);
    this.recentFillSalts.delete(oldestSalt);
  }

  /** A closed order with no fill pending has nothing left for trading: it leaves memory (the read side keeps it). */
  private evictIfDone(o: Order): void {
    if (isOpen(o) || o.pendingFillAmount !== 0n) return;
    this.orders.delete(o.orderHash);
    this.closedOrders.add(o.orderHash);
    this.closedOrderExpiries.push(Math.min(o.apiExpiry, o.expiry) * 1000, o.orderHash);
    this.trimClosedOrders();
    this.compactExpiries();
  }

  /** Keeps the window of closed orders (and their expiry entries) bounded. */
  private trimClosedOrders(): void {
    const window = this.params.recentClosedOrderWindow ?? DEFAULT_RECENT_CLOSED_ORDER_WINDOW;
    while (this.closedOrders.size > window) this.closedOrders.deleteOldest();
    if (this.closedOrderExpiries.size > 2 * this.closedOrders.size + 1024) {
      this.closedOrderExpiries.retain((_at, key) => this.closedOrders.has(key));
    }
  }

  private forgetExpiredClosedOrders(at: number): void {
    const queue = this.closedOrderExpiries;
    for (let next = queue.nextAt(); next !== undefined && next <= at; next = queue.nextAt()) {
      this.closedOrders.delete(queue.nextKey());
      queue.pop();
    }
  }

  /**
   * Entries of orders that left memory (and of refreshed heartbeats) wait in the queue until their time; once they
   * outnumber the live ones the queue is rebuilt from the live ones, so it never grows with history.
   */
  private compactExpiries(): void {
    if (this.expiries.size <= 2 * (this.orders.size + this.heartbeats.size) + 1024) return;
    this.expiries.retain((at, key) => this.isLive(at, key));
  }

  // Plain loops on this path: a closure per call costs an allocation (and a name definition under tsx).
  private postOrders(orders: readonly NewOrder[], markets: readonly MarketRef[], at: number) {
    for (const o of orders) {
      if (!this.isRestricted(o.maker, at)) continue;
      const until = new Date(this.restrictions.get(o.maker)!.restrictedUntil!).toISOString();
      throw new DomainError('ACCOUNT_RESTRICTED', `${o.maker} may not post orders until ${until} after repeated balance shortfalls`);
    }
    for (const o of orders) if (isExpired(o, at)) throw new DomainError('ORDER_EXPIRED', `order ${o.orderHash} is past its expiry`);
    this.forgetExpiredClosedOrders(at);
    // One market (the common case) needs no index.
    const marketByHash = markets.length > 1 ? new Map(markets.map((m) => [m.marketHash, m])) : undefined;
    const statuses: { orderHash: string; status: OrderStatusCode }[] = [];
    for (const n of orders) {
      const market = marketByHash ? marketByHash.get(n.marketHash) : markets[0]?.marketHash === n.marketHash ? markets[0] : undefined;
      statuses.push({ orderHash: n.orderHash, status: this.postOrder(n, market, at) });
    }
    return statuses;
  }

  private postOrder(n: NewOrder, market: MarketRef | undefined, at: number): OrderStatusCode {
    if (!market || !market.tradeable || this.reported.has(n.marketHash) || this.life.refuses(market)) return 'INVALID_MARKET';
    if (this.orders.has(n.orderHash) || this.closedOrders.has(n.orderHash)) return 'ORDERS_ALREADY_EXIST';
    if (this.freeBalance(n.maker) < n.totalBetSize) return 'INSUFFICIENT_BALANCE';
    // Makers on opposite outcomes whose odds sum past 100% would cross: reject rather than rest a crossed book.
    const opposite = this.highestMakerOdds(n.marketHash, !n.isMakerBettingOutcomeOne, at);
    if (opposite !== undefined && opposite + n.percentageOdds > ODDS_SCALE) return 'ORDER_WOULD_CROSS';
    // Strings many orders repeat are taken from where the engine already holds them (the market, the maker's entry
    // of the open-order index, the parameters), not kept as a fresh copy per parsed order.
    const known = this.openByMaker.get(n.maker);
    const order = new LiveOrder(
      n.orderHash,
      market.marketHash,
      market.exchangeEventId,
      known?.maker ?? n.maker,
      n.baseToken === this.params.baseToken ? this.params.baseToken : n.baseToken,
      known?.executor === n.executor ? known.executor : n.executor,
      n.totalBetSize,
      n.percentageOdds,
      0n,
      0n,
      n.expiry,
      n.apiExpiry,
      n.salt,
      n.isMakerBettingOutcomeOne,
      n.signature,
      'ACTIVE',
      ++this.seq,
      at,
      at,
      NO_PENDING_FILLS,
    );
    this.orders.set(order.orderHash, order);
    this.indexOpen(order);
    this.bookOf(order.marketHash).side(order.isMakerBettingOutcomeOne).insert(order);
    this.expiries.push(Math.min(order.apiExpiry, order.expiry) * 1000, order.orderHash);
    this.addTo(this.exposure, order.maker, order.totalBetSize);
    this.emit({ type: 'orderAdded', order: factsOf(order), state: stateOf(order) });
    this.touched.add(order.maker);
    return 'OK';
  }

  /** Highest maker odds with free space on a side: the side's most aggressive maker, used for the cross check. */
  private highestMakerOdds(marketHash: string, isMakerBettingOutcomeOne: boolean, at: number): bigint | undefined {
    const side = this.books.get(marketHash)?.side(isMakerBettingOutcomeOne);
    if (!side) return undefined;
    // Walked by index, worst level and newest order first: no iterator objects on the posting path.
    for (let i = side.levelCount - 1; i >= 0; i--) {
      const orders = side.ordersAt(i);
      for (let j = orders.length - 1; j >= 0; j--) if (isTakeable(orders[j]!, at)) return orders[j]!.percentageOdds;
    }
    return undefined;
  }

  // ---- fills ----------------------------------------------------------------------------------

  private fill(cmd: Extract<Command, { kind: 'fill' }>): FillResult {
    const { market, taker, at } = cmd;
    if (this.recentFillSalts.has(cmd.fillSalt) || this.recentFillHashes.has(cmd.fillHash)) {
      throw new DomainError('FILL_ALREADY_SUBMITTED');
    }
    if (!market.tradeable || this.reported.has(market.marketHash) || this.life.refuses(market)) {
      throw new DomainError('MARKET_NOT_TRADEABLE');
    }
    // Without slippage the bound is the desired odds themselves (d * 100 / 100): no bigint arithmetic.
    const minTakerOdds = cmd.oddsSlippage === 0 ? cmd.desiredOdds : (cmd.desiredOdds * BigInt(100 - cmd.oddsSlippage)) / 100n;
    // Reads only: a refused fill must not even create an empty book.
    const side = this.books.get(market.marketHash)?.side(!cmd.isTakerBettingOutcomeOne);
    const matchScratch = this.matchScratch;
    matchScratch.length = 0;
    const matched = this.matchedScratch;
    matched.length = 0;
    let remaining = cmd.stakeWei;
    let sawLiquidity = false;
    // Walked by index (no iterator objects), best level first.
    walk: for (let i = 0; side !== undefined && i < side.levelCount; i++) {
      for (const o of side.ordersAt(i)) {
        // An INACTIVE order has no fillable space (its status says so without the bigint arithmetic).
        if (o.status !== 'ACTIVE' || o.maker === taker || isExpired(o, at)) continue;
        const free = freeMakerSpace(o);
        if (!hasTakeableSpace(free, o.percentageOdds)) continue;
        const takerSpace = remainingTakerSpace(free, o.percentageOdds);
        sawLiquidity = true;
        // Sorted best first: once an order is worse than the slippage bound, so is every later one.
        if (ODDS_SCALE - o.percentageOdds < minTakerOdds) break walk;
        const takerStake = remaining < takerSpace ? remaining : takerSpace;
        const makerStake = makerSpaceForTakerStake(takerStake, o.percentageOdds);
        // What is left of the taker's stake is dust that buys no maker wei: the fill is done.
        if (makerStake === 0n) break walk;
        // The record and the change record share it (neither changes it).
        matchScratch.push(new MatchRecord(o.orderHash, o.maker, makerStake, takerStake, o.percentageOdds));
        matched.push(o);
        remaining -= takerStake;
        if (remaining === 0n) break walk;
      }
    }
    if (matchScratch.length === 0) {
      throw new DomainError(sawLiquidity ? 'INVALID_ODDS_SLIPPAGE' : 'INSUFFICIENT_SPACE');
    }
    const totalTakerStake = cmd.stakeWei - remaining;
    if (this.freeBalance(taker) < totalTakerStake) {
      throw new DomainError('INSUFFICIENT_BALANCE', `${taker} cannot cover a stake of ${totalTakerStake}`);
    }

    const matches = matchScratch.slice();
    matchScratch.length = 0;
    this.tradeScratch.length = 0;
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
    this.emit({
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
    for (let i = 0; i < matches.length; i++) {
      const m = matches[i]!;
      const o = matched[i]!;
      const exposureBefore = orderExposure(o);
      o.pendingFillAmount += m.makerStake;
      if (o.pendingFills === NO_PENDING_FILLS) o.pendingFills = new Map();
      o.pendingFills.set(cmd.fillHash, m.makerStake);
      if (!hasFillableSpace(o)) o.status = 'INACTIVE';
      this.orderUpdated(o, true, exposureBefore, at);
      this.recordTrades(record, o, m, market, at);
    }
    matched.length = 0;
    record.trades = this.tradeScratch.slice();
    this.tradeScratch.length = 0;
    this.pendingFillRecords.set(record.fillHash, record);
    this.rememberFill(record.fillHash, cmd.fillSalt);
    this.addTo(this.pendingTakerStake, taker, totalTakerStake);
    this.touched.add(taker);
    return {
      fillHash: record.fillHash,
      isPartialFill: remaining > 0n,
      totalFilled: totalTakerStake,
      averageOdds: weightedTakerOdds(matches),
    };
  }

  /** A matched pair yields a maker and a taker trade; on a quarter line, one pair per leg at half stake each. */
  private recordTrades(record: FillRecord, o: Order, m: FillRecord['matches'][number], market: MarketRef, at: number): void {
    if (!market.legs) {
      this.recordPair(record, o, market, market.marketHash, undefined, m.makerStake, m.takerStake, at);
      return;
    }
    for (const leg of splitQuarterLine(market.legs, m.makerStake, m.takerStake)) {
      this.recordPair(record, o, market, leg.marketHash, market.marketHash, leg.makerStake, leg.takerStake, at);
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
    this.emit({ type: 'tradeRecorded', trade: facts });
  }

  /** The chain carried these pending fills in transaction `txHash` (it may be retried in another). */
  private fillAttempt(fillHashes: readonly string[], txHash: string, at: number): void {
    for (const fillHash of fillHashes) {
      const record = this.pendingFillRecords.get(fillHash);
      if (!record) continue;
      (record.attempts ??= []).push(txHash);
      record.lastAttemptAt = at;
      this.emit({ type: 'fillAttempted', fillHash, txHash, at });
    }
  }

  /**
   * The chain executes the fill: both sides' stakes move to escrow, or the fill fails and frees its space.
   * The local chain decides by the ledger's balances; an on-chain settlement reports what happened.
   */
  private confirmFill(fillHash: string, at: number, chain?: ChainExecution): void {
    const record = this.pendingFillRecords.get(fillHash);
    if (!record) return;
    const owed = this.owedScratch;
    owed.clear();
    owed.set(record.taker, record.totalTakerStake);
    for (const m of record.matches) this.addTo(owed, m.maker, m.makerStake);
    const funded = this.wallets.executes(owed, chain);
    record.status = funded ? 'SUCCESS' : 'FAILED';
    if (chain?.txHash !== undefined) record.txHash = chain.txHash;
    if (chain?.reason !== undefined) record.failureReason = chain.reason;
    this.pendingFillRecords.delete(fillHash);
    const executed: Mutable<ChangeOf<'fillExecuted'>> = { type: 'fillExecuted', fillHash, status: record.status, at };
    if (record.txHash !== undefined) executed.txHash = record.txHash;
    if (record.failureReason !== undefined) executed.failureReason = record.failureReason;
    // The fill has left the pending records: its attempts change no more.
    if (record.attempts !== undefined) {
      executed.attempts = record.attempts;
      executed.lastAttemptAt = record.lastAttemptAt!;
    }
    this.emit(executed);

    for (const m of record.matches) {
      const o = this.orders.get(m.orderHash)!;
      const wasOpen = isOpen(o);
      const exposureBefore = orderExposure(o);
      o.pendingFillAmount -= m.makerStake;
      // The last pending fill takes the map with it: deleting a Map's last entry allocates it a fresh empty table.
      if (o.pendingFills.size === 1 && o.pendingFills.has(fillHash)) o.pendingFills = NO_PENDING_FILLS;
      else o.pendingFills.delete(fillHash);
      if (funded) o.fillAmount += m.makerStake;
      if (wasOpen) {
        const exhausted = !hasFillableSpace(o);
        if (exhausted && o.pendingFillAmount === 0n) o.status = 'FILLED';
        else o.status = exhausted ? 'INACTIVE' : 'ACTIVE';
      }
      this.orderUpdated(o, wasOpen, exposureBefore, at);
    }
    this.addTo(this.pendingTakerStake, record.taker, -record.totalTakerStake);
    const parties = this.partiesScratch;
    parties.length = 0;
    const partyIndex = this.partyIndexScratch;
    if (partyIndex.size > 0) partyIndex.clear();
    for (const t of record.trades) {
      this.emit({ type: 'tradeStatusChanged', tradeId: t.id, status: record.status, at, trade: t });
      if (!funded) continue;
      this.wallets.hold(t.bettor, t.marketHash, t.stake);
      const outcome = this.reported.get(t.marketHash);
      if (outcome !== undefined) {
        // Confirmed after its market was reported: settles on its own, outside the refunded positions.
        this.settleLateTrade(t, outcome, at);
        continue;
      }
      this.positionOf(t.marketHash, t.bettor).add(t);
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
    for (const t of parties) this.refundExcessEscrow(t.marketHash, t.bettor, t.maker, record.fillHash, t.baseToken, at);
    for (const address of owed.keys()) this.touched.add(address);
  }

  private positionOf(marketHash: string, bettor: string): Position {
    let perMarket = this.positions.get(marketHash);
    if (!perMarket) this.positions.set(marketHash, (perMarket = new Map()));
    let position = perMarket.get(bettor);
    if (!position) perMarket.set(bettor, (position = new Position()));
    return position;
  }

  private refundedTo(marketHash: string, bettor: string): bigint {
    return this.refunded.get(marketHash)?.get(bettor) ?? 0n;
  }

  /** Escrow above the positions' worst-case loss goes back to the wallet at once. */
  private refundExcessEscrow(marketHash: string, bettor: string, maker: boolean, fillHash: string, baseToken: string, at: number): void {
    const held = this.wallets.escrowIn(bettor, marketHash);
    const needed = this.positionOf(marketHash, bettor).worstCaseLoss();
    if (held <= needed) return;
    const amount = held - needed;
    this.wallets.payOut(bettor, marketHash, amount, amount);
    let perMarket = this.refunded.get(marketHash);
    if (!perMarket) this.refunded.set(marketHash, (perMarket = new Map()));
    perMarket.set(bettor, (perMarket.get(bettor) ?? 0n) + amount);
    const refund = { id: ++this.refundCount, marketHash, baseToken, bettor, maker, fillOrderHash: fillHash, amount, createdAt: at };
    this.emit({ type: 'refundPaid', refund });
  }

  // ---- cancels, heartbeats, expiry --------------------------------------------------------------

  /** Refuses a stale or replayed cancel. */
  private checkCancelReplay(maker: string, salt: string, timestamp: number, at: number): void {
    const skewMs = this.params.cancelMaxSkewSeconds * 1000;
    const signedMs = timestamp * 1000;
    if (Math.abs(signedMs - at) > skewMs || signedMs <= this.forgottenCancelsUpTo) {
      throw new DomainError('STALE_TIMESTAMP', `timestamp must be within ${this.params.cancelMaxSkewSeconds} s of server time`);
    }
    if (this.cancelSalts.has(maker, salt)) {
      throw new DomainError('CANCEL_REQUEST_ALREADY_PROCESSED');
    }
    // A salt whose signed timestamp is older than the skew can no longer pass the check: forget it, and raise the
    // floor so its timestamp stays refused whatever the clock does next.
    for (let signed = this.cancelSalts.oldestTime(); signed !== undefined; signed = this.cancelSalts.oldestTime()) {
      if (signed >= at - skewMs) break;
      this.cancelSalts.forgetOldest();
      if (signed > this.forgottenCancelsUpTo) this.forgottenCancelsUpTo = signed;
    }
  }

  private cancelOrders(maker: string, orderHashes: string[], at: number): CancelResult {
    const result: CancelResult = { cancelledCount: 0, orders: [], notCancelled: [] };
    const seen = this.seenScratch;
    // Clearing a Set allocates a new table: only when the last use filled it.
    if (seen.size > 0) seen.clear();
    for (const hash of orderHashes) {
      const o = this.orders.get(hash);
      if (seen.has(hash)) continue;
      if (orderHashes.length > 1) seen.add(hash);
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
        this.setOrderStatus(o, 'CANCELLED', at);
        result.cancelledCount++;
        result.orders.push({
          orderHash: hash,
          pendingFills: o.pendingFills.size === 0 ? [] : [...o.pendingFills].map(([fillHash, amount]) => ({ fillHash, pendingFillAmount: amount.toString() })),
        });
      }
    }
    return result;
  }

  private heartbeat(requestor: string, timeoutSeconds: number, at: number): HeartbeatResult {
    if (timeoutSeconds === 0) {
      this.heartbeats.delete(requestor);
      this.emit({ type: 'heartbeatSet', requestor, timeoutSeconds: 0, expiresAt: null });
      return { requestor, timeoutSeconds: 0, expiresAt: null };
    }
    const hb: Heartbeat = { requestor, timeoutSeconds, expiresAt: at + timeoutSeconds * 1000 };
    this.heartbeats.set(requestor, hb);
    this.expiries.push(hb.expiresAt, `hb:${requestor}`);
    this.compactExpiries();
    this.emit({ type: 'heartbeatSet', ...hb });
    return { ...hb };
  }

  /** Whether a queued expiry still means something (its order is open, its heartbeat unchanged). */
  private isLive(at: number, key: string): boolean {
    if (key.startsWith('hb:')) return this.heartbeats.get(key.slice(3))?.expiresAt === at;
    const o = this.orders.get(key);
    return o !== undefined && isOpen(o);
  }

  /** The earliest time at which `expire` would change something, for the runner's timer. */
  nextExpiryAt(): number | undefined {
    // Dropping stale entries changes no observable state: the queue is only an index.
    for (let next = this.expiries.nextAt(); next !== undefined; next = this.expiries.nextAt()) {
      if (this.isLive(next, this.expiries.nextKey())) return next;
      this.expiries.pop();
    }
    return undefined;
  }

  private expire(at: number): void {
    for (let next = this.expiries.nextAt(); next !== undefined && next <= at; next = this.expiries.nextAt()) {
      const key = this.expiries.nextKey();
      const live = this.isLive(next, key);
      this.expiries.pop();
      if (!live) continue;
      if (key.startsWith('hb:')) {
        const requestor = key.slice(3);
        this.heartbeats.delete(requestor);
        this.emit({ type: 'heartbeatExpired', requestor, at });
        for (const o of [...(this.openByMaker.get(requestor)?.all.values() ?? [])]) {
          this.setOrderStatus(o, 'CANCELLED', at);
        }
      } else {
        const o = this.orders.get(key)!;
        this.setOrderStatus(o, 'EXPIRED', at);
      }
    }
  }

  // ---- settlement -----------------------------------------------------------------------------

  /** A market is reported once: the same outcome again changes nothing, another outcome is refused. */
  private checkReports(reports: readonly { marketHash: string; outcome: Outcome }[]): void {
    const outcomes = new Map(this.reported);
    for (const r of reports) {
      const known = outcomes.get(r.marketHash);
      if (known !== undefined && known !== r.outcome) {
        throw new DomainError('MARKET_ALREADY_REPORTED', `${r.marketHash} was already reported with outcome ${known}`);
      }
      outcomes.set(r.marketHash, r.outcome);
    }
  }

  private checkNotReported(marketHashes: readonly string[]): void {
    const reported = marketHashes.find((h) => this.reported.has(h));
    if (reported) throw new DomainError('MARKET_ALREADY_REPORTED', `${reported} is reported: its status is SETTLED for good`);
  }

  /** Every listed market gets the status (recorded even when unchanged, so the catalogue's copy always follows). */
  private setMarketStatus(marketHashes: readonly string[], status: MarketLifeStatus, at: number): void {
    for (const marketHash of marketHashes) {
      if (this.reported.has(marketHash)) continue;
      this.life.setSuspended(marketHash, status === 'SUSPENDED');
      this.emit({ type: 'marketStatusChanged', marketHash, status, at });
    }
  }

  private setFixtureStatus(change: FixtureStatusChange, inPlay: boolean, closedInPlay: readonly string[], at: number): void {
    this.life.setInPlay(change.exchangeEventId, inPlay);
    this.emit({ type: 'fixtureStatusChanged', exchangeEventId: change.exchangeEventId, status: change.status, at });
    // Kick-off: quotes on markets closed in play go at once.
    if (inPlay) for (const marketHash of closedInPlay) this.cancelBook(marketHash, at);
  }

  /** Every open order of a market leaves its book as CANCELLED (pending fills still settle). */
  private cancelBook(marketHash: string, at: number): void {
    const book = this.books.get(marketHash);
    for (const side of book ? [book.outcomeOne, book.outcomeTwo] : []) {
      for (const o of side.snapshot()) this.setOrderStatus(o, 'CANCELLED', at);
    }
  }

  private reportMarket(result: MarketResult, at: number): void {
    const { marketHash, outcome } = result;
    if (this.reported.has(marketHash)) return;
    this.reported.set(marketHash, outcome);
    this.life.forget(marketHash);
    this.emit({ type: 'marketReported', ...result, at });
    this.cancelBook(marketHash, at);
    for (const [bettor, position] of this.positions.get(marketHash) ?? []) {
      this.settlePosition(marketHash, bettor, position, outcome, this.refundedTo(marketHash, bettor), at);
    }
    this.books.delete(marketHash);
    this.positions.delete(marketHash);
    this.refunded.delete(marketHash);
  }

  /**
   * Pays a bettor's position in a market from escrow: each trade's stake back on void, stake plus the counterparty's
   * stake on a win, less what refunds already paid out early. One change says so; the read side splits it per trade.
   */
  private settlePosition(marketHash: string, bettor: string, position: Position, outcome: Outcome, refunded: bigint, at: number): void {
    const payout = position.payout(outcome);
    if (payout < refunded) throw new Error(`refunds of ${bettor} in ${marketHash} exceed its settlement payout`);
    this.emit({ type: 'positionSettled', marketHash, bettor, outcome, payout, credit: payout - refunded, settleDate: at });
    this.wallets.payOut(bettor, marketHash, position.stakes() - refunded, payout - refunded);
    this.touched.add(bettor);
  }

  /** A trade confirmed after its market was reported: no refund touched it, so it is credited its payout. */
  private settleLateTrade(t: TradeFacts, outcome: Outcome, at: number): void {
    const payout = tradePayout(t, outcome);
    this.emit({ type: 'tradeSettled', tradeId: t.id, outcome, payout, credit: payout, settleDate: at });
    this.wallets.payOut(t.bettor, t.marketHash, t.stake, payout);
    this.touched.add(t.bettor);
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

/**
 * One maker's open orders, in posting order and per event. The entry stays while its maker has none open (one per
 * maker, as the maker's wallet entry), so a maker quoting one order at a time allocates nothing per order here;
 * an event's map goes once the event has no open order left.
 */
class MakerOpenOrders {
  readonly all = new Map<string, Order>();
  readonly byEvent = new Map<string, Map<string, Order>>();
  /** The executor of the maker's latest order: the string a new order with the same executor shares. */
  executor: string | undefined;

  /** `maker`: the string every later order of this maker shares. */
  constructor(readonly maker: string) {}

  add(o: Order): void {
    this.executor = o.executor;
    this.all.set(o.orderHash, o);
    let inEvent = this.byEvent.get(o.exchangeEventId);
    if (!inEvent) this.byEvent.set(o.exchangeEventId, (inEvent = new Map()));
    inEvent.set(o.orderHash, o);
  }

  remove(o: Order): void {
    this.all.delete(o.orderHash);
    const inEvent = this.byEvent.get(o.exchangeEventId);
    if (inEvent?.delete(o.orderHash) && inEvent.size === 0) this.byEvent.delete(o.exchangeEventId);
  }
}
