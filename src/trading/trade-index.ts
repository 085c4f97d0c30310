// Read-side index over the engine's append-only trade list: trades per (market, bettor) and the consolidated
// groups (one per fill, bettor and market; quarter-line legs also roll up into a parent per fill and bettor).
// Built lazily: each read first indexes the trades appended since the last one, so the engine is never touched.
import type { Engine } from '../engine/engine.js';
import type { Trade } from '../engine/types.js';

/** A bettor's trades of one fill on one market (several when the fill matched several of the bettor's orders). */
export interface TradeGroup {
  kind: 'plain' | 'leg';
  /** Creation sequence, for a stable order. */
  seq: number;
  marketHash: string;
  trades: Trade[];
  /** Legs only: the parent group of the same fill and bettor. */
  parent?: ParentGroup;
}

/** The synthetic parent of a quarter-line bet: both leg groups of one fill and bettor. */
export interface ParentGroup {
  kind: 'parent';
  seq: number;
  /** The quarter-line market the bet was placed on. */
  marketHash: string;
  fillHash: string;
  bettor: string;
  /** Lower line's leg first, as the engine records them. */
  legs: TradeGroup[];
}

export type ConsolidatedGroup = TradeGroup | ParentGroup;

const key = (...parts: string[]) => parts.join('|');

export class TradeIndex {
  private indexed = 0;
  private seq = 0;
  private readonly marketBettor = new Map<string, Trade[]>();
  private readonly groupsByKey = new Map<string, TradeGroup>();
  private readonly parentsByKey = new Map<string, ParentGroup>();
  /** Every group in creation order, and per bettor (lower-case address). */
  private readonly all: ConsolidatedGroup[] = [];
  private readonly byBettor = new Map<string, ConsolidatedGroup[]>();

  constructor(private readonly engine: Engine) {}

  /** A bettor's trades on one market (a leg market for quarter-line bets), oldest first. */
  tradesOf(marketHash: string, bettor: string): readonly Trade[] {
    this.sync();
    return this.marketBettor.get(key(marketHash, bettor.toLowerCase())) ?? [];
  }

  /** Consolidated groups in creation order, all or one bettor's. */
  groups(bettor?: string): readonly ConsolidatedGroup[] {
    this.sync();
    return bettor === undefined ? this.all : (this.byBettor.get(bettor.toLowerCase()) ?? []);
  }

  /** The group a trade belongs to, and its parent when it is a quarter-line leg. */
  groupsOfTrade(t: Trade): ConsolidatedGroup[] {
    this.sync();
    const group = this.groupsByKey.get(key(t.fillHash, t.bettor.toLowerCase(), t.marketHash));
    if (!group) return [];
    return group.parent ? [group, group.parent] : [group];
  }

  private sync(): void {
    const trades = this.engine.trades;
    for (; this.indexed < trades.length; this.indexed++) this.add(trades[this.indexed]!);
  }

  private add(t: Trade): void {
    const bettor = t.bettor.toLowerCase();
    const mbKey = key(t.marketHash, bettor);
    const list = this.marketBettor.get(mbKey);
    if (list) list.push(t);
    else this.marketBettor.set(mbKey, [t]);

    const groupKey = key(t.fillHash, bettor, t.marketHash);
    const existing = this.groupsByKey.get(groupKey);
    if (existing) {
      existing.trades.push(t);
      return;
    }
    // A quarter-line bet's parent comes first, then its legs (lower line first, as the engine records them).
    let parent: ParentGroup | undefined;
    if (t.quarterLineParentMarketHash) {
      const parentKey = key(t.fillHash, bettor, t.quarterLineParentMarketHash);
      parent = this.parentsByKey.get(parentKey);
      if (!parent) {
        parent = { kind: 'parent', seq: ++this.seq, marketHash: t.quarterLineParentMarketHash, fillHash: t.fillHash, bettor: t.bettor, legs: [] };
        this.parentsByKey.set(parentKey, parent);
        this.push(bettor, parent);
      }
    }
    const group: TradeGroup = { kind: parent ? 'leg' : 'plain', seq: ++this.seq, marketHash: t.marketHash, trades: [t] };
    if (parent) {
      group.parent = parent;
      parent.legs.push(group);
    }
    this.groupsByKey.set(groupKey, group);
    this.push(bettor, group);
  }

  private push(bettor: string, group: ConsolidatedGroup): void {
    this.all.push(group);
    const own = this.byBettor.get(bettor);
    if (own) own.push(group);
    else this.byBettor.set(bettor, [group]);
  }
}

const indexes = new WeakMap<Engine, TradeIndex>();

/** The one index of an engine (created on first use). */
export function tradeIndexOf(engine: Engine): TradeIndex {
  let index = indexes.get(engine);
  if (!index) indexes.set(engine, (index = new TradeIndex(engine)));
  return index;
}
