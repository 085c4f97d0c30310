// The realtime publisher: turns each projected group of committed change records into the publications of the
// channels someone can receive (the broker's audience), in journal order, rendered once per publication: changed
// orders per market, best odds that moved, changed trades and consolidated entries, refund groups. It also keeps
// the best odds GET /orders/odds/best answers, which move with the same groups.
import type { Catalogue } from '../catalogue/catalogue.js';
import type { Engine } from '../engine/engine.js';
import type { Change, OrderState, RefundPaid } from '../engine/changes.js';
import type { OrderView } from '../engine/types.js';
import type { BestOddsItem, EventBus } from '../events.js';
import type { Static } from '@sinclair/typebox';
import type { BestOdds } from '../protocol/wire/trading.js';
import { orderToChannel, tradeToRest, type TradeRenderContext } from '../render/orders-and-trades.js';
import type { RenderContexts } from '../render/contexts.js';
import { changedConsolidated, marketsOfTrades, type ConsolidatedContext } from '../render/consolidated.js';
import { changedRefundGroups } from '../render/refund-groups.js';
import { ChangedTrades } from '../store/changed-trades.js';
import type { ProjectedEntry, ReadModels } from '../store/ports.js';
import { NOBODY, type FeedAudience } from './feeds.js';

interface BestOddsSide {
  percentageOdds: string | null;
  updatedAt: number;
}

export interface PublisherDeps {
  bus: EventBus;
  /** The read models, as the projector left them after the group being published or later. */
  readModels: ReadModels;
  catalogue: Pick<Catalogue, 'getMarket'>;
  /** The live engine (best odds, and the signed facts of open orders). */
  engine: () => Engine;
  baseToken: string;
  render: RenderContexts['trades'];
  consolidated: ConsolidatedContext;
  now: () => number;
}

export class Publisher {
  /** Items rendered for the realtime feeds since start, by kind: only what someone can receive is rendered. */
  readonly rendered = { orders: 0, trades: 0, consolidatedTrades: 0, refundGroups: 0 };
  /** Who can receive the publications (server.ts asks the realtime server); nobody until set. */
  audience: () => FeedAudience = () => NOBODY;
  /** Last published best odds per market side, to publish only real moves and to date them. */
  private readonly bestOdds = new Map<string, BestOddsSide>();

  constructor(private readonly deps: PublisherDeps) {}

  /**
   * Best odds of one market as GET /orders/odds/best reports it: a side without orders is left out, and a market
   * without any orders has no entry (undefined), so no percentageOdds is ever null.
   */
  bestOddsEntry(marketHash: string): Static<typeof BestOdds>['bestOdds'][number] | undefined {
    const side = (one: boolean) => {
      const best = this.bestOdds.get(`${marketHash}:${one}`);
      return best?.percentageOdds ? { percentageOdds: best.percentageOdds, updatedAt: best.updatedAt } : undefined;
    };
    const outcomeOne = side(true);
    const outcomeTwo = side(false);
    if (!outcomeOne && !outcomeTwo) return undefined;
    return {
      marketHash,
      baseToken: this.deps.baseToken,
      ...(outcomeOne ? { outcomeOne } : {}),
      ...(outcomeTwo ? { outcomeTwo } : {}),
    };
  }
  resetBestOdds(): void {
    this.bestOdds.clear();
    const now = this.deps.now();
    for (const marketHash of this.deps.engine().bookedMarkets()) this.refreshBestOdds(marketHash, now);
  }
  /**
   * Returns the best_odds:global items of the sides whose best odds moved to a price. A side that lost its last
   * order is remembered but not published: no percentageOdds on the wire is ever null.
   */
  private refreshBestOdds(marketHash: string, at: number): BestOddsItem[] {
    const moved: BestOddsItem[] = [];
    for (const one of [true, false]) {
      const key = `${marketHash}:${one}`;
      const odds = this.deps.engine().bestMakerOdds(marketHash, one, at)?.toString() ?? null;
      const previous = this.bestOdds.get(key);
      if (previous && previous.percentageOdds === odds) continue;
      if (!previous && odds === null) continue;
      this.bestOdds.set(key, { percentageOdds: odds, updatedAt: at });
      if (odds === null) continue;
      moved.push(this.bestOddsItem(marketHash, one, odds, at));
    }
    return moved;
  }
  /**
   * The best_odds:global items of a market's sides as they stand (a side without orders left out): what a parlay's
   * quote window kept quiet, published when it closes.
   */
  bestOddsItems(marketHash: string): BestOddsItem[] {
    const items: BestOddsItem[] = [];
    for (const one of [true, false]) {
      const best = this.bestOdds.get(`${marketHash}:${one}`);
      if (best?.percentageOdds) items.push(this.bestOddsItem(marketHash, one, best.percentageOdds, best.updatedAt));
    }
    return items;
  }
  private bestOddsItem(marketHash: string, one: boolean, percentageOdds: string, updatedAt: number): BestOddsItem {
    const market = this.deps.catalogue.getMarket(marketHash);
    return {
      marketHash,
      baseToken: this.deps.baseToken,
      isMakerBettingOutcomeOne: one,
      percentageOdds,
      updatedAt,
      sportId: market?.sportId ?? 0,
      leagueId: market?.leagueId ?? 0,
    };
  }
  /**
   * Once a group is projected (the read models as it left them or later; the engine perhaps further on): renders
   * what its publications show, for the channels someone can receive (the bus's audience); best odds always, since
   * main lines follow them. Best odds move, and the engine is read, before the first wait, so groups prepared in
   * journal order move them in that order. Resolves to the fan-out, which the caller runs in journal order. A
   * channel first subscribed after this point misses nothing its subscriber can see: its REST snapshot already
   * holds the group. Each order's publication carries the journal time of the group's entry that first changed it:
   * a parlay's quote window holds what was journaled before it closed, however late it is published.
   */
  async prepare(entries: readonly ProjectedEntry[]): Promise<() => void> {
    const changes: Change[] = entries.flatMap((e) => e.changes);
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
    /** Per rendered order: when the first of the group's commands that changed it was journaled. */
    const journaledAt = new Map<string, number>();
    const rendersOrder = (orderHash: string, state: OrderState, at: number) => {
      orderStates.set(orderHash, state);
      if (!journaledAt.has(orderHash)) journaledAt.set(orderHash, at);
    };
    const tradeIds = new Set<string>();
    const refunds: RefundPaid[] = [];
    /** Markets whose positions a report settled: their trades are read once per market, not per bettor. */
    const settledMarkets = new Map<string, { marketHash: string; settleDate: number }>();
    const paidPositions: { marketHash: string; bettor: string; txHash: string }[] = [];
    for (const { at: entryAt, changes: entryChanges } of entries) {
      for (const c of entryChanges) {
        switch (c.type) {
          case 'orderAdded':
            markets.add(c.order.marketHash);
            if (wantsOrder(c.order.marketHash, c.order.maker)) rendersOrder(c.order.orderHash, c.state, entryAt);
            break;
          case 'orderChanged':
            markets.add(c.marketHash);
            if (wantsOrder(c.marketHash, c.maker)) rendersOrder(c.orderHash, c.state, entryAt);
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
            if (wantsAnyTrade) paidPositions.push(c);
            break;
          case 'refundPaid':
            refunds.push(c.refund);
            break;
          default:
            break;
        }
      }
    }
    const at = this.deps.now();
    // Read from the engine now, before any wait: the orders it still holds, and the best odds.
    const heldOrders = new Map([...orderStates.keys()].flatMap((hash) => this.deps.engine().order(hash) ?? []).map((o) => [o.orderHash, o]));
    const moved = [...markets].flatMap((m) => this.refreshBestOdds(m, at));
    const emits: (() => void)[] = [];
    if (orderStates.size > 0) await this.renderOrders(orderStates, journaledAt, heldOrders, emits);
    const bus = this.deps.bus;
    if (moved.length > 0) emits.push(() => bus.emit('bestOdds', moved));
    const readModels = this.deps.readModels;
    const settledIds = await Promise.all([
      ...[...settledMarkets.values()].map((m) => readModels.tradesSettledIn(m.marketHash, m.settleDate)),
      ...paidPositions.map((c) => readModels.tradesPaidIn(c.marketHash, c.bettor, c.txHash)),
    ]);
    for (const ids of settledIds) for (const id of ids) tradeIds.add(id);
    if (tradeIds.size > 0) await this.renderTrades(tradeIds, new ChangedTrades(changes), refunds, { trades: wantsTrades, consolidated: wantsConsolidated }, emits);
    const readRefunds = refunds.filter((r) => audience.refunds(r.bettor));
    if (readRefunds.length > 0) {
      for (const update of await changedRefundGroups(readModels, readRefunds, this.deps.render.decimals)) {
        this.rendered.refundGroups += update.groups.length;
        emits.push(() => bus.emit('refunds', update));
      }
    }
    return () => {
      for (const emit of emits) emit();
    };
  }
  /** The changed orders as their channels show them, one `orders` event per market. */
  private async renderOrders(
    orderStates: ReadonlyMap<string, OrderState>,
    journaledAt: ReadonlyMap<string, number>,
    held: ReadonlyMap<string, OrderView>,
    emits: (() => void)[],
  ): Promise<void> {
    const bus = this.deps.bus;
    const byMarket = new Map<string, OrderView[]>();
    for (const [hash, state] of orderStates) {
      // The signed facts never change; the state is the one committed with this batch.
      const facts = held.get(hash) ?? (await this.deps.readModels.orders.order(hash));
      if (!facts) continue;
      const o: OrderView = { ...facts, ...state };
      const list = byMarket.get(o.marketHash);
      if (list) list.push(o);
      else byMarket.set(o.marketHash, [o]);
    }
    for (const [marketHash, orders] of byMarket) {
      const update = {
        marketHash,
        exchangeEventId: orders[0]!.exchangeEventId,
        orders: orders.map(orderToChannel),
        journaledAt: orders.map((o) => journaledAt.get(o.orderHash)!),
      };
      this.rendered.orders += orders.length;
      emits.push(() => bus.emit('orders', update));
    }
  }
  /** The changed trades for recent_trades and, from the same facts, their consolidated entries: each only if read. */
  private async renderTrades(
    tradeIds: ReadonlySet<string>,
    changed: ChangedTrades,
    refunds: readonly RefundPaid[],
    read: { trades: boolean; consolidated: boolean },
    emits: (() => void)[],
  ): Promise<void> {
    const bus = this.deps.bus;
    const readModels = this.deps.readModels;
    // What the change records describe is rendered from them; only the rest is read from the store.
    const trades = (await Promise.all([...tradeIds].map(async (id) => changed.trade(id) ?? (await readModels.trade(id))))).filter((t) => t !== undefined);
    if (read.trades) {

      // The trades' refund flags and the fills the change records do not describe: one read each for the commit.
      const [hasRefunds, stored] = await Promise.all([
        readModels.refunds.refundsSeen(trades),
        readModels.fillsOnChain(trades.flatMap((t) => (changed.fillOnChain(t.fillHash) ? [] : [t.fillHash]))),
      ]);
      const rc: TradeRenderContext = { ...(await this.deps.render.withMarkets(marketsOfTrades(trades))), hasRefunds, fillOnChain: (fillHash) => changed.fillOnChain(fillHash) ?? stored(fillHash) };
      const rendered = trades.map((t) => tradeToRest(t, rc));
      this.rendered.trades += rendered.length;
      emits.push(() => bus.emit('trades', rendered));
    }
    if (read.consolidated) {
      const consolidated = await changedConsolidated(readModels, this.deps.consolidated, trades, await this.firstRefunds(refunds), changed);
      this.rendered.consolidatedTrades += consolidated.length;
      if (consolidated.length > 0) emits.push(() => bus.emit('consolidatedTrades', consolidated));
    }
  }
  /** (bettor, market) pairs whose first refund is among these: their entries' marketHasRefunds just flipped. */
  private async firstRefunds(refunds: readonly RefundPaid[]): Promise<{ bettor: string; marketHash: string }[]> {
    const earliest = new Map<string, RefundPaid>();
    for (const r of refunds) {
      const key = `${r.bettor}|${r.marketHash}`;
      const seen = earliest.get(key);
      if (!seen || r.id < seen.id) earliest.set(key, r);
    }
    const candidates = [...earliest.values()];
    const before = await Promise.all(candidates.map((r) => this.deps.readModels.refunds.hasRefundBefore(r.marketHash, r.bettor, r.id)));
    return candidates.filter((_, i) => !before[i]).map((r) => ({ bettor: r.bettor, marketHash: r.marketHash }));
  }
}
