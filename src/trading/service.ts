// The trading side of the process: the engine behind its runner, the read models, the settlement chain and the
// realtime feed (orders, trades and best odds rendered once per commit from the change records and put on the bus).
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { Catalogue, MarketRecord } from '../catalogue/catalogue.js';
import type { ChainSink, SettlementChain } from '../chain/settlement-chain.js';
import { ChainSubmitter } from '../chain/chain-submitter.js';
import type { EventBus } from '../events.js';
import { Engine } from '../engine/engine.js';
import { DomainError } from '../engine/errors.js';
import type { Change, OrderState, RefundPaid } from '../engine/changes.js';
import type { Command, FixtureStatusChange, MarketRef, MarketResult, OrderView, ResultOf, SettlementFees } from '../engine/types.js';
import { isParlayMarket } from '../catalogue/model.js';
import { checksumAddress } from '../protocol/address.js';

import type { ReadModels } from '../store/ports.js';
import type { Projector } from '../store/ports.js';
import { ProjectionLoop } from '../store/projection-loop.js';
import { EngineRunner, type ReplayReport } from '../store/runner.js';
import { orderToChannel, tradeToRest, type TradeRenderContext } from './render.js';
import { changedConsolidated, type ConsolidatedContext } from './consolidated.js';
import { changedRefundGroups } from './refund-groups.js';
import { ChangedTrades } from '../store/changed-trades.js';
import { NOBODY, type FeedAudience } from '../realtime/feeds.js';
import type { TradingStore } from '../store/ports.js';

export interface BestOddsSide {
  percentageOdds: string | null;
  updatedAt: number;
}

export interface TradingDeps {
  config: Pick<
    Config,
    | 'oddsLadderStepSize'
    | 'makerMinimum'
    | 'takerMinimum'
    | 'cancelMaxSkewSeconds'
    | 'baseTokenAddress'
    | 'baseTokenDecimals'
    | 'exchangeAffiliate'
    | 'restriction'
    | 'chainVersion'
    | 'snapshotEveryCommands'
    | 'snapshotEveryMs'
    | 'storageBusyTimeoutMs'
    | 'killAfterCommitOf'
    | 'chain'
    | 'chainSubmit'
    | 'fees'
  >;
  store: TradingStore;
  /** Derives the read models from the journal, in their own database. */
  projector: Projector;
  /** Waits this long before each projection batch: an artificially slow projector (tests). */
  projectorDelayMs?: number;
  bus: EventBus;
  log: FastifyBaseLogger;
  now: () => number;
  /** The catalogue's markets: types and labels, and which are closed in play. */
  catalogue: Pick<Catalogue, 'getMarket' | 'isClosedInPlay' | 'applyCommitted'>;
  /** Builds the settlement chain (server.ts chooses it), given where to report and the live engine. */
  createChain: (sink: ChainSink, engine: () => Engine) => SettlementChain;
  /** Where archived journal rows go. */
  archiveDir: string;
  expirySweepMs?: number;
}

/**
 * How long apart the runner writes again a group the database was too busy to take: the WAL checkpoint thread holds
 * the lock for a few milliseconds at a time, and the SQLite store's commits do not wait for it themselves.
 */
const BUSY_RETRY_MS = 1;

/**
 * How far (in commands) the read side may be behind the journal while fills and new orders are checked against it
 * and the engine's windows of recent fills (10k) and closed orders (20k): far below both.
 */
const REPLAY_WINDOW_LAG = 2000;

export class TradingService {
  readonly runner: EngineRunner;
  readonly readModels: ReadModels;
  /** The read models' projection: its position is what reads wait for. */
  readonly projection: ProjectionLoop;
  readonly render: TradeRenderContext;
  readonly consolidated: ConsolidatedContext;
  /** The settlement chain behind retries: a chain that throws or hangs leaves fills PENDING, never trading broken. */
  readonly chain: ChainSubmitter;
  /** Items rendered for the realtime feeds since start, by kind: only what someone can receive is rendered. */
  readonly rendered = { orders: 0, trades: 0, consolidatedTrades: 0, refundGroups: 0 };
  /** Who can receive the per-commit publications (server.ts asks the realtime server); nobody until set. */
  audience: () => FeedAudience = () => NOBODY;
  /** Last published best odds per market side, to publish only real moves and to date them. */
  private readonly bestOdds = new Map<string, BestOddsSide>();
  private sweep: NodeJS.Timeout | undefined;

  constructor(private readonly deps: TradingDeps) {
    const c = deps.config;
    const params = {
      oddsLadderStepSize: c.oddsLadderStepSize,
      makerMinimum: c.makerMinimum,
      takerMinimum: c.takerMinimum,
      cancelMaxSkewSeconds: c.cancelMaxSkewSeconds,
      baseToken: c.baseTokenAddress,
      // Checksummed as wallets are keyed: the affiliate is paid its share of fees.
      affiliate: checksumAddress(c.exchangeAffiliate),
      restrictionWindowMs: c.restriction.windowMs,
      restrictionThreshold: c.restriction.threshold,
      restrictionMs: c.restriction.durationMs,
      walletsOnChain: c.chain === 'evm',
    };
    this.readModels = deps.projector.readModels;
    this.projection = new ProjectionLoop(deps.projector, {
      prepareFanOut: (changes) => this.prepareFanOut(changes),
      onProblem: (err) => deps.log.error({ err }, 'read models not projected; the journal holds the commands and projection is tried again'),
      ...(deps.projectorDelayMs ? { delayMs: deps.projectorDelayMs } : {}),
    });
    this.runner = new EngineRunner(deps.store, {
      createEngine: (snapshot) => (snapshot ? Engine.restore(params, snapshot) : new Engine(params)),
      now: deps.now,
      snapshotEveryCommands: c.snapshotEveryCommands,
      snapshotEveryMs: c.snapshotEveryMs,
      // A busy database is waited out for as long as a write waits for SQLite's lock.
      busyRetry: { delayMs: BUSY_RETRY_MS, forMs: c.storageBusyTimeoutMs },
      onSnapshotProblem: (err, what) => deps.log.error({ err }, what),
      committed: (changes) => {
        if (c.killAfterCommitOf && changes.some((ch) => ch.type === c.killAfterCommitOf)) process.kill(process.pid, 'SIGKILL');
        // Before any caller is answered: the catalogue's statuses follow the commit (its disk copy is in it).
        deps.catalogue.applyCommitted(changes);
        this.handToChain(changes);
      },
      projection: this.projection,
      onStorageFailure: (err, rebuilt) => {
        if (rebuilt) {
          deps.log.error({ err }, 'journal commit failed: batch refused, engine rebuilt from disk; trading continues');
          this.resetBestOdds();
        } else deps.log.fatal({ err }, 'journal commit failed and the engine could not be rebuilt from disk; refusing trading until restart');
      },
    });
    this.chain = new ChainSubmitter(this.createChain(deps), {
      ...c.chainSubmit,
      onFailure: ({ fillHash, attempt, retryInMs, err }) =>
        deps.log.warn({ err, fillHash, attempt, retryInMs }, 'settlement chain did not take a fill; it stays PENDING and is retried'),
    });
    const hasRefunds = (marketHash: string, bettor: string) => this.readModels.hasRefunds(marketHash, bettor);
    this.render = {
      decimals: c.baseTokenDecimals,
      chainVersion: c.chainVersion,
      marketType: (hash) => deps.catalogue.getMarket(hash)?.type,
      hasRefunds,
      fillOnChain: (fillHash) => this.readModels.fillOnChain(fillHash),
    };
    this.consolidated = {
      decimals: c.baseTokenDecimals,
      chainVersion: c.chainVersion,
      market: (hash) => deps.catalogue.getMarket(hash),
      hasRefunds,
    };
  }

  /** The chain reports back through journaled commands. */
  private createChain(deps: TradingDeps): SettlementChain {
    const run = (cmd: Command, what: string) =>
      void this.submit(cmd).catch((err: unknown) => deps.log.error({ err }, `${what} not recorded; the chain reports it again after a restart`));
    const sink: ChainSink = {
      executed: (fillHash, chain) => run({ kind: 'confirmFill', at: deps.now(), fillHash, ...(chain ? { chain } : {}) }, `execution of fill ${fillHash}`),
      attempted: (fillHashes, txHash) => run({ kind: 'fillAttempt', at: deps.now(), fillHashes, txHash }, `chain transaction ${txHash}`),
      events: (entries, toBlock) => run({ kind: 'chainEvents', at: deps.now(), toBlock, entries }, `chain events up to block ${toBlock}`),
    };
    return deps.createChain(sink, () => this.engine);
  }

  /** The live engine: read its state through its accessors only. */
  get engine(): Engine {
    return this.runner.engine;
  }

  /**
   * Rebuilds the engine (snapshot and journal tail), resubmits pending fills to the chain, starts the expiry sweep.
   * Orders still resting on markets closed in play (a stop between the fixture going live and their cancel) are
   * cancelled now.
   */
  async start(): Promise<ReplayReport> {
    const replayed = await this.runner.replay();
    this.resetBestOdds();
    this.chain.start();
    for (const fill of this.engine.pendingFills()) this.chain.submit(fill.fillHash, fill.acceptedAt);
    // What an on-chain escrow has not reported paying yet is handed again (it pays each once): bounded by what is
    // unpaid, not by history.
    if (this.chain.paysOnChain) {
      this.chain.refundsPaid(this.readModels.refundsUnpaidOnChain());
      this.chain.marketsReported(this.readModels.positionsUnpaidOnChain());
    }
    this.sweep = setInterval(() => this.sweepExpired(), this.deps.expirySweepMs ?? 200);
    this.sweep.unref();
    const catalogue = this.deps.catalogue;
    const closed = this.engine.bookedMarkets().flatMap((h) => catalogue.getMarket(h) ?? []);
    this.cancelRestingOrders(closed.filter((m) => catalogue.isClosedInPlay(m))).catch((err: unknown) =>
      this.deps.log.error({ err }, 'cancelling orders of markets closed in play failed'),
    );
    return replayed;
  }

  private async cancelRestingOrders(markets: readonly MarketRecord[]): Promise<void> {
    const withOrders = markets.filter((m) => this.engine.openOrdersIn(m.marketHash).length > 0);
    if (withOrders.length === 0) return;
    await this.submit({ kind: 'cancelMarketOrders', at: this.deps.now(), marketHashes: withOrders.map((m) => m.marketHash) });
  }

  stop(): void {
    if (this.sweep) clearInterval(this.sweep);
    this.chain.stop();
    this.runner.stop();
    // A clean stop leaves a snapshot of the final state, so the next start replays nothing.
    this.runner.snapshotNow();
  }

  snapshotNow(): number {
    return this.runner.snapshotNow();
  }

  archiveJournal(): { from: number; to: number; rows: number; file: string } | undefined {
    return this.deps.store.snapshots.archiveJournal(this.deps.archiveDir);
  }

  /** Applies a command; resolves once it is durable. */
  submit<C extends Command>(cmd: C): Promise<ResultOf<C>> {
    const guarded = cmd.kind === 'fill' || cmd.kind === 'postOrders' || cmd.kind === 'replaceOrders';
    // The engine's replay windows hold the fills and closed orders the read side has not projected yet only while
    // the projector is a bounded number of commands behind: past that, such a command waits for it.
    if (guarded && this.runner.durableSeq - this.projection.position > REPLAY_WINDOW_LAG) {
      return this.projection.waitFor(this.runner.durableSeq, 60_000).then(() => this.checkedSubmit(cmd));
    }
    return this.checkedSubmit(cmd);
  }

  private checkedSubmit<C extends Command>(cmd: C): Promise<ResultOf<C>> {
    // The engine remembers only recent fills and closed orders; every older one is in the read side.
    if (cmd.kind === 'fill' && this.readModels.fillUsed(cmd.fillSalt, cmd.fillHash)) {
      return Promise.reject(new DomainError('FILL_ALREADY_SUBMITTED'));
    }
    if (cmd.kind === 'postOrders') return this.postOrders(cmd) as Promise<ResultOf<C>>;
    // All or nothing: a new order of a replace posted before, however long ago, refuses the whole replace.
    if (cmd.kind === 'replaceOrders') {
      const posted = this.readModels.postedOrders(cmd.orders.map((o) => o.orderHash));
      if (posted.size > 0) return Promise.reject(new DomainError('ORDERS_ALREADY_EXIST', `order ${[...posted][0]} was already posted`));
    }
    return this.runner.submit(cmd);
  }

  /**
   * Orders posted before (open or long closed) are answered ORDERS_ALREADY_EXIST from the read side and never reach
   * the engine, so the journaled command holds only the new ones and replays the same.
   */
  private async postOrders(cmd: Extract<Command, { kind: 'postOrders' }>): Promise<ResultOf<typeof cmd>> {
    const posted = this.readModels.postedOrders(cmd.orders.map((o) => o.orderHash));
    if (posted.size === 0) return this.runner.submit(cmd);
    const fresh = cmd.orders.filter((o) => !posted.has(o.orderHash));
    const statuses = fresh.length > 0 ? (await this.runner.submit({ ...cmd, orders: fresh })).statuses : [];
    let next = 0;
    return {
      kind: 'postOrders',
      statuses: cmd.orders.map((o) => (posted.has(o.orderHash) ? { orderHash: o.orderHash, status: 'ORDERS_ALREADY_EXIST' as const } : statuses[next++]!)),
    };
  }

  // ---- what the catalogue asks of the trading side ------------------------------------------------

  /**
   * Markets were reported: journals the results, which cancels their open orders, settles their trades and sets
   * their catalogue status, with the suspensions and the fixture status that go with them, in one command.
   */
  async marketsReported(
    reports: MarketResult[],
    finalScore?: { teamOneScore: number; teamTwoScore: number },
    along: { suspend?: string[]; finishedFixture?: FixtureStatusChange } = {},
  ): Promise<void> {
    // Who holds positions, read before the report settles them: an on-chain escrow pays each of them.
    const bettors = reports.map((r) => this.engine.bettorsIn(r.marketHash));
    const fees = this.settlementFees(reports.map((r) => r.marketHash));
    await this.submit({
      kind: 'reportMarkets',
      at: this.deps.now(),
      reports: reports.map((r) => ({ ...r, ...finalScore })),
      ...(fees ? { fees } : {}),
      ...(along.suspend && along.suspend.length > 0 ? { suspend: along.suspend } : {}),
      ...(along.finishedFixture ? { finishedFixture: along.finishedFixture } : {}),
    });
    this.chain.marketsReported(reports.map((r, i) => ({ marketHash: r.marketHash, outcome: r.outcome, bettors: bettors[i]! })));
  }

  /**
   * The commission each reported market charges, by its bet type, or undefined when none does. Only the in-process
   * ledger takes fees: the settlement contract pays positions in full (its fees are not built yet).
   */
  private settlementFees(marketHashes: readonly string[]): SettlementFees | undefined {
    const c = this.deps.config;
    if (c.chain !== 'local') return undefined;
    const bpsByMarket: Record<string, number> = {};
    for (const marketHash of marketHashes) {
      const market = this.deps.catalogue.getMarket(marketHash);
      const bps = market && isParlayMarket(market) ? c.fees.parlaysBps : c.fees.singlesBps;
      if (bps > 0) bpsByMarket[marketHash] = bps;
    }
    if (Object.keys(bpsByMarket).length === 0) return undefined;
    return { bpsByMarket, account: checksumAddress(c.fees.account), affiliateShareBps: c.fees.affiliateShareBps };
  }

  /** Matched volume in base-token wei per market hash (for /markets/popular). */
  matchedVolume(): ReadonlyMap<string, bigint> {
    return this.readModels.matchedVolume();
  }

  // ---- market facts -----------------------------------------------------------------------------

  marketRef(market: MarketRecord): MarketRef {
    return {
      marketHash: market.marketHash,
      exchangeEventId: market.exchangeEventId,
      tradeable: market.status === 'ACTIVE' && !this.deps.catalogue.isClosedInPlay(market),
      liveEnabled: market.liveEnabled,
      ...(market.isQuarterLineMarket && market.legMarketHashes ? { legs: market.legMarketHashes } : {}),
    };
  }

  /**
   * Best odds of one market as GET /orders/odds/best reports it: a side without orders is left out, and a market
   * without any orders has no entry (undefined), so no percentageOdds is ever null.
   */
  bestOddsEntry(marketHash: string): Record<string, unknown> | undefined {
    const side = (one: boolean) => {
      const best = this.bestOdds.get(`${marketHash}:${one}`);
      return best?.percentageOdds ? { percentageOdds: best.percentageOdds, updatedAt: best.updatedAt } : undefined;
    };
    const outcomeOne = side(true);
    const outcomeTwo = side(false);
    if (!outcomeOne && !outcomeTwo) return undefined;
    return {
      marketHash,
      baseToken: this.deps.config.baseTokenAddress,
      ...(outcomeOne ? { outcomeOne } : {}),
      ...(outcomeTwo ? { outcomeTwo } : {}),
    };
  }

  // ---- realtime feed ----------------------------------------------------------------------------

  private resetBestOdds(): void {
    this.bestOdds.clear();
    const now = this.deps.now();
    for (const marketHash of this.engine.bookedMarkets()) this.refreshBestOdds(marketHash, now);
  }

  /**
   * Returns the best_odds:global items of the sides whose best odds moved to a price. A side that lost its last
   * order is remembered but not published: no percentageOdds on the wire is ever null.
   */
  private refreshBestOdds(marketHash: string, at: number): Record<string, unknown>[] {
    const moved: Record<string, unknown>[] = [];
    for (const one of [true, false]) {
      const key = `${marketHash}:${one}`;
      const odds = this.engine.bestMakerOdds(marketHash, one, at)?.toString() ?? null;
      const previous = this.bestOdds.get(key);
      if (previous && previous.percentageOdds === odds) continue;
      if (!previous && odds === null) continue;
      this.bestOdds.set(key, { percentageOdds: odds, updatedAt: at });
      if (odds === null) continue;
      const market = this.deps.catalogue.getMarket(marketHash);
      moved.push({
        marketHash,
        baseToken: this.deps.config.baseTokenAddress,
        isMakerBettingOutcomeOne: one,
        percentageOdds: odds,
        updatedAt: at,
        sportId: market?.sportId ?? 0,
        leagueId: market?.leagueId ?? 0,
      });
    }
    return moved;
  }

  /** Right after a commit: accepted fills go to the chain, and refunds paid from escrow are paid on chain too. */
  private handToChain(changes: readonly Change[]): void {
    const refunds: RefundPaid[] = [];
    for (const c of changes) {
      if (c.type === 'fillAccepted') this.chain.submit(c.fillHash, c.acceptedAt);
      else if (c.type === 'refundPaid') refunds.push(c.refund);
    }
    this.chain.refundsPaid(refunds);
  }

  /**
   * Right after a group is projected (the read models exactly as it left them; the engine perhaps further on, which
   * only best odds read): renders what its publications show, for the channels someone can receive (the bus's
   * audience); best odds always, since main lines follow them. Returns the fan-out, run once the projection has
   * committed. A channel first subscribed after this point misses nothing its subscriber can see: its REST snapshot already holds the group.
   */
  private prepareFanOut(changes: readonly Change[]): () => void {
    const audience = this.audience();
    const wantsTrades = audience.trades();
    const wantsConsolidated = audience.consolidatedTrades();
    const wantsAnyTrade = wantsTrades || wantsConsolidated;
    /** Per market: whether one of its book channels is read (asked once per market and commit). */
    const bookRead = new Map<string, boolean>();
    const wantsOrder = (marketHash: string, maker: string): boolean => {
      let book = bookRead.get(marketHash);
      if (book === undefined) {
        const eventId = this.deps.catalogue.getMarket(marketHash)?.exchangeEventId;
        book = audience.book(marketHash, eventId ?? '');
        bookRead.set(marketHash, book);
      }
      return book || audience.maker(maker);
    };
    /** Markets whose orders changed: their best odds are refreshed whoever reads them. */
    const markets = new Set<string>();
    // Orders render from the state their change records carry: a closed order may have left the engine since.
    const orderStates = new Map<string, OrderState>();
    const tradeIds = new Set<string>();
    const refunds: RefundPaid[] = [];
    /** Markets whose positions a report settled: their trades are read once per market, not per bettor. */
    const settledMarkets = new Map<string, { marketHash: string; settleDate: number }>();
    for (const c of changes) {
      switch (c.type) {
        case 'orderAdded':
          markets.add(c.order.marketHash);
          if (wantsOrder(c.order.marketHash, c.order.maker)) orderStates.set(c.order.orderHash, c.state);
          break;
        case 'orderChanged':
          markets.add(c.marketHash);
          if (wantsOrder(c.marketHash, c.maker)) orderStates.set(c.orderHash, c.state);
          break;
        case 'tradeRecorded':
          if (wantsAnyTrade) tradeIds.add(c.trade.id);
          break;
        case 'tradeStatusChanged':
        case 'tradeSettled':
          if (wantsAnyTrade) tradeIds.add(c.tradeId);
          break;
        case 'positionSettled':
          if (wantsAnyTrade) settledMarkets.set(`${c.marketHash}|${c.settleDate}`, c);
          break;
        case 'positionPaidOnChain':
          if (wantsAnyTrade) for (const id of this.readModels.tradesPaidIn(c.marketHash, c.bettor, c.txHash)) tradeIds.add(id);
          break;
        case 'refundPaid':
          refunds.push(c.refund);
          break;
        default:
          break;
      }
    }
    for (const m of settledMarkets.values()) for (const id of this.readModels.tradesSettledIn(m.marketHash, m.settleDate)) tradeIds.add(id);
    const emits: (() => void)[] = [];
    const at = this.deps.now();
    if (orderStates.size > 0) this.renderOrders(orderStates, emits);
    const moved = [...markets].flatMap((m) => this.refreshBestOdds(m, at));
    const bus = this.deps.bus;
    if (moved.length > 0) emits.push(() => bus.emit('bestOdds', moved));
    if (tradeIds.size > 0) this.renderTrades(tradeIds, new ChangedTrades(changes), refunds, { trades: wantsTrades, consolidated: wantsConsolidated }, emits);
    const readRefunds = refunds.filter((r) => audience.refunds(r.bettor));
    if (readRefunds.length > 0) {
      for (const update of changedRefundGroups(this.readModels, readRefunds, this.render.decimals)) {
        this.rendered.refundGroups += update.groups.length;
        emits.push(() => bus.emit('refunds', update));
      }
    }
    return () => {
      for (const emit of emits) emit();
    };
  }

  /** The changed orders as their channels show them, one `orders` event per market. */
  private renderOrders(orderStates: ReadonlyMap<string, OrderState>, emits: (() => void)[]): void {
    const bus = this.deps.bus;
    const byMarket = new Map<string, OrderView[]>();
    for (const [hash, state] of orderStates) {
      // The signed facts never change; the state is the one committed with this batch.
      const facts = this.engine.order(hash) ?? this.readModels.order(hash);
      if (!facts) continue;
      const o: OrderView = { ...facts, ...state };
      const list = byMarket.get(o.marketHash);
      if (list) list.push(o);
      else byMarket.set(o.marketHash, [o]);
    }
    for (const [marketHash, orders] of byMarket) {
      const update = { marketHash, exchangeEventId: orders[0]!.exchangeEventId, orders: orders.map(orderToChannel) };
      this.rendered.orders += orders.length;
      emits.push(() => bus.emit('orders', update));
    }
  }

  /** The changed trades for recent_trades and, from the same facts, their consolidated entries: each only if read. */
  private renderTrades(
    tradeIds: ReadonlySet<string>,
    changed: ChangedTrades,
    refunds: readonly RefundPaid[],
    read: { trades: boolean; consolidated: boolean },
    emits: (() => void)[],
  ): void {
    const bus = this.deps.bus;
    // What the change records describe is rendered from them; only the rest is read from the store.
    const trades = [...tradeIds].flatMap((id) => changed.trade(id) ?? this.readModels.trade(id) ?? []);
    // The trades' refund flags: one read for the commit, shared by both renderings.
    const hasRefunds = this.readModels.refundsSeen(trades);
    if (read.trades) {
      // The fills the change records do not describe: one read for the commit.
      const stored = this.readModels.fillsOnChain(trades.flatMap((t) => (changed.fillOnChain(t.fillHash) ? [] : [t.fillHash])));
      const rc: TradeRenderContext = { ...this.render, hasRefunds, fillOnChain: (fillHash) => changed.fillOnChain(fillHash) ?? stored(fillHash) };
      const rendered = trades.map((t) => tradeToRest(t, rc));
      this.rendered.trades += rendered.length;
      emits.push(() => bus.emit('trades', rendered));
    }
    if (read.consolidated) {
      // The entries ask the same (market, bettor) refund questions as the trades.
      const cc = { ...this.consolidated, hasRefunds };
      const consolidated = changedConsolidated(this.readModels, cc, trades, this.firstRefunds(refunds), changed);
      this.rendered.consolidatedTrades += consolidated.length;
      if (consolidated.length > 0) emits.push(() => bus.emit('consolidatedTrades', consolidated));
    }
  }

  /** (bettor, market) pairs whose first refund is among these: their entries' marketHasRefunds just flipped. */
  private firstRefunds(refunds: readonly RefundPaid[]): { bettor: string; marketHash: string }[] {
    const earliest = new Map<string, RefundPaid>();
    for (const r of refunds) {
      const key = `${r.bettor}|${r.marketHash}`;
      const seen = earliest.get(key);
      if (!seen || r.id < seen.id) earliest.set(key, r);
    }
    return [...earliest.values()]
      .filter((r) => !this.readModels.hasRefundBefore(r.marketHash, r.bettor, r.id))
      .map((r) => ({ bettor: r.bettor, marketHash: r.marketHash }));
  }

  private sweepExpired(): void {
    const next = this.engine.nextExpiryAt();
    const now = this.deps.now();
    if (next !== undefined && next <= now) {
      this.submit({ kind: 'expire', at: now }).catch((err: unknown) => this.deps.log.error({ err }, 'expiry sweep not recorded'));
    }
  }
}
