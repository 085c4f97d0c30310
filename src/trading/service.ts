// The trading side of the process: the engine behind its runner, the read models, the settlement chain and the
// realtime feed (orders, trades and best odds rendered once per commit from the change records and put on the bus).
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { Catalogue, MarketRecord } from '../catalogue/catalogue.js';
import type { SettlementChain } from '../chain/settlement-chain.js';
import type { EventBus } from '../events.js';
import { Engine } from '../engine/engine.js';
import { DomainError } from '../engine/errors.js';
import type { Change, RefundPaid } from '../engine/changes.js';
import type { Command, MarketRef, MarketResult, OrderView, ResultOf } from '../engine/types.js';
import type { TradingStore } from '../store/trading-store.js';
import type { TradingReadModels } from '../store/read-models.js';
import { EngineRunner, type ReplayReport } from './runner.js';
import { orderToChannel, tradeToRest, type TradeRenderContext } from './render.js';
import { changedConsolidated, type ConsolidatedContext } from './consolidated.js';
import { changedRefundGroups } from './refund-groups.js';

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
  >;
  store: TradingStore;
  bus: EventBus;
  log: FastifyBaseLogger;
  now: () => number;
  /** The catalogue's markets: types and labels, and which are closed in play. */
  catalogue: Pick<Catalogue, 'getMarket' | 'isClosedInPlay' | 'marketsOfEvent'>;
  chain: SettlementChain;
  /** Where archived journal rows go. */
  archiveDir: string;
  expirySweepMs?: number;
}

export class TradingService {
  readonly runner: EngineRunner;
  readonly readModels: TradingReadModels;
  readonly render: TradeRenderContext;
  readonly consolidated: ConsolidatedContext;
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
      affiliate: c.exchangeAffiliate,
      restrictionWindowMs: c.restriction.windowMs,
      restrictionThreshold: c.restriction.threshold,
      restrictionMs: c.restriction.durationMs,
    };
    this.readModels = deps.store.readModels;
    this.runner = new EngineRunner(deps.store, {
      createEngine: (snapshot) => (snapshot ? Engine.restore(params, snapshot) : new Engine(params)),
      now: deps.now,
      snapshotEveryCommands: c.snapshotEveryCommands,
      snapshotEveryMs: c.snapshotEveryMs,
      onSnapshotProblem: (err, what) => deps.log.error({ err }, what),
      afterCommit: (changes) => this.afterCommit(changes),
      onStorageFailure: (err, rebuilt) => {
        if (rebuilt) {
          deps.log.error({ err }, 'journal commit failed: batch refused, engine rebuilt from disk; trading continues');
          this.resetBestOdds();
        } else deps.log.fatal({ err }, 'journal commit failed and the engine could not be rebuilt from disk; refusing trading until restart');
      },
    });
    const hasRefunds = (marketHash: string, bettor: string) => this.readModels.hasRefunds(marketHash, bettor);
    this.render = {
      decimals: c.baseTokenDecimals,
      chainVersion: c.chainVersion,
      marketType: (hash) => deps.catalogue.getMarket(hash)?.type,
      hasRefunds,
    };
    this.consolidated = {
      decimals: c.baseTokenDecimals,
      chainVersion: c.chainVersion,
      market: (hash) => deps.catalogue.getMarket(hash),
      hasRefunds,
    };
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
  start(): ReplayReport {
    const replayed = this.runner.replay();
    this.resetBestOdds();
    for (const fill of this.engine.pendingFills()) this.deps.chain.submit(fill.fillHash, fill.acceptedAt);
    this.sweep = setInterval(() => this.sweepExpired(), this.deps.expirySweepMs ?? 200);
    this.sweep.unref();
    const catalogue = this.deps.catalogue;
    const closed = this.engine.bookedMarkets().flatMap((h) => catalogue.getMarket(h) ?? []);
    this.cancelRestingOrders(closed.filter((m) => catalogue.isClosedInPlay(m))).catch((err: unknown) =>
      this.deps.log.error({ err }, 'cancelling orders of markets closed in play failed'),
    );
    return replayed;
  }

  /** The fixture went live: pre-game quotes on its markets not enabled for in-play betting are cancelled. */
  async fixtureWentLive(exchangeEventId: string): Promise<void> {
    const catalogue = this.deps.catalogue;
    await this.cancelRestingOrders(catalogue.marketsOfEvent(exchangeEventId).filter((m) => catalogue.isClosedInPlay(m)));
  }

  private async cancelRestingOrders(markets: readonly MarketRecord[]): Promise<void> {
    const withOrders = markets.filter((m) => this.engine.openOrdersIn(m.marketHash).length > 0);
    if (withOrders.length === 0) return;
    await this.submit({ kind: 'cancelMarketOrders', at: this.deps.now(), marketHashes: withOrders.map((m) => m.marketHash) });
  }

  stop(): void {
    if (this.sweep) clearInterval(this.sweep);
    this.deps.chain.stop();
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
    // The engine remembers only recent fills; every older one is in the read side.
    if (cmd.kind === 'fill' && this.readModels.fillUsed(cmd.fillSalt, cmd.fillHash)) {
      return Promise.reject(new DomainError('FILL_ALREADY_SUBMITTED'));
    }
    return this.runner.submit(cmd);
  }

  /** The chain executed a fill. */
  fillExecuted(fillHash: string): void {
    this.submit({ kind: 'confirmFill', at: this.deps.now(), fillHash }).catch((err: unknown) =>
      this.deps.log.error({ err, fillHash }, 'fill confirmation not recorded; it stays pending until the next restart'),
    );
  }

  // ---- what the catalogue asks of the trading side ------------------------------------------------

  /** Markets were reported: journals the results, which cancels their open orders and settles their trades. */
  async marketsReported(
    reports: Pick<MarketResult, 'marketHash' | 'outcome'>[],
    finalScore?: { teamOneScore: number; teamTwoScore: number },
  ): Promise<void> {
    await this.submit({ kind: 'reportMarkets', at: this.deps.now(), reports: reports.map((r) => ({ ...r, ...finalScore })) });
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

  private afterCommit(changes: readonly Change[]): void {
    const orderHashes = new Set<string>();
    const tradeIds = new Set<string>();
    const refunds: RefundPaid[] = [];
    for (const c of changes) {
      switch (c.type) {
        case 'orderAdded':
          orderHashes.add(c.order.orderHash);
          break;
        case 'orderChanged':
          orderHashes.add(c.orderHash);
          break;
        case 'fillAccepted':
          this.deps.chain.submit(c.fillHash, c.acceptedAt);
          break;
        case 'tradeRecorded':
          tradeIds.add(c.trade.id);
          break;
        case 'tradeStatusChanged':
        case 'tradeSettled':
          tradeIds.add(c.tradeId);
          break;
        case 'refundPaid':
          refunds.push(c.refund);
          break;
        default:
          break;
      }
    }
    this.publish(orderHashes, tradeIds, refunds);
  }

  private publish(orderHashes: ReadonlySet<string>, tradeIds: ReadonlySet<string>, refunds: readonly RefundPaid[]): void {
    const bus = this.deps.bus;
    const at = this.deps.now();
    const byMarket = new Map<string, OrderView[]>();
    for (const hash of orderHashes) {
      const o = this.engine.order(hash) ?? this.readModels.order(hash);
      if (!o) continue;
      const list = byMarket.get(o.marketHash);
      if (list) list.push(o);
      else byMarket.set(o.marketHash, [o]);
    }
    for (const [marketHash, orders] of byMarket) {
      bus.emit('orders', { marketHash, exchangeEventId: orders[0]!.exchangeEventId, orders: orders.map(orderToChannel) });
    }
    const moved = [...byMarket.keys()].flatMap((m) => this.refreshBestOdds(m, at));
    if (moved.length > 0) bus.emit('bestOdds', moved);
    if (tradeIds.size > 0) {
      const trades = [...tradeIds].flatMap((id) => this.readModels.trade(id) ?? []);
      bus.emit('trades', trades.map((t) => tradeToRest(t, this.render)));
      const consolidated = changedConsolidated(this.readModels, this.consolidated, trades, this.firstRefunds(refunds));
      if (consolidated.length > 0) bus.emit('consolidatedTrades', consolidated);
    }
    for (const update of changedRefundGroups(this.readModels, refunds, this.render.decimals)) bus.emit('refunds', update);
  }

  /** (bettor, market) pairs whose first refund is among these: their entries' marketHasRefunds just flipped. */
  private firstRefunds(refunds: readonly RefundPaid[]): { bettor: string; marketHash: string }[] {
    const paid = new Map<string, { bettor: string; marketHash: string; n: number }>();
    for (const r of refunds) {
      const key = `${r.bettor}|${r.marketHash}`;
      const entry = paid.get(key) ?? { bettor: r.bettor, marketHash: r.marketHash, n: 0 };
      entry.n++;
      paid.set(key, entry);
    }
    return [...paid.values()].filter((p) => this.readModels.refundCount(p.marketHash, p.bettor) === p.n);
  }

  private sweepExpired(): void {
    const next = this.engine.nextExpiryAt();
    const now = this.deps.now();
    if (next !== undefined && next <= now) {
      this.submit({ kind: 'expire', at: now }).catch((err: unknown) => this.deps.log.error({ err }, 'expiry sweep not recorded'));
    }
  }
}
