// Wires the engine into the process: replay on start, the runner, the catalogue's market facts, and the
// realtime feed (orders, trades and best odds rendered once per commit and put on the bus).
import type { AppContext, MarketReport, TradingHooks } from '../context.js';
import type { MarketRecord } from '../catalogue/catalogue.js';
import { Engine } from '../engine/engine.js';
import type { EngineEvents, MarketRef, Order } from '../engine/types.js';
import { Journal } from '../store/journal.js';
import { EngineRunner, type RunnerOptions } from './runner.js';
import { orderToChannel, tradeToRest, type TradeRenderContext } from './render.js';
import { changedConsolidated, consolidatedContextOf } from './consolidated.js';
import { changedRefundGroups } from './refund-groups.js';
import { settlementViewOf } from './settlement-credit.js';
import { tradeIndexOf } from './trade-index.js';

export interface BestOddsSide {
  percentageOdds: string | null;
  updatedAt: number;
}

export class TradingService implements TradingHooks {
  readonly engine: Engine;
  readonly runner: EngineRunner;
  readonly render: TradeRenderContext;
  /** Last published best odds per market side, to publish only real moves and to date them. */
  private readonly bestOdds = new Map<string, BestOddsSide>();

  constructor(
    private readonly ctx: AppContext,
    createChain?: RunnerOptions['createChain'],
  ) {
    const c = ctx.config;
    this.engine = new Engine({
      oddsLadderStepSize: c.oddsLadderStepSize,
      makerMinimum: c.makerMinimum,
      takerMinimum: c.takerMinimum,
      cancelMaxSkewSeconds: c.cancelMaxSkewSeconds,
      baseToken: c.baseTokenAddress,
      affiliate: c.exchangeAffiliate,
      restrictionWindowMs: c.restriction.windowMs,
      restrictionThreshold: c.restriction.threshold,
      restrictionMs: c.restriction.durationMs,
    });
    this.runner = new EngineRunner(this.engine, new Journal(ctx.db), {
      now: ctx.now,
      chainConfirmationDelayMs: c.chainConfirmationDelayMs,
      afterCommit: (events) => this.publish(events),
      onFatal: (err) => {
        ctx.log.fatal({ err }, 'journal write failed; refusing trading until restart');
        ctx.ready = false;
      },
      createChain,
      chainSubmit: {
        ...c.chainSubmit,
        onFailure: ({ fillHash, attempt, retryInMs, err }) =>
          ctx.log.warn({ err, fillHash, attempt, retryInMs }, 'settlement chain did not take a fill; it stays PENDING and is retried'),
      },
    });
    this.render = {
      decimals: c.baseTokenDecimals,
      chainVersion: c.chainVersion,
      marketType: (hash) => ctx.catalogue.getMarket(hash)?.type,
      settlement: settlementViewOf(this.engine),
      fillOf: (fillHash) => this.engine.fills.get(fillHash),
    };
  }

  /**
   * Replays the journal, then starts timers. Orders still resting on markets closed in play (a stop between the
   * fixture going live and their cancel) are cancelled now.
   */
  start(): number {
    const replayed = this.runner.replay();
    for (const marketHash of this.engine.books.keys()) this.refreshBestOdds(marketHash, this.ctx.now());
    this.runner.start();
    const closed = [...this.engine.books.keys()].flatMap((h) => this.ctx.catalogue.getMarket(h) ?? []);
    this.cancelRestingOrders(closed.filter((m) => this.ctx.catalogue.isClosedInPlay(m))).catch((err: unknown) =>
      this.ctx.log.error({ err }, 'cancelling orders of markets closed in play failed'),
    );
    return replayed;
  }

  stop(): void {
    this.runner.stop();
  }

  // ---- TradingHooks -----------------------------------------------------------------------------

  async marketsReported(reports: MarketReport[]): Promise<void> {
    // Who holds positions, read before the report settles them: an on-chain escrow pays each of them.
    const bettors = reports.map((r) => [...(this.engine.positions.get(r.marketHash)?.keys() ?? [])]);
    await this.runner.submit({ kind: 'reportMarkets', at: this.ctx.now(), reports });
    this.runner.chain.marketsReported(reports.map((r, i) => ({ ...r, bettors: bettors[i]! })));
  }

  /** The fixture went live: pre-game quotes on its markets not enabled for in-play betting are cancelled. */
  async fixtureWentLive(exchangeEventId: string): Promise<void> {
    const catalogue = this.ctx.catalogue;
    await this.cancelRestingOrders(catalogue.marketsOfEvent(exchangeEventId).filter((m) => catalogue.isClosedInPlay(m)));
  }

  private async cancelRestingOrders(markets: readonly MarketRecord[]): Promise<void> {
    const withOrders = markets.filter((m) => (this.engine.books.get(m.marketHash)?.allOrders().length ?? 0) > 0);
    if (withOrders.length === 0) return;
    await this.runner.submit({ kind: 'cancelMarketOrders', at: this.ctx.now(), marketHashes: withOrders.map((m) => m.marketHash) });
  }

  matchedVolume(): ReadonlyMap<string, bigint> {
    return this.engine.matchedVolume;
  }

  // ---- market facts -----------------------------------------------------------------------------

  marketRef(market: MarketRecord): MarketRef {
    return {
      marketHash: market.marketHash,
      exchangeEventId: market.exchangeEventId,
      tradeable: market.status === 'ACTIVE' && !this.ctx.catalogue.isClosedInPlay(market),
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
      baseToken: this.ctx.config.baseTokenAddress,
      ...(outcomeOne ? { outcomeOne } : {}),
      ...(outcomeTwo ? { outcomeTwo } : {}),
    };
  }

  // ---- realtime feed ----------------------------------------------------------------------------

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
      const market = this.ctx.catalogue.getMarket(marketHash);
      moved.push({
        marketHash,
        baseToken: this.ctx.config.baseTokenAddress,
        isMakerBettingOutcomeOne: one,
        percentageOdds: odds,
        updatedAt: at,
        sportId: market?.sportId ?? 0,
        leagueId: market?.leagueId ?? 0,
      });
    }
    return moved;
  }

  private publish(events: EngineEvents): void {
    const bus = this.ctx.bus;
    const at = this.ctx.now();
    const byMarket = new Map<string, Order[]>();
    for (const hash of events.orders) {
      const o = this.engine.orders.get(hash)!;
      const list = byMarket.get(o.marketHash);
      if (list) list.push(o);
      else byMarket.set(o.marketHash, [o]);
    }
    for (const [marketHash, orders] of byMarket) {
      bus.emit('orders', {
        marketHash,
        exchangeEventId: orders[0]!.exchangeEventId,
        orders: orders.map(orderToChannel),
      });
    }
    const moved = [...events.books].flatMap((m) => this.refreshBestOdds(m, at));
    if (moved.length > 0) bus.emit('bestOdds', moved);
    if (events.trades.size > 0) {
      bus.emit(
        'trades',
        [...events.trades].map((id) => tradeToRest(this.engine.tradesById.get(id)!, this.render)),
      );
      const consolidated = changedConsolidated(this.engine, tradeIndexOf(this.engine), consolidatedContextOf(this.ctx), events);
      if (consolidated.length > 0) bus.emit('consolidatedTrades', consolidated);
    }
    for (const update of changedRefundGroups(this.engine, events, this.render.decimals)) bus.emit('refunds', update);
  }
}
